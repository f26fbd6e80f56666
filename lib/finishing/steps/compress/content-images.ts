/**
 * What the content of a document uses: the page content streams are walked
 * for the current transformation matrix at every `Do` (through `q`/`Q`, `cm`
 * and form XObjects with their /Matrix), giving the largest size, in points,
 * each image is drawn at, and for the font selected at every text-showing
 * operator (`Tj`, `TJ`, `'`, `"`) the strings it shows. An image that no
 * walked content draws (a pattern's, an annotation's) has no size: the
 * caller bounds it by the page size. Fonts are followed further (every form
 * XObject and tiling pattern, drawn or not), and the answer says whether that
 * account is complete.
 */
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, type PDFObject, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { type Token, tokens } from '../../objects/content-tokens.js';
import { streamBytes } from '../../objects/stream-bytes.js';
import { type VisitCounter, visitCounter } from '../../objects/visit-counter.js';

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
/** Form XObjects within form XObjects, at most: deeper nesting is not followed. */
const MAX_FORM_DEPTH = 12;
/** Image and form draws followed in one document, at most: a hostile file cannot make the walk quadratic. */
const MAX_DRAWS = 200_000;

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/** Widths and heights in points an image is drawn at, its largest draw on each axis. */
export type DrawnSize = { width: number; height: number };

/** What the document's content uses, as the module comment describes. */
export type ContentUsage = {
  /** The largest size each image XObject is drawn at on the pages. */
  images: Map<PDFRef, DrawnSize>;
  /** For each font (by reference), the strings shown with it, as stored (codes, not characters). */
  fonts: Map<PDFRef, Uint8Array[]>;
  /**
   * Fonts whose every use is in `fonts`: reached only through the /Font
   * resources of walked content. Empty when the account is not complete
   * (an interactive form, whose fields may draw any glyph later; a Type 3
   * font; content nested too deep or too long to follow).
   */
  fontsFullyKnown: Set<PDFRef>;
};

const TEXT_SHOWING = new Set(['Tj', 'TJ', "'", '"']);

/** The largest size each image XObject (by object number) is drawn at on the document's pages. */
export function drawnImageSizes(doc: PDFDocument, budget: DocumentBudget): Map<PDFRef, DrawnSize> {
  return contentUsage(doc, budget).images;
}

/** What is known of a form once walked with one set of resources. */
type FormWalk = {
  /** Whether it draws an image, itself or through the forms it draws: only then can drawing it again size anything. */
  drawsImages: boolean;
  /** The linear parts (a b c d) of the matrices it was walked at with images recorded. */
  scales: Set<string>;
};

/**
 * Images' drawn sizes and fonts' shown strings, as the module comment
 * describes. The work is bounded whatever the file: each form is decoded
 * once; a form drawn again is walked again only when that can size an image
 * it draws (a scale it was not yet drawn at: a translation moves a draw
 * without resizing it), its fonts read on its first walk only; a form that
 * draws itself is not followed; and every operator walked counts against the
 * budget's `objects` total (a 1.2 KB file that drew one form tens of
 * thousands of times walked it again at every draw for 29 s).
 */
export function contentUsage(doc: PDFDocument, budget: DocumentBudget): ContentUsage {
  const images = new Map<PDFRef, DrawnSize>();
  const fonts = new Map<PDFRef, Uint8Array[]>();
  const walkedFontDicts = new Set<PDFDict>();
  const walkedStreams = new Set<PDFStream>();
  const formBytes = new Map<PDFStream, Uint8Array | undefined>();
  const formWalks = new Map<PDFStream, Map<PDFDict | undefined, FormWalk>>();
  const walking = new Set<PDFStream>();
  const operators = visitCounter(budget);
  let draws = 0;
  let complete = true;
  const { context } = doc;

  const fontDictOf = (resources: PDFDict | undefined) => {
    const dict = resources?.lookupMaybe(PDFName.of('Font'), PDFDict);
    if (dict) walkedFontDicts.add(dict);
    return dict;
  };

  /** Walks one content stream; true when it draws an image (itself or through a form). */
  const walk = (content: Uint8Array, resources: PDFDict | undefined, start: Matrix, depth: number, drawn: boolean, readFonts: boolean): boolean => {
    const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    const fontDict = readFonts ? fontDictOf(resources) : undefined;
    let state = { ctm: start, font: undefined as PDFRef | undefined };
    const saved: Array<typeof state> = [];
    const operands: Token[] = [];
    let strings: Uint8Array[] = [];
    let drawsImages = false;
    for (const token of tokens(content)) {
      if (token.kind === 'string' && readFonts) strings.push(token.bytes);
      if (token.kind !== 'operator') { operands.push(token); if (operands.length > 16) operands.shift(); continue; }
      operators.visit();
      const op = token.value;
      if (op === 'q') saved.push(state);
      else if (op === 'Q') state = saved.pop() ?? state;
      else if (op === 'cm') {
        const m = operands.slice(-6).map((t) => (t.kind === 'number' ? t.value : NaN));
        if (m.length === 6 && m.every(Number.isFinite)) state = { ...state, ctm: multiply(m as Matrix, state.ctm) };
      } else if (op === 'Tf') {
        if (readFonts) {
          const fontName = operands.at(-2);
          const ref = fontName?.kind === 'name' ? fontDict?.get(PDFName.of(fontName.value)) : undefined;
          state = { ...state, font: ref instanceof PDFRef ? ref : undefined };
        }
      } else if (TEXT_SHOWING.has(op) && readFonts) {
        if (state.font) {
          const shown = fonts.get(state.font) ?? [];
          // One by one: a TJ of a few hundred thousand strings spread as arguments throws RangeError.
          for (const string of strings) shown.push(string);
          fonts.set(state.font, shown);
        }
        else if (strings.length > 0) complete = false;
      } else if (op === 'Do' && xobjects) {
        const name = operands.at(-1);
        if (draws >= MAX_DRAWS) complete = false;
        else if (name?.kind === 'name') {
          draws += 1;
          const ref = xobjects.get(PDFName.of(name.value));
          const xobject = ref instanceof PDFRef ? context.lookup(ref) : undefined;
          if (ref instanceof PDFRef && xobject instanceof PDFStream) {
            const subtype = xobject.dict.get(PDFName.of('Subtype'));
            if (subtype === PDFName.of('Image')) {
              drawsImages = true;
              if (drawn) {
                const width = Math.hypot(state.ctm[0], state.ctm[1]);
                const height = Math.hypot(state.ctm[2], state.ctm[3]);
                const known = images.get(ref);
                images.set(ref, { width: Math.max(width, known?.width ?? 0), height: Math.max(height, known?.height ?? 0) });
              }
            } else if (subtype === PDFName.of('Form')) {
              // Deeper nesting, or a form drawing itself (readers refuse to draw one), is not followed.
              if (depth >= MAX_FORM_DEPTH || walking.has(xobject)) complete = false;
              else if (walkForm(xobject, resources, multiply(formMatrix(xobject), state.ctm), depth + 1, drawn)) drawsImages = true;
            }
          }
        }
      }
      operands.length = 0;
      strings = [];
    }
    return drawsImages;
  };

  /** Walks a form drawn at `matrix` (or, not drawn, for its fonts) as `contentUsage` describes; true when it draws an image. */
  const walkForm = (form: PDFStream, inherited: PDFDict | undefined, matrix: Matrix, depth: number, drawn: boolean): boolean => {
    walkedStreams.add(form);
    const resources = form.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? inherited;
    const byResources = formWalks.get(form) ?? new Map<PDFDict | undefined, FormWalk>();
    formWalks.set(form, byResources);
    const known = byResources.get(resources);
    const scale = drawn ? matrix.slice(0, 4).join(' ') : '';
    if (known && (!known.drawsImages || !drawn || known.scales.has(scale))) return known.drawsImages;
    const entry: FormWalk = known ?? { drawsImages: false, scales: new Set() };
    if (drawn) entry.scales.add(scale);
    byResources.set(resources, entry);
    if (!formBytes.has(form)) formBytes.set(form, streamBytes(form, budget));
    const bytes = formBytes.get(form);
    if (!bytes) {
      complete = false;
      return false;
    }
    walking.add(form);
    try {
      entry.drawsImages = walk(bytes, resources, matrix, depth, drawn, !known) || entry.drawsImages;
    } finally {
      walking.delete(form);
    }
    return entry.drawsImages;
  };

  for (const page of doc.getPages()) {
    budget.check();
    const resources = page.node.Resources();
    const contents = page.node.Contents();
    const streams: PDFObject[] = contents instanceof PDFArray ? contents.asArray().map((entry) => context.lookup(entry) as PDFObject) : contents ? [contents] : [];
    const parts: Uint8Array[] = [];
    for (const stream of streams) {
      if (!(stream instanceof PDFStream)) continue;
      const bytes = streamBytes(stream, budget);
      // A part not read may show text in any font: none of the page's is known fully.
      if (bytes) parts.push(bytes);
      else complete = false;
    }
    // A page's content streams are one stream split anywhere (ISO 32000 §7.8.2).
    const joined = Buffer.concat(parts.flatMap((part) => [part, Buffer.from('\n')]));
    walk(joined, resources, IDENTITY, 0, true, true);
  }
  // Content no page draws directly (annotation appearances, tiling patterns, soft-mask groups, unused forms): fonts only.
  for (const [, object] of context.enumerateIndirectObjects()) {
    budget.check();
    if (!(object instanceof PDFStream) || walkedStreams.has(object) || object.dict.get(PDFName.of('Subtype')) === PDFName.of('Image')) continue;
    const { dict } = object;
    // Forms (an appearance stream may omit its /Subtype: any stream with /Resources or a /BBox is read as one) and tiling patterns.
    if (dict.get(PDFName.of('Subtype')) === PDFName.of('Form') || dict.get(PDFName.of('PatternType')) instanceof PDFNumber || dict.has(PDFName.of('Resources')) || dict.has(PDFName.of('BBox'))) {
      // Without resources of its own, text it shows is in a font not known: the walk says it is not complete.
      walkForm(object, undefined, IDENTITY, 0, false);
    }
  }
  formBytes.clear();
  const fontsFullyKnown = new Set<PDFRef>();
  if (complete && !doc.catalog.has(PDFName.of('AcroForm'))) {
    const elsewhere = fontsNamedOutside(doc, walkedFontDicts, operators);
    for (const [, object] of context.enumerateIndirectObjects()) {
      budget.check();
      if (!(object instanceof PDFDict) || object.get(PDFName.of('Type')) !== PDFName.of('Font')) continue;
      if (object.get(PDFName.of('Subtype')) === PDFName.of('Type3')) {
        operators.done();
        return { images, fonts, fontsFullyKnown };
      }
    }
    for (const fontDict of walkedFontDicts) {
      for (const value of fontDict.values()) if (value instanceof PDFRef && !elsewhere.has(value)) fontsFullyKnown.add(value);
    }
  }
  operators.done();
  return { images, fonts, fontsFullyKnown };
}

function formMatrix(form: PDFStream): Matrix {
  const matrix = form.dict.lookupMaybe(PDFName.of('Matrix'), PDFArray);
  const values = matrix?.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN));
  return values && values.length === 6 && values.every(Number.isFinite) ? (values as Matrix) : IDENTITY;
}

/** Font references held by /Font resource dictionaries the walk did not read (a Type 3 font's, or ones no walked content names). */
function fontsNamedOutside(doc: PDFDocument, walked: Set<PDFDict>, visits: VisitCounter): Set<PDFRef> {
  const outside = new Set<PDFRef>();
  const visit = (object: PDFObject | undefined, depth: number) => {
    if (depth > 32) return;
    visits.visit();
    if (object instanceof PDFStream) visit(object.dict, depth + 1);
    else if (object instanceof PDFArray) for (const item of object.asArray()) visit(item, depth + 1);
    else if (object instanceof PDFDict) {
      for (const [key, value] of object.entries()) {
        if (key === PDFName.of('Font')) {
          const fontDict = value instanceof PDFRef ? doc.context.lookup(value) : value;
          if (fontDict instanceof PDFDict && !walked.has(fontDict)) for (const font of fontDict.values()) if (font instanceof PDFRef) outside.add(font);
          // An ExtGState's /Font [font size].
          const first = fontDict instanceof PDFArray ? fontDict.get(0) : undefined;
          if (first instanceof PDFRef) outside.add(first);
        }
        if (!(value instanceof PDFRef)) visit(value, depth + 1);
      }
    }
  };
  for (const [, object] of doc.context.enumerateIndirectObjects()) visit(object, 0);
  return outside;
}
