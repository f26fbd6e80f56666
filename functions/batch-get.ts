import { appDeps } from '../lib/app.js';
import { getBatchEndpoint } from '../lib/api/batches.js';

export const handler = getBatchEndpoint(appDeps());
