import { PDFDocument } from '@cantoo/pdf-lib';
import { RenderError } from '../errors.js';

/**
 * A finishing step could not read or write the PDF the service printed: the
 * service's failure (500, refunded), never the caller's. Its message names
 * the step only: the options (passwords) stay out of it.
 */
export class FinishingError extends RenderError {
  constructor(step: string, options: { cause?: unknown } = {}) {
    super(`Finishing the PDF failed at the ${step} step`, options);
  }
}

/** Parses PDF bytes the service produced itself for `step`; a failure is the service's (FinishingError). */
export async function loadPdf(pdf: Uint8Array, step: string): Promise<PDFDocument> {
  try {
    // Chromium's PDFs carry no dates pdf-lib should rewrite; keep the producer's metadata as printed.
    return await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}
