import { appDeps } from '../lib/app.js';
import { listTemplatesEndpoint } from '../lib/api/templates.js';

export const handler = listTemplatesEndpoint(appDeps());
