import { appDeps } from '../lib/app.js';
import { cancelBatchEndpoint } from '../lib/api/batches.js';

export const handler = cancelBatchEndpoint(appDeps());
