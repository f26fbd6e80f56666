import { appDeps } from '../lib/app.js';
import { renderEndpoint } from '../lib/api/render-endpoints.js';

export const handler = renderEndpoint('process', 'async', appDeps());
