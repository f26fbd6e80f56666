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
import {
  ParseSpeeds,
  PDFArray,
  PDFCatalog,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFPageLeaf,
  PDFPageTree,
  PDFParser,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { MAX_DOCUMENT_INFLATED_BYTES, MAX_DOCUMENT_NESTING, MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_PAGES, MAX_PAGE_EDGE_POINTS } from '../schemas/merge-requests.js';

/** Most object and cross-reference streams a document may have: each is inflated here, however small. */
const MAX_OBJECT_STREAMS = 5_000;

// `N G obj` at the start of an indirect object. Not inside a number: each run of digits is tried once,
// so a file of digits costs linear time, not quadratic.
const OBJECT_HEADER = /(?<!\d)\d+\s+\d+\s+obj\b/g;
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
  let streams = 0;
  // Each walk back for a dictionary stops where the previous stream's data began, and each search for
  // `endstream` starts where the last one ended: the scan reads each byte a bounded number of times.
  let floor = 0;
  let endstream = -1;
  for (const match of text.matchAll(STREAM_START)) {
    const dictionaryEnd = match.index + 2;
    const dictionary = streamDictionary(text, dictionaryEnd, floor);
    floor = match.index + match[0].length;
    if (!/\/Type\s*\/(?:ObjStm|XRef)\b/.test(dictionary)) continue;
    if (++streams > MAX_OBJECT_STREAMS) return `Must have at most ${MAX_OBJECT_STREAMS} object and cross-reference streams`;
    const filters = [...dictionary.replace(/\/DecodeParms[\s\S]*/, '').matchAll(/\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/g)].map((m) => m[1]!.replace(/[[\]\s]/g, ''));
    if (filters.some((filter) => filter !== '/FlateDecode')) return 'Its object or cross-reference streams must use FlateDecode alone';
    const start = match.index + match[0].length;
    if (endstream < start) endstream = text.indexOf('endstream', start);
    const end = streamEnd(text, dictionary, start, endstream);
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

/** The text of the dictionary that ends at `end` (just past its `>>`), nested dictionaries counted; at most 64 KB back, and not before `floor`. */
function streamDictionary(text: string, end: number, floor: number): string {
  let depth = 0;
  for (let i = end - 1; i > floor && i > end - 65_536; i--) {
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

/** Where a stream's data ends: its direct /Length when that lands on `endstream`, else the next `endstream` (-1: none). */
function streamEnd(text: string, dictionary: string, start: number, endstream: number): number {
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary);
  if (length) {
    const end = start + Number(length[1]);
    if (/^\s*endstream/.test(text.slice(end, end + 20))) return end;
  }
  return endstream < 0 ? text.length : endstream;
}

/**
 * Most places the parser may try, and fail, to find the next object while it
 * skips what lies between objects. A well-formed file has none; each costs an
 * exception (about 8 µs), so 5 MB of printable junk took pdf-lib 26–45 s.
 */
export const MAX_PARSER_RECOVERIES = 10_000;

/**
 * Reads a caller's PDF within the bounds: the bytes scanned (`pdfBytesProblem`),
 * then parsed by pdf-lib's parser with a budget on its recovery from junk, then
 * the parsed objects checked (`parsedPdfProblem`); not encrypted, with pages.
 * Answers its page count, or why it is refused. Whatever the parser throws
 * (a stack overflow on deep nesting among it) is the file's fault.
 */
export async function readPdfInput(bytes: Uint8Array): Promise<{ pages: number } | { problem: string }> {
  const problem = pdfBytesProblem(bytes);
  if (problem) return { problem };
  let context: PDFContext;
  try {
    context = await boundedParse(bytes);
  } catch (error) {
    return { problem: error instanceof ParserBudgetError ? error.message : 'Is not a readable PDF' };
  }
  const parsed = parsedPdfProblem(context);
  if (typeof parsed === 'string') return { problem: parsed };
  if (context.lookup(context.trailerInfo.Encrypt)) return { problem: 'Must not be encrypted: remove its password first' };
  return parsed.pages === 0 ? { problem: 'Has no pages' } : parsed;
}

class ParserBudgetError extends Error {}

/**
 * pdf-lib's own parser (the one `PDFDocument.load` uses, with invalid objects
 * an error), its junk-skipping step bounded: that step tries to read an object
 * header at every printable byte until one reads, and each miss throws inside
 * the library. The miss is counted on the parser instance; the library is not
 * changed for anyone else.
 */
async function boundedParse(bytes: Uint8Array): Promise<PDFContext> {
  const parser = PDFParser.forBytesWithOptions(bytes, ParseSpeeds.Slow, true);
  // A private method of the parser: the bound's test (junk answered at once) fails if an upgrade renames it.
  const probe = parser as unknown as { matchIndirectObjectHeader: () => boolean };
  const matchHeader = probe.matchIndirectObjectHeader.bind(parser);
  let misses = 0;
  probe.matchIndirectObjectHeader = () => {
    if (matchHeader()) return true;
    if (++misses > MAX_PARSER_RECOVERIES) throw new ParserBudgetError(`Is not a readable PDF: more than ${MAX_PARSER_RECOVERIES} bytes of it lie outside any object`);
    return false;
  };
  return parser.parseDocument();
}

/**
 * Why a parsed PDF must not be used, else its page count: an object nested
 * deeper than the bound, a page tree that loops or nests too deep, too many
 * pages, or a page larger than 200 inches.
 */
export function parsedPdfProblem(context: PDFContext): string | { pages: number } {
  const objects = context.enumerateIndirectObjects();
  if (objects.length > MAX_DOCUMENT_OBJECTS) return tooManyObjects;
  for (const [, object] of objects) {
    if (nestingOf(object) > MAX_DOCUMENT_NESTING) return `Must not nest arrays and dictionaries more than ${MAX_DOCUMENT_NESTING} levels deep`;
  }
  return pageTree(context);
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
 * Counts the pages, walking the page tree from the catalog as pdf-lib will (recursively) later:
 * each `Pages` node once (a second visit is a loop), at most the nesting
 * bound deep, each node's `/Parent` the node that lists it (pdf-lib climbs
 * `/Parent` for inherited attributes), every page within the page and size
 * bounds, its size inherited as the standard says.
 */
function pageTree(context: PDFContext): string | { pages: number } {
  // The classes the parser makes of dictionaries typed Catalog, Pages and Page: what pdf-lib's page code reads.
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFCatalog)) return 'Is not a readable PDF';
  const rootRef = catalog.get(PDFName.of('Pages'));
  const root = context.lookup(rootRef);
  if (!(root instanceof PDFPageTree)) return 'Has no pages';
  const seen = new Set<PDFDict>([root]);
  const pending: TreeNode[] = [{ node: root, ref: rootRef instanceof PDFRef ? rootRef : undefined, depth: 1, mediaBox: undefined, userUnit: undefined }];
  let pages = 0;
  while (pending.length > 0) {
    const { node, ref, depth, mediaBox, userUnit } = pending.pop()!;
    const kids = context.lookup(node.get(PDFName.of('Kids')));
    if (!(kids instanceof PDFArray)) continue;
    for (const kidRef of kids.asArray()) {
      const kid = context.lookup(kidRef);
      // pdf-lib skips a kid that is neither a page nor a node of pages: so does the count.
      if (!(kid instanceof PDFPageTree) && !(kid instanceof PDFPageLeaf)) continue;
      const parent = kid.get(PDFName.of('Parent'));
      if (ref && parent !== undefined && parent !== ref) return 'Its page tree is inconsistent: a node whose /Parent is not the node listing it';
      const inherited = { mediaBox: kid.get(PDFName.of('MediaBox')) ?? mediaBox, userUnit: kid.get(PDFName.of('UserUnit')) ?? userUnit };
      if (kid instanceof PDFPageTree) {
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
  return { pages };
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
