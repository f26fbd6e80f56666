import { appDeps } from '../lib/bootstrap/app-deps.js';
import { updateTemplateEndpoint } from '../lib/api/templates.js';

export const handler = updateTemplateEndpoint(appDeps());
