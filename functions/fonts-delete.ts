import { appDeps } from '../lib/bootstrap/app-deps.js';
import { deleteFontEndpoint } from '../lib/api/fonts.js';

export const handler = deleteFontEndpoint(appDeps());
