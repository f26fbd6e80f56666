/**
 * Text runs of the compress step: glyphs a page shows one by one, each moved
 * into place by its own `Td`, are shown as one run (`TJ`), with a position
 * adjustment only where a glyph does not sit where the one before it ends.
 * Chromium's PDF writer (Skia) keeps a run together only while each glyph's
 * position equals the sum of the advances before it exactly, as floats; with
 * a face of 1000 units per em (Noto Sans, the layer's default) HarfBuzz's
 * 16.16 fixed-point positions never do, so every glyph gets
 * `11.7120209 0 Td <0044> Tj`: a text-heavy page's content was 1.5× the size
 * Ghostscript writes of it. The rewrite follows the glyphs' advances as a
 * reader does (the font's /W or /Widths), keeps each glyph within half a
 * thousandth of an em of where it was, and never lets that error add up.
 *
 * It is written to be safe on any file: a page content stream is rewritten
 * only when it is drawn on one page alone, never sets character or word
 * spacing or horizontal scaling (`Tc`, `Tw`, `Tz`, `"`: the advances would
 * need them), and ends outside a text object; a font whose advances are not known
 * (Type 3, vertical, a font not found) and any text operator not modelled
 * here (`T*`, `'`, `"`, `TD`, a `TJ` of the file's own) make the rewrite put
 * its matrices back exactly where the file's are, then copy the operator as
 * it is. What is not text is copied byte for byte. A stream is replaced only
 * when it comes out smaller.
 */
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, type PDFObject, PDFRawStream, PDFRef } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { type Token, tokens } from '../../objects/content-tokens.js';
import { streamBytes } from '../../objects/stream-bytes.js';
import { type VisitCounter, visitCounter } from '../../objects/visit-counter.js';

const name = (value: string) => PDFName.of(value);

/** How far a glyph may sit from where the file put it, in ems: half a thousandth (0.008 pt at 16 pt). */
const TOLERANCE_EM = 0.0005;

/** Ranges (`first last width`) of a CID font's /W followed, at most: see cidWidths. */
const MAX_W_RANGES = 64;

/** Operators that change neither matrix nor font: copied as they are, ending any run being written. */
const POSITIONLESS = new Set([
  'BDC', 'BMC', 'EMC', 'MP', 'DP', 'Tr', 'Ts', 'TL', 'w', 'J', 'j', 'M', 'd', 'ri', 'i',
  'g', 'G', 'rg', 'RG', 'k', 'K', 'cs', 'CS', 'sc', 'SC', 'scn', 'SCN',
]);

/** Operators that make a stream's advances unknowable here (`"` sets word and character spacing): such a stream is left as it is. */
const SPACING = new Set(['Tc', 'Tw', 'Tz', '"']);

/** A font's advance for a string's codes, in thousandths of an em; undefined when not known. */
type Advances = (codes: Uint8Array) => number | undefined;

/** The advances of a font dictionary as a reader takes them, or undefined for a font this module does not follow. */
function advancesOf(font: PDFObject | undefined, budget: DocumentBudget): Advances | undefined {
  if (!(font instanceof PDFDict)) return undefined;
  const subtype = font.get(name('Subtype'));
  if (subtype === name('Type0')) {
    if (font.get(name('Encoding')) !== name('Identity-H')) return undefined;
    const descendants = font.lookup(name('DescendantFonts'));
    const cidFont = descendants instanceof PDFArray && descendants.size() === 1 ? descendants.lookup(0) : undefined;
    if (!(cidFont instanceof PDFDict)) return undefined;
    const widths = cidWidths(cidFont, budget);
    if (!widths) return undefined;
    return (codes) => {
      if (codes.length % 2 === 1) return undefined;
      let sum = 0;
      for (let i = 0; i < codes.length; i += 2) sum += widths(((codes[i] as number) << 8) | (codes[i + 1] as number));
      return sum;
    };
  }
  if (subtype !== name('TrueType') && subtype !== name('Type1') && subtype !== name('MMType1')) return undefined;
  const first = font.lookup(name('FirstChar'));
  const list = font.lookup(name('Widths'));
  if (!(first instanceof PDFNumber) || !(list instanceof PDFArray)) return undefined;
  const descriptor = font.lookup(name('FontDescriptor'));
  const missing = descriptor instanceof PDFDict ? descriptor.lookup(name('MissingWidth')) : undefined;
  const table: number[] = [];
  for (let i = 0; i < Math.min(list.size(), 256); i += 1) {
    const width = list.lookup(i);
    if (!(width instanceof PDFNumber)) return undefined;
    table.push(width.asNumber());
  }
  const fallback = missing instanceof PDFNumber ? missing.asNumber() : 0;
  const firstCode = first.asNumber();
  return (codes) => {
    let sum = 0;
    for (const code of codes) sum += table[code - firstCode] ?? fallback;
    return sum;
  };
}

/** A CID font's width of each CID (ISO 32000 §9.7.4.3): /W's entries, /DW (1000) for the rest; undefined when /W is malformed. */
function cidWidths(cidFont: PDFDict, budget: DocumentBudget): ((cid: number) => number) | undefined {
  const dw = cidFont.lookup(name('DW'));
  const fallback = dw instanceof PDFNumber ? dw.asNumber() : 1000;
  const single = new Map<number, number>();
  const ranges: Array<[number, number, number]> = [];
  const w = cidFont.lookup(name('W'));
  if (w !== undefined) {
    if (!(w instanceof PDFArray)) return undefined;
    const items = w.asArray().map((item) => cidFont.context.lookup(item));
    const number = (item: PDFObject | undefined) => (item instanceof PDFNumber ? item.asNumber() : undefined);
    for (let i = 0; i < items.length; ) {
      budget.check();
      const first = number(items[i]);
      const next = items[i + 1];
      if (first === undefined) return undefined;
      if (next instanceof PDFArray) {
        const list = next.asArray();
        for (let j = 0; j < list.length; j += 1) {
          const width = number(cidFont.context.lookup(list[j]));
          if (width === undefined) return undefined;
          single.set(first + j, width);
        }
        i += 2;
      } else {
        const [last, width] = [number(next), number(items[i + 2])];
        if (last === undefined || width === undefined) return undefined;
        ranges.push([first, last, width]);
        i += 3;
      }
    }
  }
  // Each glyph's width is looked up through the ranges: a file's /W of many ranges would make that ranges × glyphs,
  // so such a font is not followed (Chromium writes its widths one by one, in a handful of entries).
  if (ranges.length > MAX_W_RANGES) return undefined;
  return (cid) => single.get(cid) ?? ranges.find(([first, last]) => cid >= first && cid <= last)?.[2] ?? fallback;
}

/** A number as the content writes it: at most `decimals` digits after the point, no trailing zeros. */
function formatted(value: number, decimals: number): string {
  const text = value.toFixed(decimals).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

type Font = { advances: Advances | undefined; size: number };

/** The text state a stream starts in and leaves: the font, and the fonts `q` saved. */
type TextState = { font: Font; saved: Font[] };

/**
 * The stream rewritten, or undefined when it is to stay as it is (see the
 * module comment; or when it has no glyphs to join). `state` is the text state at its start, and is left as
 * at its end (the next stream of the same page continues with it).
 */
function rewriteStream(bytes: Uint8Array, fontOf: (resource: string) => Advances | undefined, state: TextState, operators: VisitCounter): Uint8Array | undefined {
  const parts: Array<Uint8Array | string> = [];
  let copied = 0;
  const copyTo = (end: number) => {
    parts.push(bytes.subarray(copied, end));
    copied = end;
  };
  const skipTo = (end: number) => {
    copied = end;
  };
  let inText = false;
  // Positions along the text line, relative to the rewrite's line matrix: where the
  // rewrite's text matrix is (pen), where the file's is (fileText), where the file's
  // line matrix is (fileLine). `known` is false after an operator that moved both by
  // an amount not followed here (they are then equal, and fileLine is the rewrite's line).
  let [pen, fileText, fileLine, known] = [0, 0, 0, true];
  // The run being written: strings (codes shown back to back, one string) and adjustments.
  let run: Array<number[] | string> = [];
  const endRun = () => {
    if (run.length === 0) return;
    const items = run.map((item) => (typeof item === 'string' ? item : `<${Buffer.from(item).toString('hex')}>`));
    parts.push(run.length > 1 ? `\n[${items.join('')}] TJ\n` : `\n${items[0]} Tj\n`);
    run = [];
  };
  /** Brings the rewrite's matrices to where the file's are, exactly. */
  const sync = () => {
    endRun();
    if (fileLine !== 0) {
      parts.push(`\n${formatted(fileLine, 5)} 0 Td\n`);
      [fileText, pen, fileLine] = [fileText - fileLine, 0, 0];
    }
    if (known && Math.abs(fileText - pen) > 1e-9 && state.font.size !== 0) {
      parts.push(`\n[${formatted((-(fileText - pen) * 1000) / state.font.size, 5)}] TJ\n`);
      pen = fileText;
    }
  };
  let joined = 0;
  let operands: Token[] = [];
  for (const token of tokens(bytes)) {
    if (token.kind !== 'operator') {
      operands.push(token);
      continue;
    }
    operators.visit();
    const op = token.value;
    const args = operands;
    operands = [];
    if (SPACING.has(op)) {
      operators.done();
      return undefined;
    }
    if (op === 'q') state.saved.push(state.font);
    else if (op === 'Q') state.font = state.saved.pop() ?? state.font;
    else if (op === 'Tf' || op === 'gs') {
      const [resource, size] = args;
      // An ExtGState can set the font: its advances are then not known.
      const font = op === 'Tf' && resource?.kind === 'name' && size?.kind === 'number' && args.length === 2 ? { advances: fontOf(resource.value), size: size.value } : { advances: undefined, size: 0 };
      // Adjustments still owed are made with the font they were owed in.
      if (inText && (font.advances === undefined || font.size === 0)) sync();
      state.font = font;
    }
    if (!inText) {
      if (op === 'BT') [inText, pen, fileText, fileLine, known] = [true, 0, 0, 0, true];
      copyTo(token.end);
      continue;
    }
    const { advances, size } = state.font;
    if (op === 'Tj' && args.length === 1 && args[0]?.kind === 'string' && advances !== undefined && size !== 0) {
      const codes = args[0].bytes;
      const advance = advances(codes);
      if (advance !== undefined) {
        skipTo(token.end);
        if (known && Math.abs(fileText - pen) > TOLERANCE_EM * Math.abs(size)) {
          const adjustment = Math.round((-(fileText - pen) * 1000) / size * 100) / 100;
          run.push(formatted(adjustment, 2));
          pen -= (adjustment * size) / 1000;
        }
        const last = run.at(-1);
        if (Array.isArray(last)) last.push(...codes);
        else run.push([...codes]);
        pen += (advance * size) / 1000;
        fileText += (advance * size) / 1000;
        continue;
      }
    }
    if (op === 'Td' && args.length === 2 && args[0]?.kind === 'number' && args[1]?.kind === 'number') {
      const [dx, dy] = [args[0].value, args[1].value];
      if (dy === 0 && known && advances !== undefined && size !== 0) {
        // Followed, not written: the next glyph shown is adjusted to where the file's line now starts.
        fileLine += dx;
        fileText = fileLine;
        joined += 1;
        skipTo(token.end);
        continue;
      }
      endRun();
      if (fileLine === 0) copyTo(token.end);
      else {
        skipTo(token.end);
        parts.push(`\n${formatted(dx + fileLine, 5)} ${formatted(dy, 5)} Td\n`);
      }
      [pen, fileText, fileLine, known] = [0, 0, 0, true];
      continue;
    }
    if (op === 'Tm' || op === 'ET') {
      endRun();
      copyTo(token.end);
      [pen, fileText, fileLine, known] = [0, 0, 0, true];
      if (op === 'ET') inText = false;
      continue;
    }
    if (POSITIONLESS.has(op) || op === 'Tf' || op === 'gs') {
      endRun();
      copyTo(token.end);
      continue;
    }
    // An operator not followed here: the file's matrices first, then the operator as it is.
    sync();
    copyTo(token.end);
    [pen, fileText, fileLine, known] = [0, 0, 0, false];
  }
  operators.done();
  if (inText || joined === 0) return undefined;
  endRun();
  copyTo(bytes.length);
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
}


/** A page's resources: its own, or the nearest ancestor's in the page tree (ISO 32000 §7.7.3.4). */
function inheritedResources(page: PDFDict): PDFDict | undefined {
  let node: PDFDict | undefined = page;
  for (let depth = 0; node !== undefined && depth < 64; depth += 1) {
    const resources = node.lookup(name('Resources'));
    if (resources instanceof PDFDict) return resources;
    const parent: PDFObject | undefined = node.lookup(name('Parent'));
    node = parent instanceof PDFDict ? parent : undefined;
  }
  return undefined;
}

/**
 * Rewrites the text runs of every page content stream drawn on one page
 * alone, as the module comment describes. Returns how many streams it
 * replaced.
 */
export function joinTextRuns(doc: PDFDocument, budget: DocumentBudget): number {
  const pages = doc.getPages().map((page) => page.node);
  const contentsOf = (page: PDFDict): PDFRef[] => {
    const contents = page.get(name('Contents'));
    if (contents instanceof PDFRef) return [contents];
    if (contents instanceof PDFArray) return contents.asArray().filter((item): item is PDFRef => item instanceof PDFRef);
    return [];
  };
  const drawnOn = new Map<PDFRef, number>();
  for (const page of pages) for (const ref of contentsOf(page)) drawnOn.set(ref, (drawnOn.get(ref) ?? 0) + 1);
  const advancesByFont = new Map<PDFObject, Advances | undefined>();
  const operators = visitCounter(budget);
  let replaced = 0;
  for (const page of pages) {
    budget.check();
    const fonts = inheritedResources(page)?.lookup(name('Font'));
    const fontOf = (resource: string): Advances | undefined => {
      const font = fonts instanceof PDFDict ? fonts.lookup(name(resource)) : undefined;
      if (font === undefined) return undefined;
      if (!advancesByFont.has(font)) advancesByFont.set(font, advancesOf(font, budget));
      return advancesByFont.get(font);
    };
    const state: TextState = { font: { advances: undefined, size: 0 }, saved: [] };
    for (const ref of contentsOf(page)) {
      const stream = doc.context.lookup(ref);
      if (!(stream instanceof PDFRawStream) || drawnOn.get(ref) !== 1) break;
      const bytes = streamBytes(stream, budget);
      const rewritten = bytes === undefined ? undefined : rewriteStream(bytes, fontOf, state, operators);
      // The next stream of the page starts in the text state this one leaves: past one not followed, none is.
      if (rewritten === undefined) break;
      const flate = deflateSync(rewritten, { level: 9, memLevel: 9 });
      if (flate.length >= stream.getContents().length) continue;
      const dict = PDFDict.fromMapWithContext(new Map(stream.dict.entries()), doc.context);
      dict.set(name('Filter'), name('FlateDecode'));
      dict.delete(name('DecodeParms'));
      dict.set(name('Length'), PDFNumber.of(flate.length));
      doc.context.assign(ref, PDFRawStream.of(dict, flate));
      replaced += 1;
    }
  }
  return replaced;
}
