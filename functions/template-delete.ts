import { appDeps } from '../lib/app.js';
import { deleteTemplateEndpoint } from '../lib/api/templates.js';

export const handler = deleteTemplateEndpoint(appDeps());
