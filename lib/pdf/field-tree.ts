/**
 * A document's form field tree, read safely: iteratively, each node once,
 * with a depth and a node cap, counted against the document's budget. Every
 * walk of a caller's fields (the form, pages and sign steps, the document's
 * facts, the signing library) reads it here or checks it here before
 * pdf-lib's own walk meets it.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRef, PDFString, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../budget/document-budget.js';

/** Most fields and widgets a form may hold, and how deep its field tree may nest: pdf-lib walks it recursively. */
const MAX_FORM_NODES = 20_000;
const MAX_FORM_DEPTH = 32;

/** A node of the form's field tree (a field, or a widget of one), as the walk read it. */
export type FieldNode = {
  dict: PDFDict;
  /** Its reference; undefined for a node written inline in its parent's /Kids. */
  ref: PDFRef | undefined;
  /** 1 for the AcroForm's /Fields. */
  depth: number;
  /** Its fully qualified name (ISO 32000-1 12.7.3.2): the partial names (/T) of it and its ancestors, joined by periods. */
  name: string;
  /** Its field type (/FT), inherited from its ancestors when it has none. */
  type: string | undefined;
};

/**
 * The form's field tree, every node once, parents before their kids, or why
 * the tree is not one: Kids that loop, a node listed under two parents, too
 * deep, too many nodes. Each node counts against the budget's `fields`.
 *
 * A node reached twice is refused rather than read once: pdf-lib's walk,
 * which the form, pages and sign steps go on to use, would visit it once per
 * path (a chain of 22 nodes each listing the next one twice is 4 million
 * paths, 1.8 GB), and ISO 32000-1 gives a field one /Parent, so a shared
 * node has no full name readers agree on. The steps and the document's facts
 * apply the same rule, so a document is refused the same way whatever is
 * asked of it.
 */
export function readFieldTree(document: PDFDocument, budget: DocumentBudget): { nodes: FieldNode[] } | { problem: string } {
  const acroForm = document.catalog.lookup(PDFName.of('AcroForm'));
  const fields = acroForm instanceof PDFDict ? acroForm.lookup(PDFName.of('Fields')) : undefined;
  const nodes: FieldNode[] = [];
  if (!(fields instanceof PDFArray)) return { nodes };
  type Pending = { node: PDFObject | undefined; depth: number; path: ReadonlySet<PDFDict>; parent: string; type: string | undefined };
  const pending: Pending[] = [];
  const push = (list: PDFObject[], from: Omit<Pending, 'node'>) => {
    // Reversed onto the stack, so that nodes come out in the document's order.
    for (let i = list.length - 1; i >= 0; i -= 1) pending.push({ node: list[i], ...from });
  };
  push(fields.asArray(), { depth: 1, path: new Set(), parent: '', type: undefined });
  const seen = new Set<PDFDict>();
  let visited = 0;
  while (pending.length > 0) {
    const { node, depth, path, parent, type } = pending.pop() as Pending;
    budget.spend('fields', 1);
    visited += 1;
    if (visited > MAX_FORM_NODES) return { problem: `The document's form has more than ${MAX_FORM_NODES} fields and widgets` };
    if (depth > MAX_FORM_DEPTH) return { problem: `The document's form fields nest more than ${MAX_FORM_DEPTH} deep` };
    const dict = node instanceof PDFRef ? document.context.lookup(node) : node;
    if (!(dict instanceof PDFDict)) continue;
    if (path.has(dict)) return { problem: "The document's form fields loop: a field lists one of its ancestors" };
    if (seen.has(dict)) return { problem: "The document's form lists a field or widget under two parents" };
    seen.add(dict);
    const partial = textOf(dict.lookup(PDFName.of('T')));
    const name = partial === undefined ? parent : parent ? `${parent}.${partial}` : partial;
    const ownType = dict.lookup(PDFName.of('FT'));
    const fieldType = ownType instanceof PDFName ? ownType.decodeText() : type;
    nodes.push({ dict, ref: node instanceof PDFRef ? node : undefined, depth, name, type: fieldType });
    const kids = dict.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) push(kids.asArray(), { depth: depth + 1, path: new Set(path).add(dict), parent: name, type: fieldType });
  }
  return { nodes };
}

/** Why the form's field tree cannot be walked safely (readFieldTree's problem), checked before pdf-lib's recursive walk meets it. */
export function fieldTreeProblem(document: PDFDocument, budget: DocumentBudget): string | undefined {
  const read = readFieldTree(document, budget);
  return 'problem' in read ? read.problem : undefined;
}

const textOf = (value: PDFObject | undefined): string | undefined =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
