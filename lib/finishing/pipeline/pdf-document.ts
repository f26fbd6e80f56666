import { ParseSpeeds, PDFDocument, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { InputPdfError } from '../../pdf/errors.js';
import { usableResources } from '../../pdf/page-resources.js';
import { FinishingError } from './errors.js';
import { MAX_STREAM_INFLATED_BYTES, boundedStreamBytes } from '../objects/stream-bytes.js';

/**
 * Opens a printed PDF for a finishing step. `updateMetadata: false`: the
 * library must not stamp its own producer and dates over the ones the
 * archive step writes (PDF/A compares them with the XMP packet). Parsed in
 * one go: the library's default yields to the event loop every 100 objects,
 * which on a busy instance costs more than the parsing (80 ms against 15 for
 * a one-page invoice on the shared bench machine).
 */
export async function openPdf(pdf: Uint8Array, step: string): Promise<PDFDocument> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
  usableResources(doc);
  return doc;
}

/**
 * Writes the document back to bytes; a failure is the step's. A classic
 * cross-reference table and no yielding: object streams would compress every
 * object again (3–4× the time of the whole save for a one-page PDF), unless
 * `compact` (the compress step) asks for the smaller file and the document
 * does not claim PDF/A-1, which forbids them.
 *
 * The library reads the catalog's XMP to learn that claim, inflating it with
 * no ceiling: it is read here first, within the budget, and a packet past
 * the stream ceiling is the caller's document's problem (a 400), never a
 * decoder left to allocate gigabytes.
 */
export async function savePdf(doc: PDFDocument, step: string, budget: DocumentBudget, compact = false): Promise<Uint8Array> {
  const xmp = catalogXmp(doc, budget);
  const pdfaPart = xmp === undefined ? undefined : /pdfaid:part(?:>\s*|\s*=\s*["'])\s*(\d+)/.exec(xmp)?.[1];
  try {
    return await doc.save({ updateFieldAppearances: false, useObjectStreams: compact && pdfaPart !== '1', objectsPerTick: Infinity });
  } catch (error) {
    throw new FinishingError(step, { cause: error });
  }
}

/** The catalog's XMP packet as text, read within the budget; undefined when it has none the library could read. */
function catalogXmp(doc: PDFDocument, budget: DocumentBudget): string | undefined {
  const stream = doc.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFRawStream)) return undefined;
  const bytes = boundedStreamBytes(stream, budget);
  if (bytes === 'over') throw new InputPdfError(`Its XMP metadata decodes to more than ${MAX_STREAM_INFLATED_BYTES / 1024 / 1024} MB`);
  return bytes === undefined ? undefined : new TextDecoder('utf-8').decode(bytes);
}
