import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, type PDFDocument, type PDFObject, type PDFPage } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';

const K = PDFName.of('K');
const PG = PDFName.of('Pg');
const OBJ = PDFName.of('Obj');
const TYPE = PDFName.of('Type');
const NUMS = PDFName.of('Nums');
const KIDS = PDFName.of('Kids');
const LIMITS = PDFName.of('Limits');
const NAMES = PDFName.of('Names');
/** How deep the structure tree is followed (real documents nest a few dozen levels). */
const MAX_DEPTH = 256;
/** Heading types (ISO 32000-1, table 334). */
const HEADINGS = new Set(['/H', '/H1', '/H2', '/H3', '/H4', '/H5', '/H6']);
/** An element's own texts (alternative, replacement, expansion, title). */
const TEXTS = ['Alt', 'ActualText', 'E', 'T'].map((name) => PDFName.of(name));

/**
 * Takes the pages `dropped` out of a tagged PDF's structure tree (ISO
 * 32000-1, 14.7): the marked content and annotation references on them, the
 * structure elements left with nothing (an image's alternative text, a
 * link's element, which would keep the page's annotation and its URI
 * reachable), and their entries in the parent tree and the ID tree. A
 * heading left with nothing stays as an empty element, without its texts.
 * What is left describes the kept pages only; `dropUnreachable` then
 * deletes the objects nothing reaches any more. A PDF without a structure
 * tree is left as it is. Every element and tree node read checks `budget`.
 */
export function dropPagesFromStructure(document: PDFDocument, dropped: PDFPage[], budget: DocumentBudget): void {
  const root = document.catalog.lookupMaybe(PDFName.of('StructTreeRoot'), PDFDict);
  if (!root || dropped.length === 0) return;
  const { context } = document;
  const droppedPages = new Set(dropped.map((page) => page.ref.toString()));
  // Annotations of the dropped pages: an element's OBJR may point at one without naming its page.
  const droppedAnnots = new Set<string>();
  // The parent tree's keys of the dropped pages (their marked content) and of their annotations.
  const droppedKeys = new Set<number>();
  for (const page of dropped) {
    budget.check();
    const key = page.node.lookupMaybe(PDFName.of('StructParents'), PDFNumber);
    if (key) droppedKeys.add(key.asNumber());
    const annots = page.node.Annots();
    for (let i = 0; i < (annots?.size() ?? 0); i += 1) {
      const ref = annots?.get(i);
      if (!(ref instanceof PDFRef)) continue;
      droppedAnnots.add(ref.toString());
      const annotKey = context.lookupMaybe(ref, PDFDict)?.lookupMaybe(PDFName.of('StructParent'), PDFNumber);
      if (annotKey) droppedKeys.add(annotKey.asNumber());
    }
  }
  const removed = new Set<string>();
  // Each element is judged once, however often it is listed: a hostile tree may loop or share its elements.
  const judged = new Map<PDFDict, boolean>();
  const onDropped = (item: PDFDict, inherited: string | undefined): boolean => {
    const page = item.get(PG);
    const pageKey = page instanceof PDFRef ? page.toString() : inherited;
    if (pageKey !== undefined && droppedPages.has(pageKey)) return true;
    const obj = item.get(OBJ);
    return item.get(TYPE) === PDFName.of('OBJR') && obj instanceof PDFRef && droppedAnnots.has(obj.toString());
  };

  /** Prunes an element's kids; answers whether the element still holds anything. */
  const prune = (element: PDFDict, inheritedPage: string | undefined, depth: number): boolean => {
    const known = judged.get(element);
    if (known !== undefined) return known;
    // Deeper than any real document nests, or met again on its own path: left as it is.
    judged.set(element, true);
    if (depth > MAX_DEPTH) return true;
    const result = pruneKids(element, inheritedPage, depth);
    judged.set(element, result);
    return result;
  };

  const pruneKids = (element: PDFDict, inheritedPage: string | undefined, depth: number): boolean => {
    const ownPage = element.get(PG);
    const page = ownPage instanceof PDFRef ? ownPage.toString() : inheritedPage;
    const kids = element.get(K);
    if (kids === undefined) return true;
    const items = kids instanceof PDFArray ? kids.asArray() : [kids];
    const kept = items.filter((kid) => keepKid(kid, page, depth + 1));
    if (kept.length === 0) return false;
    if (kids instanceof PDFArray) element.set(K, context.obj(kept));
    else if (kept[0] !== kids) element.set(K, kept[0] as PDFObject);
    // Its own page is gone, its content lives elsewhere now: a /Pg must name a page of the document.
    if (ownPage instanceof PDFRef && droppedPages.has(ownPage.toString())) element.delete(PG);
    return true;
  };

  const keepKid = (kid: PDFObject, page: string | undefined, depth: number): boolean => {
    budget.check();
    // A marked-content identifier on the element's page.
    if (kid instanceof PDFNumber) return page === undefined || !droppedPages.has(page);
    const dict = kid instanceof PDFRef ? context.lookupMaybe(kid, PDFDict) : kid instanceof PDFDict ? kid : undefined;
    if (!dict) return true;
    const type = dict.get(TYPE);
    if (type === PDFName.of('MCR') || type === PDFName.of('OBJR')) return !onDropped(dict, page);
    // A structure element.
    if (prune(dict, page, depth)) return true;
    if (HEADINGS.has(dict.get(PDFName.of('S'))?.toString() ?? '')) {
      // A heading stays, empty and without a word of the dropped page, so that the headings of what is kept
      // still begin where the document's did (PDF/UA-1, 7.4.2: the first heading is H1).
      for (const name of [K, PG, ...TEXTS]) dict.delete(name);
      return true;
    }
    if (kid instanceof PDFRef) removed.add(kid.toString());
    return false;
  };

  const top = root.get(K);
  if (top !== undefined) {
    const items = top instanceof PDFArray ? top.asArray() : [top];
    const kept = items.filter((kid) => keepKid(kid, undefined, 0));
    if (kept.length === 0) root.delete(K);
    else if (top instanceof PDFArray) root.set(K, context.obj(kept));
  }
  const parentTree = root.lookupMaybe(PDFName.of('ParentTree'), PDFDict);
  if (parentTree) filterTree(document, budget, parentTree, NUMS, (key, value) => !(key instanceof PDFNumber && droppedKeys.has(key.asNumber())) && !refersTo(value, removed));
  const idTree = root.lookupMaybe(PDFName.of('IDTree'), PDFDict);
  if (idTree) filterTree(document, budget, idTree, NAMES, (_, value) => !refersTo(value, removed));
}

/** Whether `value` is one of `refs`, or an array of nothing else (a parent tree's entry for a page). */
function refersTo(value: PDFObject, refs: Set<string>): boolean {
  if (value instanceof PDFRef) return refs.has(value.toString());
  if (value instanceof PDFArray) {
    const items = value.asArray().filter((item) => item instanceof PDFRef);
    return items.length > 0 && items.every((item) => refs.has(item.toString()));
  }
  return false;
}

/**
 * Keeps the pairs of a number or name tree (`entries`: /Nums or /Names) that
 * `keep` accepts, gathered into the root as one flat list in their order:
 * the intermediate nodes and their limits go.
 */
function filterTree(document: PDFDocument, budget: DocumentBudget, root: PDFDict, entries: PDFName, keep: (key: PDFObject, value: PDFObject) => boolean): void {
  const pairs: PDFObject[] = [];
  const visited = new Set<PDFDict>();
  const visit = (node: PDFDict, depth: number) => {
    // A node listed twice, or a tree that loops back on itself, is read once.
    if (visited.has(node)) return;
    visited.add(node);
    budget.check();
    const list = node.lookupMaybe(entries, PDFArray);
    for (let i = 0; i + 1 < (list?.size() ?? 0); i += 2) {
      const key = list?.get(i) as PDFObject;
      const value = list?.get(i + 1) as PDFObject;
      // A page's entry is often a reference to its array of elements: judged by the array.
      const target = value instanceof PDFRef ? document.context.lookup(value) : value;
      if (keep(key, target instanceof PDFArray ? target : value)) pairs.push(key, value);
    }
    const kids = node.lookupMaybe(KIDS, PDFArray);
    for (let i = 0; depth < 32 && i < (kids?.size() ?? 0); i += 1) {
      const kid = document.context.lookupMaybe(kids?.get(i), PDFDict);
      if (kid) visit(kid, depth + 1);
    }
  };
  visit(root, 0);
  root.delete(KIDS);
  root.delete(LIMITS);
  root.set(entries, document.context.obj(pairs));
}
