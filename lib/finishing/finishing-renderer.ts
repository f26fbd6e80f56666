import { RenderTimeoutError } from '../errors.js';
import { startDeadline, type Deadline } from '../render/deadline.js';
import type { Renderer, RenderResult } from '../render/types.js';
import { finishPdf, wantsFinishing, type FinishingSteps } from './finish-pdf.js';
import { chromiumTextDrawer } from './watermark-text.js';

/**
 * Puts the finishing stage behind a renderer: a PDF whose options ask for a
 * watermark or protection is printed, then finished, all inside the one time
 * budget of the render (a 504 when it runs out, never a half-finished file).
 * Everything else passes straight through.
 */
export function withFinishing(renderer: Renderer, defaultTimeoutMs: number): Renderer {
  // One drawer for the renderer keeps the drawn texts; each render hands it its own time left.
  const drawer = chromiumTextDrawer((text, timeoutMs) => renderer.render(text, { timeoutMs }));
  return {
    ...renderer,
    render: async (input, options) => {
      if (input.output !== 'PDF' || !wantsFinishing(input.pdf)) return renderer.render(input, options);
      const deadline = startDeadline(options?.timeoutMs ?? defaultTimeoutMs);
      const result = await renderer.render(input, { timeoutMs: deadline.remaining() });
      // Loaded on first use: the PDF library is no part of a cold start that has no finishing to do.
      const { finishingSteps } = await import('./finishing-steps.js');
      return finishResult(result, finishingSteps(input.pdf, drawer(() => deadline.remaining())), deadline);
    },
  };
}

/** Runs `steps` over a printed result within what is left of `deadline`. */
export async function finishResult(result: RenderResult, steps: FinishingSteps, deadline: Deadline): Promise<RenderResult> {
  const started = Date.now();
  const body = await withinDeadline(finishPdf(new Uint8Array(result.body.buffer, result.body.byteOffset, result.body.byteLength), steps), deadline);
  return { ...result, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), timings: { ...result.timings, finish: Date.now() - started } };
}

/** `work`'s result, or RenderTimeoutError once the budget is spent (the work's late result is dropped). */
export function withinDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderTimeoutError(deadline.budgetMs)), deadline.remaining());
  });
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

