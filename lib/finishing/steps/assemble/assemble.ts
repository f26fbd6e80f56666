import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, type PDFObject, PDFObjectCopier, type PDFPage, PDFRef, PDFString } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import type { PdfStep } from '../../pipeline/step-types.js';
import { openPdf, savePdf } from '../../pipeline/pdf-document.js';

/** One part of an assembled document: its PDF and the outline title the caller gave it, if any. */
export type AssemblyPart = { pdf: Uint8Array; title?: string | null | undefined };

/** One outline entry: a title, the page it goes to (its destination array), and entries nested below. */
type OutlineEntry = { title: string; dest: PDFObject[]; children: OutlineEntry[] };

/**
 * The `assemble` step: the PDF it is given is the first part; the others
 * follow in order, their pages copied as they are (content streams byte for
 * byte). The outline gets one entry per part (its `title`, else the part's
 * document title, else "Part N"), with the part's own outline nested below
 * when `nestOutlines` is on. A part's form fields stay fields of the merged
 * document (so `pdf.form` fills them after assembly).
 */
export function assembleStep(first: { title?: string | null | undefined }, others: AssemblyPart[], nestOutlines: boolean): PdfStep {
  return (pdf, budget) => assembleParts([{ pdf, title: first.title }, ...others], nestOutlines, budget);
}

/**
 * The parts assembled into one PDF, as the `assemble` step does. The parts may
 * come one at a time (a batch's merge reads each item's PDF from storage when
 * its turn comes): only the merged document and the part being copied are held.
 */
export async function assembleParts(
  parts: AsyncIterable<AssemblyPart> | Iterable<AssemblyPart>,
  nestOutlines: boolean,
  budget: DocumentBudget,
  /** Told each part's page count once its pages are in: a caller bounding the whole throws from it to stop. */
  onPart?: (pages: number) => void,
): Promise<Uint8Array> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  const entries: OutlineEntry[] = [];
  let index = -1;
  for await (const part of parts) {
    budget.check();
    index += 1;
    const source = await openPdf(part.pdf, 'assemble');
    const copied = await merged.copyPages(source, source.getPageIndices());
    const pageMap = new Map<string, PDFRef>();
    source.getPages().forEach((page, i) => {
      const target = copied[i];
      if (!target) return;
      merged.addPage(target);
      pageMap.set(page.ref.toString(), target.ref);
    });
    carryFormFields(merged, source, copied);
    onPart?.(copied.length);
    const firstPage = copied[0]?.ref;
    if (!firstPage) continue;
    entries.push({
      title: part.title ?? source.getTitle() ?? `Part ${index + 1}`,
      dest: [firstPage, PDFName.of('Fit')],
      children: nestOutlines ? readOutline(source, pageMap, firstPage) : [],
    });
  }
  writeOutline(merged, entries);
  return savePdf(merged, 'assemble', budget);
}

/**
 * Lists in the merged AcroForm the fields whose widgets came with the copied
 * pages (each widget's topmost parent, once), with the part's default
 * resources and appearance when the merged form has none yet: copyPages
 * brings the widgets and their fields, not the catalog's list of them.
 */
function carryFormFields(merged: PDFDocument, source: PDFDocument, pages: PDFPage[]): void {
  const { context } = merged;
  const roots = new Map<string, PDFRef>();
  for (const page of pages) {
    const annots = page.node.Annots();
    for (let i = 0; i < (annots?.size() ?? 0); i += 1) {
      let ref: PDFObject | undefined = annots?.get(i);
      const widget = ref instanceof PDFRef ? context.lookup(ref) : undefined;
      if (!(widget instanceof PDFDict) || widget.lookup(PDFName.of('Subtype')) !== PDFName.of('Widget')) continue;
      let dict: PDFDict = widget;
      // Up the field tree to the field the AcroForm lists (bounded: a cycle in a hostile file ends it).
      for (let depth = 0; depth < 32; depth += 1) {
        const parent: PDFObject | undefined = dict.get(PDFName.of('Parent'));
        const next: PDFObject | undefined = parent instanceof PDFRef ? context.lookup(parent) : undefined;
        if (!(parent instanceof PDFRef) || !(next instanceof PDFDict)) break;
        ref = parent;
        dict = next;
      }
      if (ref instanceof PDFRef) roots.set(ref.toString(), ref);
    }
  }
  if (roots.size === 0) return;
  let acroForm = merged.catalog.lookup(PDFName.of('AcroForm'));
  if (!(acroForm instanceof PDFDict)) {
    acroForm = context.obj({ Fields: [] }) as PDFDict;
    merged.catalog.set(PDFName.of('AcroForm'), context.register(acroForm));
  }
  const form = acroForm as PDFDict;
  const fields = form.lookup(PDFName.of('Fields'));
  for (const ref of roots.values()) if (fields instanceof PDFArray) fields.push(ref);
  const sourceForm = source.catalog.lookup(PDFName.of('AcroForm'));
  if (!(sourceForm instanceof PDFDict)) return;
  const copier = PDFObjectCopier.for(source.context, context);
  for (const key of ['DR', 'DA', 'Q'].map((name) => PDFName.of(name))) {
    const value = sourceForm.get(key);
    if (value !== undefined && !form.has(key)) form.set(key, copier.copy(value));
  }
}

/** The outline of `source`, its destinations moved to the copied pages (else to the part's first page). */
function readOutline(source: PDFDocument, pageMap: Map<string, PDFRef>, fallback: PDFRef): OutlineEntry[] {
  const { context } = source;
  const outlines = source.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
  const seen = new Set<PDFDict>();
  const items = (firstItem: PDFDict | undefined): OutlineEntry[] => {
    const entries: OutlineEntry[] = [];
    for (let item = firstItem; item && !seen.has(item); item = item.lookupMaybe(PDFName.of('Next'), PDFDict)) {
      seen.add(item);
      const title = item.lookup(PDFName.of('Title'));
      const text = title instanceof PDFString || title instanceof PDFHexString ? title.decodeText() : '';
      entries.push({ title: text, dest: destinationOf(item), children: items(item.lookupMaybe(PDFName.of('First'), PDFDict)) });
    }
    return entries;
  };
  const destinationOf = (item: PDFDict): PDFObject[] => {
    const action = item.lookupMaybe(PDFName.of('A'), PDFDict);
    const raw = item.lookup(PDFName.of('Dest')) ?? action?.lookup(PDFName.of('D'));
    const array = raw instanceof PDFArray ? raw : undefined;
    const page = array?.get(0);
    const target = page instanceof PDFRef ? pageMap.get(page.toString()) : undefined;
    if (!array || !target) return [fallback, PDFName.of('Fit')];
    // The rest of an explicit destination is names and numbers: safe to carry over as they are.
    return [target, ...array.asArray().slice(1).map((value) => context.lookup(value) ?? PDFNull)];
  };
  return items(outlines?.lookupMaybe(PDFName.of('First'), PDFDict));
}

/** Writes `entries` as the document's outline: part entries open, the parts' own outlines closed below them. */
function writeOutline(document: PDFDocument, entries: OutlineEntry[]): void {
  if (entries.length === 0) return;
  const { context } = document;
  const rootRef = context.nextRef();
  const write = (items: OutlineEntry[], parent: PDFRef, open: boolean): { first: PDFRef; last: PDFRef; visible: number } => {
    const refs = items.map(() => context.nextRef());
    let visible = items.length;
    items.forEach((item, i) => {
      const dict = context.obj({}) as PDFDict;
      dict.set(PDFName.of('Title'), PDFHexString.fromText(item.title));
      dict.set(PDFName.of('Parent'), parent);
      dict.set(PDFName.of('Dest'), context.obj(item.dest));
      if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1] as PDFRef);
      if (i < items.length - 1) dict.set(PDFName.of('Next'), refs[i + 1] as PDFRef);
      if (item.children.length > 0) {
        const children = write(item.children, refs[i] as PDFRef, false);
        dict.set(PDFName.of('First'), children.first);
        dict.set(PDFName.of('Last'), children.last);
        // A positive count shows the children; a negative one keeps them folded.
        dict.set(PDFName.of('Count'), PDFNumber.of(open ? children.visible : -children.visible));
        if (open) visible += children.visible;
      }
      context.assign(refs[i] as PDFRef, dict);
    });
    return { first: refs[0] as PDFRef, last: refs[refs.length - 1] as PDFRef, visible };
  };
  const top = write(entries, rootRef, true);
  context.assign(rootRef, context.obj({ Type: 'Outlines', First: top.first, Last: top.last, Count: top.visible }));
  document.catalog.set(PDFName.of('Outlines'), rootRef);
}
