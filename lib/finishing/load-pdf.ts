import { PDFDocument } from '@cantoo/pdf-lib';
import { FinishingError } from './errors.js';

/** Parses PDF bytes the service produced itself for `step`; a failure is the service's (FinishingError). */
export async function loadPdf(pdf: Uint8Array, step: string): Promise<PDFDocument> {
  try {
    // Chromium's PDFs carry no dates pdf-lib should rewrite; keep the producer's metadata as printed.
    return await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}
