import { appDeps } from '../lib/app.js';
import { getTemplateEndpoint } from '../lib/api/templates.js';

export const handler = getTemplateEndpoint(appDeps());
