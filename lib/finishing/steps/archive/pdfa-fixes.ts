/**
 * What a Chromium (Skia) PDF lacks to be PDF/A-2 or PDF/A-3, put right:
 * the 1.7 header, a file identifier, the sRGB output intent, and the content
 * rules (annotations printable, no actions PDF/A forbids, no image
 * interpolation). The rules are veraPDF's: each fix names the clause it answers.
 */
import {
  getDefaultSRGBProfile,
  PDFArray,
  PDFDict,
  PDFHeader,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFString,
  type PDFDocument,
} from '@cantoo/pdf-lib';
import { randomBytes } from 'node:crypto';
import type { DocumentBudget } from '../../../budget/document-budget.js';

/** Annotation flags (PDF 32000-1 12.5.3). */
const FLAG_INVISIBLE = 1;
const FLAG_HIDDEN = 2;
const FLAG_PRINT = 4;
const FLAG_NO_VIEW = 32;
const FLAG_TOGGLE_NO_VIEW = 256;

/** Action types PDF/A forbids (6.6.1). */
const FORBIDDEN_ACTIONS = new Set(['Launch', 'Sound', 'Movie', 'ResetForm', 'ImportData', 'Hide', 'SetOCGState', 'Rendition', 'Trans', 'GoTo3DView', 'JavaScript']);

/** 6.1.3: a file identifier in the trailer. */
function ensureFileId(doc: PDFDocument): void {
  if (doc.context.lookup(doc.context.trailerInfo.ID)) return;
  const id = PDFHexString.of(randomBytes(16).toString('hex'));
  doc.context.trailerInfo.ID = doc.context.obj([id, id]);
}

/** 6.2.3: one PDF/A output intent whose profile makes Chromium's DeviceRGB/DeviceGray colours defined. */
function addOutputIntent(doc: PDFDocument): void {
  const profile = doc.context.flateStream(getDefaultSRGBProfile(), { N: 3 });
  const intent = doc.context.obj({
    Type: 'OutputIntent',
    S: 'GTS_PDFA1',
    OutputConditionIdentifier: PDFString.of('sRGB IEC61966-2.1'),
    Info: PDFString.of('sRGB IEC61966-2.1'),
    DestOutputProfile: doc.context.register(profile),
  });
  doc.catalog.set(PDFName.of('OutputIntents'), doc.context.obj([doc.context.register(intent)]));
}

/**
 * True for an action PDF/A forbids, or one that chains to one through /Next
 * (one action or an array of them). Followed iteratively, each action once:
 * a caller's chain may loop, which recursion followed until the stack ran out.
 */
function isForbiddenAction(action: unknown, doc: PDFDocument, budget: DocumentBudget): boolean {
  const pending: unknown[] = [action];
  const seen = new Set<PDFDict>();
  while (pending.length > 0) {
    budget.check();
    const dict = doc.context.lookup(pending.pop() as never);
    if (!(dict instanceof PDFDict) || seen.has(dict)) continue;
    seen.add(dict);
    const type = dict.lookup(PDFName.of('S'));
    if (type instanceof PDFName && FORBIDDEN_ACTIONS.has(type.decodeText())) return true;
    const next = dict.lookup(PDFName.of('Next'));
    if (next instanceof PDFArray) for (const entry of next.asArray()) pending.push(entry);
    else if (next !== undefined) pending.push(next);
  }
  return false;
}

/** 6.3.2 / 6.6.1 / 6.6.2: every annotation printable and visible, no forbidden actions, no additional actions. */
function fixAnnotations(doc: PDFDocument, budget: DocumentBudget): void {
  for (const page of doc.getPages()) {
    budget.check();
    page.node.delete(PDFName.of('AA'));
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    for (let i = 0; i < annots.size(); i++) {
      budget.check();
      const annot = annots.lookup(i);
      if (!(annot instanceof PDFDict)) continue;
      const flags = annot.lookup(PDFName.of('F'));
      const value = flags instanceof PDFNumber ? flags.asNumber() : 0;
      const fixed = (value | FLAG_PRINT) & ~(FLAG_INVISIBLE | FLAG_HIDDEN | FLAG_NO_VIEW | FLAG_TOGGLE_NO_VIEW);
      annot.set(PDFName.of('F'), PDFNumber.of(fixed));
      annot.delete(PDFName.of('AA'));
      const action = annot.get(PDFName.of('A'));
      if (action !== undefined && isForbiddenAction(action, doc, budget)) annot.delete(PDFName.of('A'));
    }
  }
}

/** 6.6.1 / 6.6.2: no document JavaScript, no opening action that runs something forbidden, no additional actions. */
function removeForbiddenActions(doc: PDFDocument, budget: DocumentBudget): void {
  doc.catalog.delete(PDFName.of('AA'));
  const open = doc.catalog.get(PDFName.of('OpenAction'));
  if (open !== undefined && isForbiddenAction(open, doc, budget)) doc.catalog.delete(PDFName.of('OpenAction'));
  const names = doc.catalog.lookup(PDFName.of('Names'));
  if (names instanceof PDFDict) names.delete(PDFName.of('JavaScript'));
}

/** 6.2.8: `Interpolate` shall be false on every image (Skia sets it on scaled images). */
function clearInterpolation(doc: PDFDocument, budget: DocumentBudget): void {
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    const dict = object instanceof PDFRawStream ? object.dict : object instanceof PDFDict ? object : undefined;
    if (dict?.has(PDFName.of('Interpolate'))) dict.delete(PDFName.of('Interpolate'));
  }
}

/** Turns the loaded Chromium PDF into one that conforms to PDF/A part `id.part`; its loops stop at `budget`'s deadline. */
export function makeArchival(doc: PDFDocument, id: { part: 2 | 3; conformance: 'B' | 'U' }, budget: DocumentBudget): void {
  void id;
  doc.context.header = PDFHeader.forVersion(1, 7);
  ensureFileId(doc);
  addOutputIntent(doc);
  removeForbiddenActions(doc, budget);
  fixAnnotations(doc, budget);
  clearInterpolation(doc, budget);
}
