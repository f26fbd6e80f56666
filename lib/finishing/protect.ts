import { PDFArray, PDFDict, PDFHexString, type PDFDocument, type PDFObject, PDFStream, PDFString } from '@cantoo/pdf-lib';
import type { PdfStep } from './finish-pdf.js';
import type { ProtectPlan } from './finishing-plan.js';
import { loadPdf } from './load-pdf.js';

/**
 * The `protect` step: encrypts the document with AES-256 (V 5, R 6, the only
 * handler ISO 32000-2 keeps) under the given passwords, with the plan's
 * permissions (decided in full where the plan is built). The
 * passwords live only in this closure: no log line, error or metric sees them.
 */
export function protectStep(protection: ProtectPlan): PdfStep {
  return async (pdf) => {
    const document = await loadPdf(pdf, 'protect');
    const { permissions } = protection;
    document.encrypt({
      algorithm: 'AES-256',
      ...(protection.userPassword != null ? { userPassword: protection.userPassword } : {}),
      ...(protection.ownerPassword != null ? { ownerPassword: protection.ownerPassword } : {}),
      permissions: {
        printing: permissions.print === 'none' ? false : permissions.print,
        modifying: permissions.modify,
        copying: permissions.copy,
        annotating: permissions.annotate,
        fillingForms: permissions.fillForms,
        contentAccessibility: permissions.accessibility,
        documentAssembly: permissions.assemble,
      },
    });
    encryptStrings(document);
    return document.save({ useObjectStreams: false });
  };
}

/**
 * Encrypts every string of the document, as ISO 32000-2 §7.6.2 asks. pdf-lib
 * encrypts streams only, so readers would decrypt plain strings into noise:
 * the title and producer, outline titles, link targets would come out empty or
 * garbled, and would sit in the file unencrypted. The encryption dictionary's
 * own strings (its keys) stay as they are. Runs before `save`, which encrypts
 * the streams.
 */
function encryptStrings(document: PDFDocument): void {
  const { context } = document;
  const security = context.security;
  if (!security) return;
  const encryptRef = context.trailerInfo.Encrypt;
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (ref === encryptRef) continue;
    const encrypt = security.getEncryptFn(ref.objectNumber, ref.generationNumber);
    const visit = (value: PDFObject): PDFObject => {
      if (value instanceof PDFString || value instanceof PDFHexString) {
        return PDFHexString.of(Buffer.from(encrypt(value.asBytes())).toString('hex'));
      }
      if (value instanceof PDFDict) {
        for (const [key, entry] of value.entries()) value.set(key, visit(entry));
      } else if (value instanceof PDFArray) {
        for (let i = 0; i < value.size(); i += 1) value.set(i, visit(value.get(i)));
      } else if (value instanceof PDFStream) {
        visit(value.dict);
      }
      return value;
    };
    visit(object);
  }
}
