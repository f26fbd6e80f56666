/**
 * PDF/UA-1's document-level requirements that the service, not the page's
 * author, controls: the title shown instead of the file name, the document
 * marked as tagged, and annotations visited in structure order. Chromium's
 * tagged output brings the structure tree; the title and language are
 * written by the archive step's metadata.
 */
import { PDFArray, PDFBool, PDFDict, PDFHexString, PDFName, PDFString, type PDFDocument } from '@cantoo/pdf-lib';
import { markUntaggedContentAsArtifacts } from './artifact-marking.js';
import type { DocumentBudget } from '../../../budget/document-budget.js';

/** Applies PDF/UA-1's document-level rules to a tagged Chromium PDF; the content walk spends from `budget`. */
export function makeAccessible(doc: PDFDocument, budget: DocumentBudget): void {
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
  for (const page of doc.getPages()) {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray) || annots.size() === 0) continue;
    // 7.18.3: a page with annotations orders them by structure.
    page.node.set(PDFName.of('Tabs'), PDFName.of('S'));
    for (let i = 0; i < annots.size(); i++) {
      const annot = annots.lookup(i);
      if (annot instanceof PDFDict) describeLink(annot);
    }
  }
  // 7.1-3: what Chromium did not tag is decoration.
  markUntaggedContentAsArtifacts(doc, budget);
}

/** 7.18.5 / 7.18.1: a link says where it goes (Chromium writes no Contents). */
function describeLink(annot: PDFDict): void {
  if (annot.lookup(PDFName.of('Subtype')) !== PDFName.of('Link') || annot.has(PDFName.of('Contents'))) return;
  const action = annot.lookup(PDFName.of('A'));
  const uri = action instanceof PDFDict ? action.lookup(PDFName.of('URI')) : undefined;
  const target = uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : undefined;
  annot.set(PDFName.of('Contents'), PDFHexString.fromText(target ? `Link to ${target}` : 'Link to a place in this document'));
}
