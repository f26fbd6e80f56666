/**
 * The finishing stage: operations on a printed PDF, after the output layer
 * and before delivery (Gotenberg's PDF engines are the model: each step is a
 * small function from PDF bytes to PDF bytes with its own typed errors).
 */

/** One operation on a finished PDF. */
export type PdfStep = (pdf: Uint8Array) => Promise<Uint8Array>;

/**
 * The order the steps run in, written down once: parts are assembled first so
 * that a stamp spans every part; metadata and the archival identification
 * describe the stamped document; attachments join it; encryption comes last,
 * over everything.
 */
export const FINISHING_ORDER = ['assemble', 'stamp', 'archive', 'attach', 'protect'] as const;

/** A stage of the finishing pipeline. */
export type FinishingStage = (typeof FINISHING_ORDER)[number];

/** The steps a render asks for, by stage; a stage without a step is skipped. */
export type FinishingSteps = Partial<Record<FinishingStage, PdfStep>>;

/** Runs the given steps over `pdf` in `FINISHING_ORDER`; with no step, answers `pdf` itself. */
export async function finishPdf(pdf: Uint8Array, steps: FinishingSteps): Promise<Uint8Array> {
  let current = pdf;
  for (const stage of FINISHING_ORDER) {
    const step = steps[stage];
    if (step) current = await step(current);
  }
  return current;
}

