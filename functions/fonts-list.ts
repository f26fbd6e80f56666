import { appDeps } from '../lib/bootstrap/app-deps.js';
import { listFontsEndpoint } from '../lib/api/fonts.js';

export const handler = listFontsEndpoint(appDeps());
