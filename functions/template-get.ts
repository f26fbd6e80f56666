import { appDeps } from '../lib/bootstrap/app-deps.js';
import { getTemplateEndpoint } from '../lib/api/templates.js';

export const handler = getTemplateEndpoint(appDeps());
