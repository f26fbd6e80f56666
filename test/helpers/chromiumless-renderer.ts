import type { RenderPlan } from '../../lib/render/render-plan.js';
import type { RenderResult, Renderer } from '../../lib/render/types.js';

/**
 * A renderer with everything but the browser: what a render checks without
 * Chromium (page source with base64 and Handlebars, PDF options, screen
 * emulation) is settled when its plan is built, at the edge, so what that
 * throws reaches the error mapper as in a real render; this answers a tiny
 * file. For tests of the stack around the render.
 */
export function chromiumlessRenderer(): Renderer {
  return {
    async render(plan: RenderPlan): Promise<RenderResult> {
      if (plan.output === 'PDF') return { body: Buffer.from('%PDF-1.7'), contentType: 'application/pdf', output: 'PDF', timings: {} };
      return { body: Buffer.from('PNG'), contentType: 'image/png', output: 'IMAGE', timings: {} };
    },
    warm: async () => undefined,
    anticipate: () => undefined,
    close: async () => undefined,
  };
}
