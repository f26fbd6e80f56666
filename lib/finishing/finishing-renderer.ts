import { RenderTimeoutError } from '../errors.js';
import { startDeadline, type Deadline } from '../render/deadline.js';
import type { DocumentInput, DocumentRenderer, MergeInput, Renderer, RenderResult } from '../render/types.js';
import { partFailure } from './merge-errors.js';
import { finishPdf, wantsFinishing, type FinishingSteps } from './finish-pdf.js';
import type { AssemblyPart } from './assemble.js';
import { chromiumTextDrawer } from './watermark-text.js';

/** Whether `input` is a merge of parts rather than one render. */
export const isMergeInput = (input: DocumentInput): input is MergeInput => 'parts' in input;

/**
 * Puts the finishing stage behind a renderer: a PDF whose options ask for a
 * watermark or protection is printed, then finished; a merge prints its parts
 * one after another, assembles them, then finishes the whole. Either way all
 * of it runs inside the one time budget of the request (a 504 when it runs
 * out, never a partial file). Everything else passes straight through.
 */
export function withFinishing(renderer: Renderer, defaultTimeoutMs: number): DocumentRenderer {
  // One drawer for the renderer keeps the drawn texts; each render hands it its own time left.
  const drawer = chromiumTextDrawer((text, timeoutMs) => renderer.render(text, { timeoutMs }));
  // Loaded on first use: the PDF library is no part of a cold start that has no finishing to do.
  const loadSteps = () => Promise.all([import('./finishing-steps.js'), import('./assemble.js')]);

  const finished: DocumentRenderer = {
    ...renderer,
    render: async (input, options) => {
      const deadline = startDeadline(options?.timeoutMs ?? defaultTimeoutMs);
      if (isMergeInput(input)) return merge(input, deadline);
      if (input.output !== 'PDF' || !wantsFinishing(input.pdf)) return renderer.render(input, options);
      const result = await renderer.render(input, { timeoutMs: deadline.remaining() });
      const [{ finishingSteps }] = await loadSteps();
      return finishResult(result, finishingSteps(input.pdf, drawer(() => deadline.remaining())), deadline);
    },
  };

  /** Prints the parts in order (an existing PDF as it is), then assembles and finishes them. */
  const merge = async (input: MergeInput, deadline: Deadline): Promise<RenderResult> => {
    const started = Date.now();
    const printed: AssemblyPart[] = [];
    const outline = input.pdf?.outline ?? false;
    for (const [index, part] of input.parts.entries()) {
      if ('document' in part) {
        printed.push({ pdf: Buffer.from(part.document, 'base64'), title: part.title });
        continue;
      }
      if (deadline.remaining() === 0) throw new RenderTimeoutError(deadline.budgetMs);
      // With the merged outline on, each part prints its own (unless it says otherwise) to nest it.
      const pdf = outline && part.pdf?.outline == null ? { ...part.pdf, outline: true } : part.pdf;
      try {
        const result = await finished.render({ output: 'PDF', page: part.page, pdf }, { timeoutMs: deadline.remaining() });
        printed.push({ pdf: result.body, title: part.title });
      } catch (error) {
        throw partFailure(error, index);
      }
    }
    const [first, ...others] = printed as [AssemblyPart, ...AssemblyPart[]];
    const [{ finishingSteps }, { assembleStep }] = await loadSteps();
    const steps: FinishingSteps = {
      ...finishingSteps(input.pdf, drawer(() => deadline.remaining())),
      assemble: assembleStep(first, others, outline),
    };
    const rendered: RenderResult = { body: Buffer.from(first.pdf), contentType: 'application/pdf', output: 'PDF', timings: { render: Date.now() - started } };
    return finishResult(rendered, steps, deadline);
  };

  return finished;
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
