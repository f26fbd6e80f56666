import { OptionError } from '../../../pdf/errors.js';
import { degrees, PDFArray, PDFDict, PDFName, PDFRef, type PDFDocument, type PDFPage } from '@cantoo/pdf-lib';
import { orderPages, selectPages } from '../../../validation/page-ranges.js';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { dropUnreachable } from '../../objects/document-objects.js';
import { fieldTreeProblem } from '../../../pdf/field-tree.js';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import { malformedInput } from '../../pipeline/malformed-input.js';
import { pageRotation } from '../../../pdf/page-box.js';
import { dropPagesFromStructure } from './structure-tree.js';
import type { PagesPlan } from '../../pipeline/finishing-plan.js';

/** What a page may inherit from the page tree's nodes (ISO 32000-1, table 30): kept on the page itself once the tree is flat. */
const INHERITABLE = ['Resources', 'MediaBox', 'CropBox', 'Rotate'].map((name) => PDFName.of(name));

/**
 * The `pages` step: keeps the pages `pdf.pages` names, in its order, then
 * turns the pages `pdf.rotate` names (counted in the new order). A page past
 * the end of the document is a 400 naming the field, known only now that the
 * document is printed (or merged).
 */
export function pagesStep(plan: PagesPlan): DocumentEdit {
  return {
    edit: (document, budget) => {
      try {
        arrangePages(document, plan, budget);
      } catch (error) {
        // What pdf-lib throws on a caller's malformed page tree is the document's problem, not the service's.
        throw malformedInput(error, 'The pages could not be arranged');
      }
    },
  };
}

function arrangePages(document: PDFDocument, plan: PagesPlan, budget: DocumentBudget): void {
  if (plan.order !== undefined) {
    const count = document.getPageCount();
    const { pages, beyond } = orderPages(plan.order, count);
    if (beyond) throw new OptionError({ pages: `The document has fewer pages than pdf.pages names (${count})` });
    keepPages(document, pages, budget);
  }
  if (plan.rotate) {
    const { pages, beyond } = selectPages(plan.rotate.pages, document.getPageCount());
    if (beyond) throw new OptionError({ 'rotate.pages': `The document has fewer pages than the range asks for (${document.getPageCount()})` });
    for (const index of pages) {
      budget.check();
      turn(document.getPage(index), plan.rotate.angle);
    }
  }
}

/** Adds `angle` to the page's own rotation (clockwise, as /Rotate counts). */
function turn(page: PDFPage, angle: number): void {
  // Read as readers read it (page-box.ts): pdf-lib's getRotation throws on a /Rotate that is not a number.
  page.setRotation(degrees((pageRotation(page) + angle) % 360));
}

/**
 * Rebuilds the page tree as one flat list of the kept pages, in `order`
 * (0-based indexes of the current pages), each page holding what it
 * inherited. A page left out is gone from the file, with whatever only it
 * used (its content, images, annotations, the form fields whose every
 * widget was on it, and its part of the structure tree): a page dropped for
 * being confidential must not stay readable in the bytes.
 */
function keepPages(document: PDFDocument, order: number[], budget: DocumentBudget): void {
  const pages = document.getPages();
  if (order.length === pages.length && order.every((page, index) => page === index)) return;
  const kept = new Set(order);
  const dropped = pages.filter((_, index) => !kept.has(index));
  removeFieldsOf(document, dropped, budget);
  // A tagged PDF's structure tree would keep a dropped page's alternative texts and, through its link
  // elements, its annotations and their URIs.
  dropPagesFromStructure(document, dropped, budget);
  for (const page of pages) {
    budget.check();
    for (const name of INHERITABLE) {
      const value = page.node.getInheritableAttribute(name);
      if (value !== undefined && page.node.get(name) === undefined) page.node.set(name, value);
    }
  }
  // removePage deletes the page object too: the kept ones are put back before they join the tree again.
  for (let index = pages.length - 1; index >= 0; index -= 1) {
    budget.check();
    document.removePage(index);
  }
  for (const index of order) {
    budget.check();
    const page = pages[index] as PDFPage;
    document.context.assign(page.ref, page.node);
    document.addPage(page);
  }
  dropUnreachable(document, { removed: dropped.map((page) => page.ref), renumber: true, budget });
}

/** Removes the form fields whose widgets are all on `dropped` pages (a field with a widget on a kept page stays). */
function removeFieldsOf(document: PDFDocument, dropped: PDFPage[], budget: DocumentBudget): void {
  if (dropped.length === 0) return;
  const droppedAnnots = new Set<string>();
  for (const page of dropped) {
    budget.check();
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    for (let i = 0; i < annots.size(); i += 1) {
      const ref = annots.get(i);
      if (ref instanceof PDFRef) droppedAnnots.add(ref.toString());
    }
  }
  if (droppedAnnots.size === 0 || !(document.catalog.lookup(PDFName.of('AcroForm')) instanceof PDFDict)) return;
  const bad = fieldTreeProblem(document, budget);
  if (bad) throw new OptionError({ pages: `The pages to drop carry form fields that cannot be removed: ${bad}` });
  const form = document.getForm();
  for (const field of form.getFields()) {
    budget.spend('fields', 1);
    const widgets = widgetRefs(document, field.acroField.dict, field.ref);
    if (widgets.length > 0 && widgets.every((ref) => droppedAnnots.has(ref))) form.removeField(field);
  }
}

/** The refs of a field's widgets: its kids that are widgets, or the field itself when field and widget are one dictionary. */
function widgetRefs(document: PDFDocument, field: PDFDict, ref: PDFRef): string[] {
  const kids = field.lookup(PDFName.of('Kids'));
  if (!(kids instanceof PDFArray)) return [ref.toString()];
  const refs: string[] = [];
  for (let i = 0; i < kids.size(); i += 1) {
    const kid = kids.get(i);
    if (!(kid instanceof PDFRef)) continue;
    const dict = document.context.lookup(kid);
    if (dict instanceof PDFDict && dict.lookup(PDFName.of('Kids')) instanceof PDFArray) refs.push(...widgetRefs(document, dict, kid));
    else refs.push(kid.toString());
  }
  return refs;
}
