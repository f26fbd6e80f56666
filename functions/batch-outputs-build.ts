import { appDeps } from '../lib/bootstrap/app-deps.js';
import { batchOutputsConsumer } from '../lib/batches/batch-consumers.js';

export const handler = batchOutputsConsumer(appDeps());
