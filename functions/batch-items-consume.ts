import { renderingHandler } from '../lib/render-app.js';

// Imported dynamically, so that it loads while Chromium starts (see renderingHandler).
export const handler = await renderingHandler(async () => (await import('../lib/batches/batch-consumers.js')).batchItemsConsumer);
