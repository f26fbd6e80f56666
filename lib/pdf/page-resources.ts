import { PDFDict, type PDFDocument, PDFName, PDFRawStream } from '@cantoo/pdf-lib';

/**
 * Gives every page and page-tree node whose /Resources is a stream the
 * stream's dictionary instead (public corpora have such files: PDF.js reads
 * the dictionary, pdf-lib throws on it in every step that reads a page's
 * resources). Anything else that is no dictionary is dropped, as readers
 * ignore it. Our own prints are never touched.
 */
export function usableResources(doc: PDFDocument): void {
  const key = PDFName.of('Resources');
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    const type = object.lookup(PDFName.of('Type'));
    if (type !== PDFName.of('Page') && type !== PDFName.of('Pages')) continue;
    const resources = object.lookup(key);
    if (resources === undefined || resources instanceof PDFDict) continue;
    if (resources instanceof PDFRawStream) object.set(key, resources.dict.clone(doc.context));
    else object.delete(key);
  }
}
