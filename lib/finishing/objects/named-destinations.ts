import { PDFArray, PDFDict, PDFName, PDFRef, type PDFDocument } from '@cantoo/pdf-lib';

/** The page index of each named destination Chromium wrote (the catalog's Dests dictionary: one per in-page link target). */
export function destinationPages(document: PDFDocument): Map<string, number> {
  const pageIndex = new Map(document.getPages().map((page, index) => [page.ref.toString(), index]));
  const out = new Map<string, number>();
  const dests = document.catalog.lookup(PDFName.of('Dests'));
  if (!(dests instanceof PDFDict)) return out;
  for (const [name, value] of dests.entries()) {
    const resolved = value instanceof PDFRef ? document.context.lookup(value) : value;
    const array = resolved instanceof PDFDict ? resolved.lookup(PDFName.of('D')) : resolved;
    if (!(array instanceof PDFArray)) continue;
    const target = array.get(0);
    const index = target instanceof PDFRef ? pageIndex.get(target.toString()) : undefined;
    if (index !== undefined) out.set(name.decodeText(), index);
  }
  return out;
}
