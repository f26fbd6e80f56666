import { ParseSpeeds, PDFDocument } from '@cantoo/pdf-lib';
import { FinishingError } from './errors.js';

/**
 * Opens a printed PDF for a finishing step. `updateMetadata: false`: the
 * library must not stamp its own producer and dates over the ones the
 * archive step writes (PDF/A compares them with the XMP packet). Parsed in
 * one go: the library's default yields to the event loop every 100 objects,
 * which on a busy instance costs more than the parsing (80 ms against 15 for
 * a one-page invoice on the shared bench machine).
 */
export async function openPdf(pdf: Uint8Array, step: string): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}

/**
 * Writes the document back to bytes; a failure is the step's. A classic
 * cross-reference table and no yielding: object streams would compress every
 * object again (3–4× the time of the whole save for a one-page PDF), unless
 * `compact` (the compress step) asks for the smaller file.
 */
export async function savePdf(doc: PDFDocument, step: string, compact = false): Promise<Uint8Array> {
  try {
    return await doc.save({ updateFieldAppearances: false, useObjectStreams: compact, objectsPerTick: Infinity });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}
