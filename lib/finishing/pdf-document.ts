import { PDFDocument } from '@cantoo/pdf-lib';
import { FinishingError } from './errors.js';

/**
 * Opens a printed PDF for a finishing step. `updateMetadata: false`: the
 * library must not stamp its own producer and dates over the ones the
 * archive step writes (PDF/A compares them with the XMP packet).
 */
export async function openPdf(pdf: Uint8Array, step: string): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}

/** Writes the document back to bytes; a failure is the step's. */
export async function savePdf(doc: PDFDocument, step: string): Promise<Uint8Array> {
  try {
    return await doc.save({ updateFieldAppearances: false });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}
