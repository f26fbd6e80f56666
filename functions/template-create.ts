import { appDeps } from '../lib/app.js';
import { createTemplateEndpoint } from '../lib/api/templates.js';

export const handler = createTemplateEndpoint(appDeps());
