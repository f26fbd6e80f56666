/**
 * What the page and form steps need of a document's object graph beyond
 * pdf-lib's API: whether its field tree is safe to walk, and deleting what
 * an edit left unreachable.
 */
import { PDFArray, PDFDict, PDFName, PDFNull, PDFRef, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import type { DocumentBudget } from './budget.js';
import { visitCounter } from './visit-counter.js';

/** Most fields and widgets a form may hold, and how deep its field tree may nest: pdf-lib walks it recursively. */
const MAX_FORM_NODES = 20_000;
const MAX_FORM_DEPTH = 32;

/**
 * Why the form's field tree cannot be walked safely (a hostile file: Kids
 * that loop, nest too deep or list too many nodes), read iteratively before
 * pdf-lib's recursive walk meets it.
 */
export function fieldTreeProblem(document: PDFDocument): string | undefined {
  const acroForm = document.catalog.lookup(PDFName.of('AcroForm'));
  const fields = acroForm instanceof PDFDict ? acroForm.lookup(PDFName.of('Fields')) : undefined;
  if (!(fields instanceof PDFArray)) return undefined;
  const pending: Array<{ node: PDFObject | undefined; depth: number; path: Set<string> }> = [];
  for (const node of fields.asArray()) pending.push({ node, depth: 1, path: new Set() });
  let nodes = 0;
  while (pending.length > 0) {
    const { node, depth, path } = pending.pop() as (typeof pending)[number];
    nodes += 1;
    if (nodes > MAX_FORM_NODES) return `The document's form has more than ${MAX_FORM_NODES} fields and widgets`;
    if (depth > MAX_FORM_DEPTH) return `The document's form fields nest more than ${MAX_FORM_DEPTH} deep`;
    const key = node instanceof PDFRef ? node.toString() : undefined;
    if (key && path.has(key)) return "The document's form fields loop: a field lists one of its ancestors";
    const dict = node instanceof PDFRef ? document.context.lookup(node) : node;
    const kids = dict instanceof PDFDict ? dict.lookup(PDFName.of('Kids')) : undefined;
    if (!(kids instanceof PDFArray)) continue;
    const below = new Set(path);
    if (key) below.add(key);
    for (const kid of kids.asArray()) pending.push({ node: kid, depth: depth + 1, path: below });
  }
  return undefined;
}

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
export function dropUnreachable(document: PDFDocument, options: { removed?: PDFRef[]; renumber?: boolean; budget?: DocumentBudget } = {}): void {
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
    options.budget?.check();
    if (reached.has(ref.toString())) largest = Math.max(largest, ref.objectNumber);
    else {
      deleted.add(ref.toString());
      context.delete(ref);
    }
  }
  const gone = (value: PDFObject) => value instanceof PDFRef && deleted.has(value.toString());
  for (const container of containers) {
    options.budget?.check();
    if (container instanceof PDFDict) {
      for (const [key, value] of container.entries()) if (gone(value)) container.set(key, PDFNull);
    } else {
      for (let i = 0; i < container.size(); i += 1) if (gone(container.get(i))) container.set(i, PDFNull);
    }
  }
  if (options.renumber) context.largestObjectNumber = largest;
}
