import { appDeps } from '../lib/app.js';
import { asyncPdfEndpoint } from '../lib/api/async-render.js';

export const handler = asyncPdfEndpoint(appDeps());
