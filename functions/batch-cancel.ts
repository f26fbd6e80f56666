import { appDeps } from '../lib/bootstrap/app-deps.js';
import { cancelBatchEndpoint } from '../lib/api/batches.js';

export const handler = cancelBatchEndpoint(appDeps());
