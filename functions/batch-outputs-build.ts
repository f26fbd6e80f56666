import { appDeps } from '../lib/app.js';
import { batchOutputsConsumer } from '../lib/batches/batch-consumers.js';

export const handler = batchOutputsConsumer(appDeps());
