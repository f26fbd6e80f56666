import { renderDeps, warmRenderer } from '../lib/render-app.js';
import { renderEndpoint } from '../lib/api/render-endpoints.js';

const deps = renderDeps();
await warmRenderer(deps);

export const handler = renderEndpoint('pdf', 'raw', deps);
