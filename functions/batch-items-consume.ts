import { renderingHandler } from '../lib/bootstrap/rendering-handler.js';

// Imported dynamically, so that it loads while Chromium starts (see renderingHandler).
export const handler = await renderingHandler(async () => (await import('../lib/batches/batch-consumers.js')).batchItemsConsumer);
