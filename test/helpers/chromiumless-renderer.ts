import { screenFor } from '../../lib/render/capture-screenshot.js';
import { resolvePageSource } from '../../lib/render/page-source.js';
import { toPdfOptions } from '../../lib/render/pdf-options.js';
import type { RenderInput, RenderResult, Renderer } from '../../lib/render/types.js';

/**
 * A renderer with everything but the browser: it runs the steps of a render
 * that need no Chromium (page source with base64 and Handlebars, PDF options,
 * screen emulation), so what they throw reaches the error mapper as in a real
 * render, and answers a tiny file. For tests of the stack around the render.
 */
export function chromiumlessRenderer(): Renderer {
  return {
    async render(input: RenderInput): Promise<RenderResult> {
      resolvePageSource(input.page);
      if (input.output === 'PDF') {
        toPdfOptions(input.pdf);
        return { body: Buffer.from('%PDF-1.7'), contentType: 'application/pdf', output: 'PDF', timings: {} };
      }
      screenFor(input.screenshot);
      return { body: Buffer.from('PNG'), contentType: 'image/png', output: 'IMAGE', timings: {} };
    },
    warm: async () => undefined,
    anticipate: () => undefined,
    afterAnswer: async () => undefined,
    close: async () => undefined,
  };
}
