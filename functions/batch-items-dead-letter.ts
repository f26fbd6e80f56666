import { appDeps } from '../lib/app.js';
import { deadBatchItemsConsumer } from '../lib/batches/batch-consumers.js';

export const handler = deadBatchItemsConsumer(appDeps());
