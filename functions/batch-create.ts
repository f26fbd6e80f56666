import { appDeps } from '../lib/app.js';
import { createBatchEndpoint } from '../lib/api/batches.js';

export const handler = createBatchEndpoint(appDeps());
