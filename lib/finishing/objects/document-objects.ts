/**
 * What the page and form steps need of a document's object graph beyond
 * pdf-lib's API: deleting what an edit left unreachable (whether its field
 * tree is safe to walk: field-tree.ts).
 */
import { PDFArray, PDFDict, PDFName, PDFNull, PDFRef, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { visitCounter } from './visit-counter.js';

/**
 * Deletes every object the trailer no longer reaches (the dropped pages'
 * content and resources, a flattened form's fields). A reference left to a
 * deleted object, or to one of `removed` (an outline entry or a named
 * destination of a dropped page), becomes null. With `renumber`, the trailer
 * counts objects from the largest number left (qpdf warns otherwise); only
 * safe before anything is embedded, whose numbers are taken but not yet used.
 * With `budget`, every dictionary, array and stream visited counts against
 * its `objects` total (and its deadline is checked as the walk goes).
 */
export function dropUnreachable(document: PDFDocument, options: { removed?: PDFRef[]; renumber?: boolean; budget: DocumentBudget }): void {
  const { context } = document;
  const visits = options.budget ? visitCounter(options.budget) : undefined;
  const reached = new Set<string>();
  const containers: Array<PDFDict | PDFArray> = [];
  const pending: PDFObject[] = [];
  const info = context.trailerInfo;
  for (const root of [info.Root, info.Info, info.Encrypt]) if (root) pending.push(root);
  while (pending.length > 0) {
    const object = pending.pop() as PDFObject;
    if (object instanceof PDFRef) {
      const key = object.toString();
      const target = reached.has(key) ? undefined : context.lookup(object);
      if (!target) continue;
      reached.add(key);
      pending.push(target);
    } else if (object instanceof PDFDict) {
      visits?.visit();
      containers.push(object);
      // One by one, never spread as arguments: a very large array would throw RangeError.
      for (const [, value] of object.entries()) pending.push(value);
    } else if (object instanceof PDFArray) {
      visits?.visit();
      containers.push(object);
      for (let i = 0; i < object.size(); i += 1) pending.push(object.get(i));
    } else if (object instanceof PDFStream) {
      visits?.visit();
      pending.push(object.dict);
    }
  }
  visits?.done();
  const deleted = new Set((options.removed ?? []).map((ref) => ref.toString()));
  let largest = 0;
  for (const [ref] of context.enumerateIndirectObjects()) {
    options.budget.check();
    if (reached.has(ref.toString())) largest = Math.max(largest, ref.objectNumber);
    else {
      deleted.add(ref.toString());
      context.delete(ref);
    }
  }
  const gone = (value: PDFObject) => value instanceof PDFRef && deleted.has(value.toString());
  for (const container of containers) {
    options.budget.check();
    if (container instanceof PDFDict) {
      for (const [key, value] of container.entries()) if (gone(value)) container.set(key, PDFNull);
    } else {
      for (let i = 0; i < container.size(); i += 1) if (gone(container.get(i))) container.set(i, PDFNull);
    }
  }
  if (options.renumber) context.largestObjectNumber = largest;
}
