import { appDeps } from '../lib/bootstrap/app-deps.js';
import { createTemplateEndpoint } from '../lib/api/templates.js';

export const handler = createTemplateEndpoint(appDeps());
