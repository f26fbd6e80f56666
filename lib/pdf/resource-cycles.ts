/**
 * Loops in what a page draws: a form XObject or a tiling pattern whose
 * resources lead back to itself (form → form → pattern → first form, as
 * PDF.js's operator_list_cycle.pdf has it). The spec forbids them; readers
 * skip the draw that closes the loop. PDF.js, which draws page images in
 * the service's Chromium, followed one such 1 KB file for the whole budget
 * and grew the renderer past 3 GB. So before a page is drawn, every edge
 * that closes a loop is taken out of a copy of the document, which then
 * draws what a reader shows.
 */
import { PDFDict, type PDFDocument, PDFName, type PDFObject, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../budget/document-budget.js';

/** Most form and pattern levels followed: deeper nesting is drawn by no reader either. */
const MAX_DEPTH = 64;

const RESOURCE_KINDS = [PDFName.of('XObject'), PDFName.of('Pattern')];

/** The dictionary of resources a drawable object carries (a stream's, or a page's). */
function resourcesOf(doc: PDFDocument, object: PDFObject | undefined): PDFDict | undefined {
  const dict = object instanceof PDFStream ? object.dict : object instanceof PDFDict ? object : undefined;
  const resources = dict ? doc.context.lookup(dict.get(PDFName.of('Resources'))) : undefined;
  return resources instanceof PDFDict ? resources : undefined;
}

/**
 * Takes out of `doc` every XObject and Pattern entry that leads back to a
 * form or pattern being drawn (depth-first from each page, every object
 * judged once, each edge counted against the budget's objects), and entries
 * nested past MAX_DEPTH. Answers how many entries it took out: none for a
 * document without loops, which is left as it was.
 */
export function breakResourceCycles(doc: PDFDocument, budget: DocumentBudget): number {
  const done = new Set<PDFRef>();
  const onPath = new Set<PDFRef>();
  let removed = 0;
  type Frame = { ref: PDFRef | undefined; entries: Array<[PDFDict, PDFName, PDFRef]>; next: number };
  const framesOf = (owner: PDFObject | undefined, ref: PDFRef | undefined): Frame => {
    const entries: Array<[PDFDict, PDFName, PDFRef]> = [];
    const resources = resourcesOf(doc, owner);
    for (const kind of RESOURCE_KINDS) {
      const named = resources ? doc.context.lookup(resources.get(kind)) : undefined;
      if (!(named instanceof PDFDict)) continue;
      for (const [name, value] of named.entries()) if (value instanceof PDFRef) entries.push([named, name, value]);
    }
    return { ref, entries, next: 0 };
  };
  for (const page of doc.getPages()) {
    const stack: Frame[] = [framesOf(page.node, undefined)];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const entry = frame.entries[frame.next];
      if (!entry) {
        stack.pop();
        if (frame.ref) {
          onPath.delete(frame.ref);
          done.add(frame.ref);
        }
        continue;
      }
      frame.next += 1;
      budget.spend('objects', 1);
      const [holder, name, target] = entry;
      if (onPath.has(target) || stack.length > MAX_DEPTH) {
        holder.delete(name);
        removed += 1;
        continue;
      }
      if (done.has(target)) continue;
      const object = doc.context.lookup(target);
      if (!(object instanceof PDFRawStream) && !(object instanceof PDFStream)) {
        done.add(target);
        continue;
      }
      onPath.add(target);
      stack.push(framesOf(object, target));
    }
  }
  return removed;
}
