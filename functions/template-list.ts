import { appDeps } from '../lib/bootstrap/app-deps.js';
import { listTemplatesEndpoint } from '../lib/api/templates.js';

export const handler = listTemplatesEndpoint(appDeps());
