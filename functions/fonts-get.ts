import { appDeps } from '../lib/bootstrap/app-deps.js';
import { getFontEndpoint } from '../lib/api/fonts.js';

export const handler = getFontEndpoint(appDeps());
