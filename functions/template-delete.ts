import { appDeps } from '../lib/bootstrap/app-deps.js';
import { deleteTemplateEndpoint } from '../lib/api/templates.js';

export const handler = deleteTemplateEndpoint(appDeps());
