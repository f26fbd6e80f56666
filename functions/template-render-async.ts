import { appDeps } from '../lib/app.js';
import { asyncTemplateRenderEndpoint } from '../lib/api/async-render.js';

export const handler = asyncTemplateRenderEndpoint(appDeps());
