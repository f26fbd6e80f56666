/**
 * Where each image XObject is shown: the page content streams are walked for
 * the current transformation matrix at every `Do` (through `q`/`Q`, `cm` and
 * form XObjects with their /Matrix), giving the largest size, in points, each
 * image is drawn at. An image that no walked content draws (a pattern's, an
 * annotation's) has no entry: the caller bounds it by the page size.
 */
import { decodePDFRawStream, PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, type PDFObject, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';

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

/** The decoded bytes of a stream (undefined when its filters are not ones the library decodes). */
export function streamBytes(stream: PDFStream): Uint8Array | undefined {
  try {
    if (stream instanceof PDFRawStream) return decodePDFRawStream(stream).decode();
    const unencoded = (stream as unknown as { getUnencodedContents?: () => Uint8Array }).getUnencodedContents;
    return unencoded ? unencoded.call(stream) : stream.getContents();
  } catch {
    return undefined;
  }
}

const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number) => c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;

type Token = { kind: 'number'; value: number } | { kind: 'name'; value: string } | { kind: 'operator'; value: string } | { kind: 'other' };

/** The tokens of a content stream, enough of them to follow `q`, `Q`, `cm` and `Do` (strings, arrays and inline images skipped). */
function* tokens(bytes: Uint8Array): Generator<Token> {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i] as number;
    if (isWhite(c)) { i += 1; continue; }
    if (c === 0x25) { while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i += 1; continue; }
    if (c === 0x28) {
      // A literal string: balanced parentheses, backslash escapes.
      let depth = 0;
      for (; i < n; i += 1) {
        const d = bytes[i];
        if (d === 0x5c) { i += 1; continue; }
        if (d === 0x28) depth += 1;
        else if (d === 0x29 && --depth === 0) { i += 1; break; }
      }
      yield { kind: 'other' };
      continue;
    }
    if (c === 0x3c && bytes[i + 1] !== 0x3c) { while (i < n && bytes[i] !== 0x3e) i += 1; i += 1; yield { kind: 'other' }; continue; }
    if (c === 0x3c || c === 0x3e) { i += 2; yield { kind: 'other' }; continue; }
    if (c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d) { i += 1; yield { kind: 'other' }; continue; }
    if (c === 0x2f) {
      let j = i + 1;
      while (j < n && !isWhite(bytes[j] as number) && !isDelimiter(bytes[j] as number)) j += 1;
      yield { kind: 'name', value: Buffer.from(bytes.subarray(i + 1, j)).toString('latin1').replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) };
      i = j;
      continue;
    }
    let j = i;
    while (j < n && !isWhite(bytes[j] as number) && !isDelimiter(bytes[j] as number)) j += 1;
    if (j === i) { i += 1; continue; }
    const word = Buffer.from(bytes.subarray(i, j)).toString('latin1');
    i = j;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) { yield { kind: 'number', value: Number(word) }; continue; }
    if (word === 'ID') {
      // Inline image data: binary up to whitespace, EI, whitespace.
      i += 1;
      while (i < n && !(bytes[i] === 0x45 && bytes[i + 1] === 0x49 && isWhite(bytes[i - 1] as number) && (i + 2 >= n || isWhite(bytes[i + 2] as number)))) i += 1;
      i += 2;
      yield { kind: 'operator', value: 'EI' };
      continue;
    }
    yield { kind: 'operator', value: word };
  }
}

/** Widths and heights in points an image is drawn at, its largest draw on each axis. */
export type DrawnSize = { width: number; height: number };

/** The largest size each image XObject (by object number) is drawn at on the document's pages. */
export function drawnImageSizes(doc: PDFDocument): Map<PDFRef, DrawnSize> {
  const sizes = new Map<PDFRef, DrawnSize>();
  let draws = 0;
  const { context } = doc;

  const walk = (content: Uint8Array, resources: PDFDict | undefined, start: Matrix, depth: number) => {
    const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    let ctm = start;
    const saved: Matrix[] = [];
    const operands: Token[] = [];
    for (const token of tokens(content)) {
      if (token.kind !== 'operator') { operands.push(token); if (operands.length > 16) operands.shift(); continue; }
      const op = token.value;
      if (op === 'q') saved.push(ctm);
      else if (op === 'Q') ctm = saved.pop() ?? ctm;
      else if (op === 'cm') {
        const m = operands.slice(-6).map((t) => (t.kind === 'number' ? t.value : NaN));
        if (m.length === 6 && m.every(Number.isFinite)) ctm = multiply(m as Matrix, ctm);
      } else if (op === 'Do' && xobjects && draws < MAX_DRAWS) {
        const name = operands.at(-1);
        if (name?.kind === 'name') {
          draws += 1;
          const ref = xobjects.get(PDFName.of(name.value));
          const xobject = ref instanceof PDFRef ? context.lookup(ref) : undefined;
          if (ref instanceof PDFRef && xobject instanceof PDFStream) {
            const subtype = xobject.dict.get(PDFName.of('Subtype'));
            if (subtype === PDFName.of('Image')) {
              const width = Math.hypot(ctm[0], ctm[1]);
              const height = Math.hypot(ctm[2], ctm[3]);
              const known = sizes.get(ref);
              sizes.set(ref, { width: Math.max(width, known?.width ?? 0), height: Math.max(height, known?.height ?? 0) });
            } else if (subtype === PDFName.of('Form') && depth < MAX_FORM_DEPTH) {
              const bytes = streamBytes(xobject);
              const matrix = xobject.dict.lookupMaybe(PDFName.of('Matrix'), PDFArray);
              const values = matrix?.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN));
              const formMatrix = values && values.length === 6 && values.every(Number.isFinite) ? (values as Matrix) : IDENTITY;
              const formResources = xobject.dict.lookupMaybe(PDFName.of('Resources'), PDFDict) ?? resources;
              if (bytes) walk(bytes, formResources, multiply(formMatrix, ctm), depth + 1);
            }
          }
        }
      }
      operands.length = 0;
    }
  };

  for (const page of doc.getPages()) {
    const resources = page.node.Resources();
    const contents = page.node.Contents();
    const streams: PDFObject[] = contents instanceof PDFArray ? contents.asArray().map((entry) => context.lookup(entry) as PDFObject) : contents ? [contents] : [];
    const parts = streams.flatMap((stream) => (stream instanceof PDFStream ? [streamBytes(stream)] : [])).filter((bytes): bytes is Uint8Array => bytes != null);
    // A page's content streams are one stream split anywhere (ISO 32000 §7.8.2).
    const joined = Buffer.concat(parts.flatMap((part) => [part, Buffer.from('\n')]));
    walk(joined, resources, IDENTITY, 0);
  }
  return sizes;
}
