/**
 * PDF/UA-1's document-level requirements that the service, not the page's
 * author, controls: the title shown instead of the file name, the document
 * marked as tagged, and annotations visited in structure order. Chromium's
 * tagged output brings the structure tree; the title and language are
 * written by the archive step's metadata.
 */
import { PDFArray, PDFBool, PDFDict, PDFName, type PDFDocument } from '@cantoo/pdf-lib';

/** Applies PDF/UA-1's document-level rules to a tagged Chromium PDF. */
export function makeAccessible(doc: PDFDocument): void {
  // 7.1-10: the viewer shows dc:title, not the file name.
  const prefs = doc.catalog.lookup(PDFName.of('ViewerPreferences'));
  const viewer = prefs instanceof PDFDict ? prefs : doc.context.obj({});
  viewer.set(PDFName.of('DisplayDocTitle'), PDFBool.True);
  doc.catalog.set(PDFName.of('ViewerPreferences'), viewer);
  // 7.1-11: the file says it is tagged.
  const mark = doc.catalog.lookup(PDFName.of('MarkInfo'));
  const markInfo = mark instanceof PDFDict ? mark : doc.context.obj({});
  markInfo.set(PDFName.of('Marked'), PDFBool.True);
  markInfo.delete(PDFName.of('Suspects'));
  doc.catalog.set(PDFName.of('MarkInfo'), markInfo);
  // 7.18.3: a page with annotations orders them by structure.
  for (const page of doc.getPages()) {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (annots instanceof PDFArray && annots.size() > 0) page.node.set(PDFName.of('Tabs'), PDFName.of('S'));
  }
}
