/**
 * PDF/UA 7.1-3: all content is either tagged (inside marked content that the
 * structure tree points to) or marked as an artifact. Chromium's tagged
 * output leaves what belongs to no element unmarked (page backgrounds, form
 * control boxes, decorations). This marks each such painting operation as
 * `/Artifact`, which is what it is: nothing a reader must hear.
 */
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFDocument, type PDFPage } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { streamBytes } from '../../objects/stream-bytes.js';

/** One operator with its operands: its byte range in the content stream. */
type Instruction = { operator: string; start: number; end: number };

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** Splits a content stream into instructions (operands + operator), skipping strings, arrays and dictionaries whole. */
export function instructions(bytes: Uint8Array): Instruction[] {
  const out: Instruction[] = [];
  let i = 0;
  let start = -1;
  const n = bytes.length;
  const at = (k: number) => bytes[k] ?? 0;
  while (i < n) {
    const c = at(i);
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    if (start < 0) start = i;
    if (c === 0x25) {
      // A comment runs to the end of the line.
      const commentStart = i;
      while (i < n && at(i) !== 0x0a && at(i) !== 0x0d) i++;
      if (start === commentStart) start = -1;
      continue;
    }
    if (c === 0x28) {
      // A literal string: balanced parentheses, backslash escapes.
      let depth = 0;
      for (; i < n; i++) {
        const d = at(i);
        if (d === 0x5c) i++;
        else if (d === 0x28) depth++;
        else if (d === 0x29 && --depth === 0) break;
      }
      i++;
      continue;
    }
    if (c === 0x3c && at(i + 1) !== 0x3c) {
      while (i < n && at(i) !== 0x3e) i++;
      i++;
      continue;
    }
    if (c === 0x3c || c === 0x3e) {
      i += 2; // << or >>
      continue;
    }
    if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) {
      i++;
      continue;
    }
    if (c === 0x2f) {
      i++;
      while (i < n && !WHITESPACE.has(at(i)) && !DELIMITERS.has(at(i))) i++;
      continue;
    }
    // A number or an operator: a run of regular characters.
    const tokenStart = i;
    while (i < n && !WHITESPACE.has(at(i)) && !DELIMITERS.has(at(i))) i++;
    if (i === tokenStart) {
      i++; // a stray delimiter (a lone ')'): skip it rather than stop
      continue;
    }
    const token = Buffer.from(bytes.subarray(tokenStart, i)).toString('latin1');
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(token) || token === 'true' || token === 'false' || token === 'null') continue;
    if (token === 'ID') {
      // Inline image data: binary up to whitespace, EI, whitespace.
      i++;
      while (i < n && !(WHITESPACE.has(at(i - 1)) && at(i) === 0x45 && at(i + 1) === 0x49 && (i + 2 >= n || WHITESPACE.has(at(i + 2))))) i++;
      i += 2;
      out.push({ operator: 'BI', start, end: i });
      start = -1;
      continue;
    }
    if (token === 'BI') continue; // its dictionary and data end with EI, above
    out.push({ operator: token, start, end: i });
    start = -1;
  }
  return out;
}

const PATH_CONSTRUCTION = new Set(['m', 'l', 'c', 'v', 'y', 'h', 're']);
const PATH_PAINTING = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);
const SHOWING = new Set(['Tj', 'TJ', "'", '"', 'Do', 'sh', 'BI']);

/**
 * Marked content that makes what is inside it tagged or an artifact: a
 * sequence with an MCID (the structure tree points at it) or an Artifact.
 * Other marked content (a Span with ActualText and no MCID) covers nothing.
 */
function covers(bytes: Uint8Array, ins: Instruction): boolean {
  const text = Buffer.from(bytes.subarray(ins.start, ins.end)).toString('latin1');
  return /\/MCID\b/.test(text) || /^\s*\/Artifact\b/.test(text);
}

/** The XObject name a `Do` paints. */
function xobjectName(bytes: Uint8Array, ins: Instruction): string | undefined {
  return /\/([^\s/<>[\]()]+)\s*Do$/.exec(Buffer.from(bytes.subarray(ins.start, ins.end)).toString('latin1'))?.[1];
}

/** What to do with a form XObject painted where nothing covers it: mark inside it, not around it. */
type FormPolicy = (name: string) => 'wrap' | 'descend';

/**
 * Byte ranges of painting that no tagged or artifact sequence covers, given
 * the marked-content stack the stream starts with; forms for which `forms`
 * answers 'descend' are left to be marked inside.
 */
function unmarkedRanges(bytes: Uint8Array, list: Instruction[], stack: boolean[], forms: FormPolicy): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let pathStart = -1;
  // How many open sequences cover, kept as they open and close: searching the stack at every operator was quadratic.
  let covering = stack.filter(Boolean).length;
  const covered = () => covering > 0;
  for (const ins of list) {
    const op = ins.operator;
    if (op === 'BDC' || op === 'BMC') {
      const opens = covers(bytes, ins);
      stack.push(opens);
      if (opens) covering += 1;
    } else if (op === 'EMC' && stack.pop()) covering -= 1;
    if (PATH_CONSTRUCTION.has(op)) {
      if (pathStart < 0) pathStart = ins.start;
      continue;
    }
    if (op === 'W' || op === 'W*') continue; // clipping comes before the painting or n that ends the path
    if (PATH_PAINTING.has(op) || op === 'n') {
      if (!covered() && op !== 'n') ranges.push([pathStart >= 0 ? pathStart : ins.start, ins.end]);
      pathStart = -1;
      continue;
    }
    if (covered() || !SHOWING.has(op)) continue;
    const name = op === 'Do' ? xobjectName(bytes, ins) : undefined;
    if (name !== undefined && forms(name) === 'descend') continue;
    ranges.push([ins.start, ins.end]);
  }
  return ranges;
}

const OPEN = Buffer.from('/Artifact BMC\n', 'latin1');
const CLOSE = Buffer.from('\nEMC\n', 'latin1');

/** The stream with each range wrapped as an artifact. */
function wrap(bytes: Uint8Array, ranges: Array<[number, number]>): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(bytes.subarray(at, start), OPEN, bytes.subarray(start, end), CLOSE);
    at = end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

function contentStreams(page: PDFPage): PDFRef[] {
  const contents = page.node.get(PDFName.of('Contents'));
  if (contents instanceof PDFRef) {
    const resolved = page.doc.context.lookup(contents);
    if (resolved instanceof PDFArray) return resolved.asArray().filter((r): r is PDFRef => r instanceof PDFRef);
    return [contents];
  }
  if (contents instanceof PDFArray) return contents.asArray().filter((r): r is PDFRef => r instanceof PDFRef);
  return [];
}

/** Marks the unmarked painting of content streams `refs` (one page's, or one form's) that share `resources`. */
function markStreams(doc: PDFDocument, refs: PDFRef[], resources: PDFDict | undefined, visited: Set<PDFRef>, budget: DocumentBudget, tagged: Map<PDFRef, boolean>): void {
  const xobjects = resources?.lookup(PDFName.of('XObject'));
  const forms: FormPolicy = (name) => {
    if (!(xobjects instanceof PDFDict)) return 'wrap';
    const ref = xobjects.get(PDFName.of(name));
    const form = ref instanceof PDFRef ? doc.context.lookup(ref) : undefined;
    if (!(ref instanceof PDFRef) || !(form instanceof PDFRawStream) || form.dict.lookup(PDFName.of('Subtype')) !== PDFName.of('Form')) return 'wrap';
    // Each form is read once however often it is painted; one it cannot read (past the ceiling) is wrapped whole.
    if (!tagged.has(ref)) {
      const inner = streamBytes(form, budget);
      tagged.set(ref, inner !== undefined && /\/MCID\b/.test(Buffer.from(inner).toString('latin1')));
    }
    // A form with tagged content inside (Chromium's transparency groups) must not sit inside an artifact: mark within it.
    if (!tagged.get(ref)) return 'wrap';
    if (!visited.has(ref)) {
      visited.add(ref);
      const own = form.dict.lookup(PDFName.of('Resources'));
      markStreams(doc, [ref], own instanceof PDFDict ? own : resources, visited, budget, tagged);
    }
    return 'descend';
  };
  const stack: boolean[] = [];
  for (const ref of refs) {
    budget.check();
    const stream = doc.context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) continue;
    // A stream past the ceiling is left as it is (unmarked): it cannot be rewritten without reading it.
    const bytes = streamBytes(stream, budget);
    if (!bytes) continue;
    const ranges = unmarkedRanges(bytes, instructions(bytes), stack, forms);
    if (ranges.length === 0) continue;
    const marked = wrap(bytes, ranges);
    if (stream.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Form')) {
      // A form keeps its dictionary (BBox, Resources, Group); only the data and its filter change.
      const dict = stream.dict.clone(doc.context);
      dict.delete(PDFName.of('DecodeParms'));
      const replacement = doc.context.flateStream(marked);
      for (const [key, value] of dict.entries()) if (key !== PDFName.of('Filter') && key !== PDFName.of('Length')) replacement.dict.set(key, value);
      doc.context.assign(ref, replacement);
    } else {
      doc.context.assign(ref, doc.context.flateStream(marked));
    }
  }
}

/** Marks every unmarked painting operation of every page (and of the forms they paint) as an artifact. */
export function markUntaggedContentAsArtifacts(doc: PDFDocument, budget: DocumentBudget): void {
  const visited = new Set<PDFRef>();
  const tagged = new Map<PDFRef, boolean>();
  for (const page of doc.getPages()) {
    budget.check();
    const resources = page.node.Resources();
    markStreams(doc, contentStreams(page), resources, visited, budget, tagged);
  }
}
