import { renderDeps, warmRenderer } from '../lib/render-app.js';
import { syncScreenshotEndpoint } from '../lib/api/sync-render.js';

const deps = renderDeps();
await warmRenderer(deps);

export const handler = syncScreenshotEndpoint(deps);
