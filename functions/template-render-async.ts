import { appDeps } from '../lib/bootstrap/app-deps.js';
import { renderEndpoint } from '../lib/api/render-endpoints.js';

export const handler = renderEndpoint('template', 'async', appDeps());
