/**
 * An existing PDF opened for /v1/pdf/process: read within the input bounds
 * (pdf-input-bounds.ts, as a merge part is, and decrypted there with the
 * caller's password), then loaded for its facts or its finishing.
 */
import { ParseSpeeds, PDFArray, PDFDict, PDFDocument, PDFInvalidObject, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import type { PdfaLevel } from '../pipeline/finishing-plan.js';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { InputPdfError } from '../../pdf/errors.js';
import { passwordForRevision } from '../../pdf/encryption-password.js';
import { usableResources } from '../../pdf/page-resources.js';
import { malformedInput } from '../pipeline/malformed-input.js';
import { pdfFacts, type PdfFacts } from './pdf-facts.js';
import { readPdfInput } from './pdf-input-bounds.js';
import { pdfaProblems } from './pdfa-preflight.js';

/** An existing PDF, bounded and decrypted: its bytes to finish, its facts, and what keeps it from PDF/A. */
export type ExistingPdf = {
  /** The file as given, or decrypted when it was encrypted (`pdf.protection` encrypts it again). */
  bytes: Uint8Array;
  /** Its facts (`output: "JSON"`), read within `budget`; a structure pdf-lib cannot read is an InputPdfError. */
  facts: (budget: DocumentBudget) => PdfFacts;
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
    doc = await PDFDocument.load(bytes, { password: read.encryption ? passwordForRevision(password ?? '', read.encryption.revision) : undefined, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
    usableResources(doc);
    if (read.encryption) {
      // Decrypted as read: the file written must not name the encryption it no longer has.
      if (!read.encryption.metadataEncrypted) await restoreClearMetadata(doc, bytes);
      doc.context.trailerInfo.Encrypt = undefined;
      // The library keeps the encryption dictionary (its strings, which are never encrypted, decrypted into
      // garbage) and the file's cross-reference and object streams as objects: the second names the
      // encryption again (a reader would take the file as still encrypted; decrypted by the library, which
      // it should not be, it is kept as an invalid object), the third is already unpacked.
      for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
        const type = object instanceof PDFRawStream ? object.dict.lookup(PDFName.of('Type')) : undefined;
        const encryption = object instanceof PDFDict && object.has(PDFName.of('Filter')) && object.has(PDFName.of('O')) && object.has(PDFName.of('U'));
        if (encryption || type === PDFName.of('XRef') || type === PDFName.of('ObjStm') || object instanceof PDFInvalidObject) doc.context.delete(ref);
        else if (object instanceof PDFRawStream) dropCryptFilter(object.dict);
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
    facts: (budget) => {
      try {
        return pdfFacts(doc, bytes.subarray(0, 1024), read.encryption, budget);
      } catch (error) {
        throw malformedInput(error, 'Its facts could not be read');
      }
    },
    pdfaProblems: (level) => pdfaProblems(doc, level),
  };
}

/**
 * A file that leaves its XMP packets in clear (`/EncryptMetadata false`):
 * the library decrypts every stream, those too, into garbage. Each metadata
 * stream gets back its bytes as the file holds them (read without
 * decryption, within the bounds already checked: streams are never inside
 * object streams, so the plain parse reads them as they are).
 */
async function restoreClearMetadata(doc: PDFDocument, bytes: Uint8Array): Promise<void> {
  const plain = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.lookup(PDFName.of('Type')) !== PDFName.of('Metadata')) continue;
    const clear = plain.context.lookup(ref);
    if (clear instanceof PDFRawStream) doc.context.assign(ref, PDFRawStream.of(object.dict, clear.contents));
  }
}

/**
 * A stream's `/Crypt` filter (ISO 32000-1 7.4.10) names a crypt filter of the
 * encryption, which a decrypted file no longer has: removed with its
 * parameters (the stream's bytes are already as that filter left them).
 */
function dropCryptFilter(dict: PDFDict): void {
  const crypt = PDFName.of('Crypt');
  const filter = dict.lookup(PDFName.of('Filter'));
  if (filter === crypt) {
    dict.delete(PDFName.of('Filter'));
    dict.delete(PDFName.of('DecodeParms'));
    return;
  }
  if (!(filter instanceof PDFArray)) return;
  const at = filter.asArray().findIndex((entry) => dict.context.lookup(entry) === crypt);
  if (at < 0) return;
  filter.remove(at);
  const params = dict.lookup(PDFName.of('DecodeParms'));
  if (params instanceof PDFArray && at < params.size()) params.remove(at);
  if (filter.size() === 0) {
    dict.delete(PDFName.of('Filter'));
    dict.delete(PDFName.of('DecodeParms'));
  }
}
