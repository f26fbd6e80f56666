import { appDeps } from '../lib/bootstrap/app-deps.js';
import { deadBatchItemsConsumer } from '../lib/batches/batch-consumers.js';

export const handler = deadBatchItemsConsumer(appDeps());
