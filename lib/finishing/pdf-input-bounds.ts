/**
 * Bounds of a caller's PDF (a merge's `parts.N.document`), checked before
 * and right after pdf-lib parses it, so that what the merge then does with
 * it (copy its pages, stamp, archive, save: recursive code, all of it) meets
 * only what the bounds allow. Each breach is a problem phrased for the part's
 * field.
 *
 * Why both sides of the parse: the parse itself inflates object and
 * cross-reference streams with no ceiling (a 5 MB file of zeros inflates to
 * 5 GB), so those are inflated here first, with one; everything else is read
 * from the parsed objects, which is exact where a scan of the bytes would
 * guess (objects inside object streams, inherited page sizes), and walked
 * without recursion, so no depth can overflow the check itself. A parse that
 * overflows on deep nesting throws, which is a 400 too.
 */
import { constants, inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFStream, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { MAX_DOCUMENT_INFLATED_BYTES, MAX_DOCUMENT_NESTING, MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_PAGES, MAX_PAGE_EDGE_POINTS } from '../schemas/merge-requests.js';

// `N G obj` at the start of an indirect object.
const OBJECT_HEADER = /\d+\s+\d+\s+obj\b/g;
// The end of a stream's dictionary and the `stream` keyword with its end of line.
const STREAM_START = />>\s*stream(?:\r\n|\n|\r)/g;

/**
 * Why the bytes of a PDF must not be parsed, or undefined: more objects than
 * the bound, or object and cross-reference streams (which the parse inflates)
 * that use another filter than Flate or inflate past the bound together.
 */
export function pdfBytesProblem(bytes: Uint8Array): string | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let objects = text.match(OBJECT_HEADER)?.length ?? 0;
  if (objects > MAX_DOCUMENT_OBJECTS) return tooManyObjects;
  let inflated = 0;
  for (const match of text.matchAll(STREAM_START)) {
    const dictionaryEnd = match.index + 2;
    const dictionary = streamDictionary(text, dictionaryEnd);
    if (!/\/Type\s*\/(?:ObjStm|XRef)\b/.test(dictionary)) continue;
    const filters = [...dictionary.replace(/\/DecodeParms[\s\S]*/, '').matchAll(/\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/g)].map((m) => m[1]!.replace(/[[\]\s]/g, ''));
    if (filters.some((filter) => filter !== '/FlateDecode')) return 'Its object or cross-reference streams must use FlateDecode alone';
    const start = match.index + match[0].length;
    const end = streamEnd(text, dictionary, start);
    let size: number;
    try {
      size = filters.length === 0 ? end - start : inflateSync(bytes.subarray(start, end), { maxOutputLength: MAX_DOCUMENT_INFLATED_BYTES - inflated + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooMuchInflated;
      // A stream that does not inflate is the parse's to judge (it reads the file leniently).
      continue;
    }
    inflated += size;
    if (inflated > MAX_DOCUMENT_INFLATED_BYTES) return tooMuchInflated;
    objects += Number(/\/N\s+(\d+)/.exec(dictionary)?.[1] ?? 0);
    if (objects > MAX_DOCUMENT_OBJECTS) return tooManyObjects;
  }
  return undefined;
}

const tooManyObjects = `Must have at most ${MAX_DOCUMENT_OBJECTS} objects`;
const tooMuchInflated = `Its object and cross-reference streams must inflate to at most ${MAX_DOCUMENT_INFLATED_BYTES / 1024 / 1024} MB together`;

/** The text of the dictionary that ends at `end` (just past its `>>`), nested dictionaries counted; at most 64 KB back. */
function streamDictionary(text: string, end: number): string {
  let depth = 0;
  for (let i = end - 1; i > 0 && i > end - 65_536; i--) {
    if (text[i] === '>' && text[i - 1] === '>') {
      depth++;
      i--;
    } else if (text[i] === '<' && text[i - 1] === '<') {
      depth--;
      i--;
      if (depth === 0) return text.slice(i, end);
    }
  }
  return '';
}

/** Where a stream's data ends: its direct /Length when that lands on `endstream`, else the next `endstream`. */
function streamEnd(text: string, dictionary: string, start: number): number {
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary);
  if (length) {
    const end = start + Number(length[1]);
    if (/^\s*endstream/.test(text.slice(end, end + 20))) return end;
  }
  const keyword = text.indexOf('endstream', start);
  return keyword < 0 ? text.length : keyword;
}

/**
 * Why a parsed PDF must not be used, or undefined: an object nested deeper
 * than the bound, a page tree that loops or nests too deep, too many pages,
 * or a page larger than 200 inches.
 */
export function parsedPdfProblem(document: PDFDocument): string | undefined {
  const { context } = document;
  const objects = context.enumerateIndirectObjects();
  if (objects.length > MAX_DOCUMENT_OBJECTS) return tooManyObjects;
  for (const [, object] of objects) {
    if (nestingOf(object) > MAX_DOCUMENT_NESTING) return `Must not nest arrays and dictionaries more than ${MAX_DOCUMENT_NESTING} levels deep`;
  }
  return pageTreeProblem(document);
}

/** How deep arrays and dictionaries nest in `object` (references not followed), walked with a stack of its own. */
function nestingOf(object: PDFObject): number {
  let deepest = 0;
  const pending: Array<[PDFObject, number]> = [[object, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    const inner = next instanceof PDFStream ? next.dict : next;
    if (inner instanceof PDFDict) {
      deepest = Math.max(deepest, depth + 1);
      if (deepest > MAX_DOCUMENT_NESTING) return deepest;
      for (const [, value] of inner.entries()) pending.push([value, depth + 1]);
    } else if (inner instanceof PDFArray) {
      deepest = Math.max(deepest, depth + 1);
      if (deepest > MAX_DOCUMENT_NESTING) return deepest;
      for (const value of inner.asArray()) pending.push([value, depth + 1]);
    }
  }
  return deepest;
}

type TreeNode = { node: PDFDict; ref: PDFRef | undefined; depth: number; mediaBox: PDFObject | undefined; userUnit: PDFObject | undefined };

/**
 * Walks the page tree from the catalog, as pdf-lib will (recursively) later:
 * each `Pages` node once (a second visit is a loop), at most the nesting
 * bound deep, each node's `/Parent` the node that lists it (pdf-lib climbs
 * `/Parent` for inherited attributes), every page within the page and size
 * bounds, its size inherited as the standard says.
 */
function pageTreeProblem(document: PDFDocument): string | undefined {
  const { context, catalog } = document;
  const rootRef = catalog.get(PDFName.of('Pages'));
  const root = context.lookup(rootRef);
  if (!(root instanceof PDFDict)) return 'Has no page tree';
  const seen = new Set<PDFDict>([root]);
  const pending: TreeNode[] = [{ node: root, ref: rootRef instanceof PDFRef ? rootRef : undefined, depth: 1, mediaBox: undefined, userUnit: undefined }];
  let pages = 0;
  while (pending.length > 0) {
    const { node, ref, depth, mediaBox, userUnit } = pending.pop()!;
    const kids = context.lookup(node.get(PDFName.of('Kids')));
    if (!(kids instanceof PDFArray)) continue;
    for (const kidRef of kids.asArray()) {
      const kid = context.lookup(kidRef);
      if (!(kid instanceof PDFDict)) continue;
      const parent = kid.get(PDFName.of('Parent'));
      if (ref && parent !== undefined && parent !== ref) return 'Its page tree is inconsistent: a node whose /Parent is not the node listing it';
      const inherited = { mediaBox: kid.get(PDFName.of('MediaBox')) ?? mediaBox, userUnit: kid.get(PDFName.of('UserUnit')) ?? userUnit };
      if (kid.get(PDFName.of('Type')) === PDFName.of('Pages')) {
        if (seen.has(kid)) return 'Its page tree loops: a node lists one of its ancestors';
        if (depth + 1 > MAX_DOCUMENT_NESTING) return `Its page tree must not nest more than ${MAX_DOCUMENT_NESTING} levels deep`;
        seen.add(kid);
        pending.push({ node: kid, ref: kidRef instanceof PDFRef ? kidRef : undefined, depth: depth + 1, ...inherited });
        continue;
      }
      if (++pages > MAX_DOCUMENT_PAGES) return `Must have at most ${MAX_DOCUMENT_PAGES} pages`;
      const sizeProblem = pageSizeProblem(context.lookup(inherited.mediaBox), context.lookup(inherited.userUnit));
      if (sizeProblem) return sizeProblem;
    }
  }
  return undefined;
}

/** Why a page's MediaBox (times its UserUnit) is larger than the bound, or undefined (a missing box is pdf-lib's default letter page). */
function pageSizeProblem(mediaBox: PDFObject | undefined, userUnit: PDFObject | undefined): string | undefined {
  if (!(mediaBox instanceof PDFArray) || mediaBox.size() !== 4) return undefined;
  const [x1, y1, x2, y2] = mediaBox.asArray().map((value) => (value instanceof PDFNumber ? value.asNumber() : 0)) as [number, number, number, number];
  const unit = userUnit instanceof PDFNumber ? userUnit.asNumber() : 1;
  const width = Math.abs(x2 - x1) * unit;
  const height = Math.abs(y2 - y1) * unit;
  if (width > MAX_PAGE_EDGE_POINTS || height > MAX_PAGE_EDGE_POINTS || !Number.isFinite(width) || !Number.isFinite(height)) {
    return `Its pages must be at most ${MAX_PAGE_EDGE_POINTS} points (200 inches) a side; one is ${Math.round(width)} × ${Math.round(height)}`;
  }
  return undefined;
}
