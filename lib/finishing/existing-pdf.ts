/**
 * An existing PDF opened for /v1/pdf/process: read within the input bounds
 * (pdf-input-bounds.ts, as a merge part is, and decrypted there with the
 * caller's password), then loaded for its facts or its finishing.
 */
import { ParseSpeeds, PDFDocument, PDFInvalidObject, PDFName, PDFRawStream, PDFRef } from '@cantoo/pdf-lib';
import type { PdfaLevel } from './archive.js';
import { InputPdfError } from './errors.js';
import { pdfFacts, type PdfFacts } from './pdf-facts.js';
import { readPdfInput } from './pdf-input-bounds.js';
import { pdfaProblems } from './pdfa-preflight.js';

/** An existing PDF, bounded and decrypted: its bytes to finish, its facts, and what keeps it from PDF/A. */
export type ExistingPdf = {
  /** The file as given, or decrypted when it was encrypted (`pdf.protection` encrypts it again). */
  bytes: Uint8Array;
  facts: () => PdfFacts;
  pdfaProblems: (level: PdfaLevel) => string[];
};

/** Opens `bytes` with `password`; InputPdfError when it cannot be used. */
export async function openExistingPdf(bytes: Uint8Array, password: string | undefined): Promise<ExistingPdf> {
  const read = await readPdfInput(bytes, { decrypt: true, password });
  if ('problem' in read) throw new InputPdfError(read.problem, { password: read.password === true });
  let doc: PDFDocument;
  let finished = bytes;
  try {
    // Within the bounds just checked: the library's own parse meets only what they allow.
    doc = await PDFDocument.load(bytes, { password: read.encryption ? (password ?? '') : undefined, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
    if (read.encryption) {
      // Decrypted as read: the file written must not name the encryption it no longer has.
      const encrypt = doc.context.trailerInfo.Encrypt;
      if (encrypt instanceof PDFRef) doc.context.delete(encrypt);
      doc.context.trailerInfo.Encrypt = undefined;
      // The library keeps the file's cross-reference and object streams as objects: the first names the
      // encryption again (a reader would take the file as still encrypted; decrypted by the library, which
      // it should not be, it is kept as an invalid object), the second is already unpacked.
      for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
        const type = object instanceof PDFRawStream ? object.dict.lookup(PDFName.of('Type')) : undefined;
        if (type === PDFName.of('XRef') || type === PDFName.of('ObjStm') || object instanceof PDFInvalidObject) doc.context.delete(ref);
      }
      // The trailer's /Size is one more than the largest object number left.
      doc.context.largestObjectNumber = doc.context.enumerateIndirectObjects().reduce((largest, [ref]) => Math.max(largest, ref.objectNumber), 0);
      finished = await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity });
    }
  } catch (error) {
    throw new InputPdfError('Is not a readable PDF', { cause: error });
  }
  return {
    bytes: finished,
    facts: () => pdfFacts(doc, bytes.subarray(0, 1024), read.encryption),
    pdfaProblems: (level) => pdfaProblems(doc, level),
  };
}
