import { renderDeps, warmRenderer } from '../lib/render-app.js';
import { rawTemplateRenderEndpoint } from '../lib/api/raw-render.js';

const deps = renderDeps();
await warmRenderer(deps);

export const handler = rawTemplateRenderEndpoint(deps);
