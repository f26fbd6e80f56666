/**
 * Whether an existing PDF can be made PDF/A by the archive step, which adds
 * what a print lacks (identification, output intent, file identifier,
 * printable annotations: pdfa-fixes.ts) but cannot embed a font or re-encode
 * content. What it cannot put right is listed, so the caller gets a 422
 * naming the reasons rather than a file that claims a conformance it lacks.
 * The checks are veraPDF's rules for PDF/A-2 and -3 that a real document
 * most often breaks; the corpus proof (test/conformance) holds every
 * processed file that passes them to veraPDF.
 */
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import type { PdfaLevel } from '../pipeline/finishing-plan.js';

/** Most reasons listed (the first ones say enough). */
const MAX_REASONS = 10;

/** Why `doc` cannot be made `level` by the archive step; empty when it can. */
export function pdfaProblems(doc: PDFDocument, level: PdfaLevel): string[] {
  const reasons = new Set<string>();
  const add = (reason: string) => {
    if (reasons.size < MAX_REASONS) reasons.add(reason);
  };
  const context = doc.context;
  const lookup = (value: PDFObject | undefined) => context.lookup(value);
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFStream)) continue;
    const dict = object.dict;
    const filter = lookup(dict.get(PDFName.of('Filter')));
    const filters = filter instanceof PDFArray ? filter.asArray().map(lookup) : [filter];
    if (filters.includes(PDFName.of('LZWDecode'))) add('A stream uses LZWDecode, which PDF/A forbids (6.1.7.2)');
    const subtype = lookup(dict.get(PDFName.of('Subtype')));
    if (subtype === PDFName.of('PS')) add('It holds a PostScript XObject (6.2.7)');
    if (subtype === PDFName.of('Image')) {
      if (lookup(dict.get(PDFName.of('Alternates')))) add('An image has alternates (6.2.8)');
      if (lookup(dict.get(PDFName.of('OPI')))) add('An image has OPI information (6.2.8)');
    }
  }
  const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'));
  if (acroForm instanceof PDFDict && acroForm.lookup(PDFName.of('XFA'))) add('It holds an XFA form (6.4.2)');
  const names = doc.catalog.lookup(PDFName.of('Names'));
  if (names instanceof PDFDict && names.lookup(PDFName.of('JavaScript'))) add('It holds document JavaScript (6.6.1)');
  if (names instanceof PDFDict && names.lookup(PDFName.of('EmbeddedFiles')) && level.startsWith('PDF/A-2')) {
    add('It carries embedded files, which PDF/A-2 allows only when they are PDF/A themselves: use PDF/A-3b or PDF/A-3u');
  }
  walkResources(doc, add);
  return [...reasons];
}

/**
 * Every resource dictionary the pages reach (their own, inherited; those of
 * form XObjects, patterns, Type 3 fonts and annotation appearances), each
 * once: fonts must be embedded, transfer functions absent, DeviceCMYK
 * undefined by the sRGB output intent the archive step adds.
 */
function walkResources(doc: PDFDocument, add: (reason: string) => void): void {
  const context = doc.context;
  const seen = new Set<PDFObject>();
  const pending: PDFObject[] = [];
  for (const page of doc.getPages()) {
    pending.push(page.node.Resources() as PDFObject);
    const annots = page.node.Annots();
    for (const annot of annots?.asArray() ?? []) {
      const ap = context.lookup(annot) instanceof PDFDict ? (context.lookup(annot) as PDFDict).lookup(PDFName.of('AP')) : undefined;
      if (ap instanceof PDFDict) for (const [, appearance] of ap.entries()) pending.push(appearance);
    }
  }
  const font = (dict: PDFDict) => {
    const subtype = dict.lookup(PDFName.of('Subtype'));
    if (subtype === PDFName.of('Type3')) {
      pending.push(dict.get(PDFName.of('Resources')) as PDFObject);
      return;
    }
    const descendants = dict.lookup(PDFName.of('DescendantFonts'));
    const described = descendants instanceof PDFArray ? context.lookup(descendants.get(0)) : dict;
    const descriptor = described instanceof PDFDict ? described.lookup(PDFName.of('FontDescriptor')) : undefined;
    const embedded =
      descriptor instanceof PDFDict && ['FontFile', 'FontFile2', 'FontFile3'].some((key) => descriptor.lookup(PDFName.of(key)) instanceof PDFRawStream);
    if (!embedded) {
      const base = dict.lookup(PDFName.of('BaseFont'));
      add(`The font ${base instanceof PDFName ? base.decodeText() : '(unnamed)'} is not embedded (6.2.11.4.1)`);
    }
  };
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === undefined || seen.has(next)) continue;
    seen.add(next);
    const resolved = context.lookup(next);
    // An appearance may be a stream or a dictionary of states.
    if (resolved instanceof PDFStream) {
      pending.push(resolved.dict.get(PDFName.of('Resources')) as PDFObject);
      continue;
    }
    if (!(resolved instanceof PDFDict)) continue;
    if (!resolved.has(PDFName.of('Font')) && !resolved.has(PDFName.of('XObject')) && !resolved.has(PDFName.of('ExtGState'))) {
      // A dictionary of appearance states: each state is a stream.
      for (const [, value] of resolved.entries()) pending.push(value);
      continue;
    }
    const fonts = resolved.lookup(PDFName.of('Font'));
    if (fonts instanceof PDFDict) for (const [, f] of fonts.entries()) if (!seen.has(f)) { seen.add(f); const d = context.lookup(f); if (d instanceof PDFDict) font(d); }
    const xobjects = resolved.lookup(PDFName.of('XObject'));
    if (xobjects instanceof PDFDict) {
      for (const [, x] of xobjects.entries()) {
        const stream = context.lookup(x);
        if (stream instanceof PDFStream) {
          const cs = stream.dict.lookup(PDFName.of('ColorSpace'));
          if (cs === PDFName.of('DeviceCMYK')) add('An image is DeviceCMYK, which the sRGB output intent does not define (6.2.4.3)');
          pending.push(x);
        }
      }
    }
    const states = resolved.lookup(PDFName.of('ExtGState'));
    if (states instanceof PDFDict) {
      for (const [, gs] of states.entries()) {
        const state = context.lookup(gs);
        if (state instanceof PDFDict && (state.has(PDFName.of('TR')) || (state.has(PDFName.of('TR2')) && state.lookup(PDFName.of('TR2')) !== PDFName.of('Default')))) {
          add('A graphics state sets a transfer function (6.2.5)');
        }
      }
    }
    const spaces = resolved.lookup(PDFName.of('ColorSpace'));
    if (spaces instanceof PDFDict) {
      for (const [, space] of spaces.entries()) {
        const value = context.lookup(space);
        if (value === PDFName.of('DeviceCMYK') || (value instanceof PDFArray && value.asArray().some((part) => context.lookup(part) === PDFName.of('DeviceCMYK')))) {
          add('A colour space is DeviceCMYK, which the sRGB output intent does not define (6.2.4.3)');
        }
      }
    }
    const patterns = resolved.lookup(PDFName.of('Pattern'));
    if (patterns instanceof PDFDict) for (const [, pattern] of patterns.entries()) pending.push(pattern);
  }
}
