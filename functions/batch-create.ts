import { appDeps } from '../lib/bootstrap/app-deps.js';
import { createBatchEndpoint } from '../lib/api/batches.js';

export const handler = createBatchEndpoint(appDeps());
