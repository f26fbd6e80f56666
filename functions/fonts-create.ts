import { appDeps } from '../lib/bootstrap/app-deps.js';
import { createFontEndpoint } from '../lib/api/fonts.js';

export const handler = createFontEndpoint(appDeps());
