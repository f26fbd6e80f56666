import { appDeps } from '../lib/app.js';
import { updateTemplateEndpoint } from '../lib/api/templates.js';

export const handler = updateTemplateEndpoint(appDeps());
