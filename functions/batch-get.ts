import { appDeps } from '../lib/bootstrap/app-deps.js';
import { getBatchEndpoint } from '../lib/api/batches.js';

export const handler = getBatchEndpoint(appDeps());
