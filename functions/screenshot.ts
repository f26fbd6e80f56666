import { renderingHandler } from '../lib/bootstrap/rendering-handler.js';

// Imported dynamically, so that it loads while Chromium starts (see renderingHandler).
export const handler = await renderingHandler(async () => {
  const { renderEndpoint } = await import('../lib/api/render-endpoints.js');
  return (deps) => renderEndpoint('screenshot', 'raw', deps);
});
