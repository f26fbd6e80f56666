/**
 * Bounds of a caller's PDF (a merge's `parts.N.document`), checked before
 * and right after pdf-lib parses it, so that what the merge then does with
 * it (copy its pages, stamp, archive, save: recursive code, all of it) meets
 * only what the bounds allow. Each breach is a problem phrased for the part's
 * field.
 *
 * Why during and after the parse, not on the bytes alone: the parse itself
 * inflates object and cross-reference streams with no ceiling (a 5 MB file
 * of zeros inflates to 5 GB), so each is held to one as the parser reads it,
 * just before it decodes it, from the dictionary the parser read (a scan of
 * the bytes would have to guess where pdf-lib's lenient reading finds a
 * stream, its filters and its end). Everything else is read from the parsed
 * objects, exact where a scan would guess (objects inside object streams,
 * inherited page sizes), and walked without recursion, so no depth can
 * overflow the check itself.
 */
import { constants, inflateSync } from 'node:zlib';
import {
  ParseSpeeds,
  PDFArray,
  PDFBool,
  PDFDocument,
  PDFHexString,
  PDFString,
  PDFCatalog,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFPageLeaf,
  PDFPageTree,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import { documentBudget } from '../../budget/document-budget.js';
import { passwordForRevision } from '../../pdf/encryption-password.js';
import { boundedStreamBytes, MAX_STREAM_INFLATED_BYTES } from '../objects/stream-bytes.js';
import {
  MAX_DOCUMENT_INFLATED_BYTES,
  MAX_DOCUMENT_NESTING,
  MAX_DOCUMENT_OBJECTS,
  MAX_DOCUMENT_PAGES,
  MAX_DOCUMENT_REFERENCE_DEPTH,
  MAX_DOCUMENT_XREF_ENTRIES,
  MAX_PAGE_EDGE_POINTS,
} from './document-bounds.js';

/** Most object and cross-reference streams a document may have: each is inflated here, however small. */
const MAX_OBJECT_STREAMS = 5_000;

// `N G obj` at the start of an indirect object. Not inside a number: each run of digits is tried once,
// so a file of digits costs linear time, not quadratic.
const OBJECT_HEADER = /(?<!\d)\d+\s+\d+\s+obj\b/g;

const tooManyObjects = `Must have at most ${MAX_DOCUMENT_OBJECTS} objects`;
const tooDeep = `Must not nest arrays and dictionaries more than ${MAX_DOCUMENT_NESTING} levels deep`;

/** How many indirect object headers the bytes of a PDF hold: counted before parsing, so 120,000 objects are not parsed to be refused. */
function objectHeaders(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1').match(OBJECT_HEADER)?.length ?? 0;
}

/** What the parse has spent so far of the document's bounds. */
type ParseBudget = {
  objects: number;
  streams: number;
  inflated: number;
  xrefEntries: number;
  /**
   * Set for the two parses of an encrypted file: the one that only locates its encryption dictionary
   * leaves an object stream that is not Flate data (it is encrypted) undecoded, and the one that
   * decrypts does the same with a cross-reference stream (never encrypted, yet decrypted by the
   * library's parser: garbage it fails on as well); each is counted here rather than refused.
   */
  undecodable?: number;
  tolerates?: 'ObjStm' | 'XRef';
};

/** The type an undecodable object stream is given in the locating parse, so the parser does not decode it. */
const SKIPPED_STREAM = PDFName.of('DocRenderUndecoded');

/**
 * Holds an object or cross-reference stream the parser has just read, and is
 * about to decode, to the bounds: Flate or no filter, inflated here first with
 * the ceiling left (zlib stops there), and what it declares (objects, entries,
 * field widths) within what pdf-lib's loops over them can afford.
 */
function checkParsedStream(stream: PDFRawStream, budget: ParseBudget): void {
  const { dict } = stream;
  const type = dict.lookup(PDFName.of('Type'));
  const objectStream = type === PDFName.of('ObjStm');
  if (!objectStream && type !== PDFName.of('XRef')) return;
  if (++budget.streams > MAX_OBJECT_STREAMS) throw new PdfBoundError(`Must have at most ${MAX_OBJECT_STREAMS} object and cross-reference streams`);
  const filter = dict.lookup(PDFName.of('Filter'));
  const flate = PDFName.of('FlateDecode');
  const filters = filter instanceof PDFArray ? filter.asArray().map((entry) => dict.context.lookup(entry)) : filter === undefined ? [] : [filter];
  if (filters.length > 1 || filters.some((entry) => entry !== flate)) throw new PdfBoundError('Its object and cross-reference streams must use FlateDecode alone');
  const left = MAX_DOCUMENT_INFLATED_BYTES - budget.inflated;
  try {
    budget.inflated += filters.length === 0 ? stream.contents.length : inflateSync(stream.contents, { maxOutputLength: left + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') {
      if (budget.undecodable !== undefined && budget.tolerates === (objectStream ? 'ObjStm' : 'XRef')) {
        budget.undecodable++;
        dict.set(PDFName.of('Type'), SKIPPED_STREAM);
        return;
      }
      throw new PdfBoundError('Its object and cross-reference streams must be valid Flate data (an encrypted file must be decrypted first)');
    }
    budget.inflated = Infinity;
  }
  if (budget.inflated > MAX_DOCUMENT_INFLATED_BYTES) {
    throw new PdfBoundError(`Its object and cross-reference streams must inflate to at most ${MAX_DOCUMENT_INFLATED_BYTES / 1024 / 1024} MB together`);
  }
  // What a stream declares, read as pdf-lib will (a reference resolved); nothing or a negative number counts as 0.
  const count = (value: PDFObject | undefined) => {
    const resolved = dict.context.lookup(value);
    return resolved instanceof PDFNumber ? Math.max(0, resolved.asNumber()) : 0;
  };
  if (objectStream) {
    budget.objects += count(dict.lookup(PDFName.of('N')));
    if (budget.objects > MAX_DOCUMENT_OBJECTS) throw new PdfBoundError(tooManyObjects);
    return;
  }
  const index = dict.lookup(PDFName.of('Index'));
  const lengths = index instanceof PDFArray ? index.asArray().filter((_, i) => i % 2 === 1) : [dict.lookup(PDFName.of('Size'))];
  budget.xrefEntries += lengths.reduce<number>((sum, length) => sum + count(length), 0);
  const widths = dict.lookup(PDFName.of('W'));
  const widthsOk = widths instanceof PDFArray && widths.size() <= 3 && widths.asArray().every((width) => count(width) <= 8);
  if (!widthsOk || budget.xrefEntries > MAX_DOCUMENT_XREF_ENTRIES) {
    throw new PdfBoundError(`Its cross-reference streams must declare at most ${MAX_DOCUMENT_XREF_ENTRIES} entries, each field at most 8 bytes wide`);
  }
}

/**
 * Most places the parser may try, and fail, to find the next object while it
 * skips what lies between objects. A well-formed file has none; each costs an
 * exception (about 8 µs), so 5 MB of printable junk took pdf-lib 26–45 s.
 */
export const MAX_PARSER_RECOVERIES = 10_000;

/** What an encrypted input's encryption dictionary says: the handler, its version and revision, the key length, the permission bits. */
export type InputEncryption = { filter: string; version: number; revision: number; keyBits: number; permissions: number; metadataEncrypted: boolean };

/** Why a PDF is refused: `password` when it is encrypted and the password is missing or wrong. */
export type PdfInputProblem = { problem: string; password?: true };

/**
 * Reads a caller's PDF within the bounds: its object headers counted, then
 * parsed by pdf-lib's parser with its object streams and its recovery from
 * junk bounded (`boundedParse`), then the parsed objects checked
 * (`parsedPdfProblem`); with pages, and not encrypted unless `decrypt`
 * (an existing PDF to process): an encrypted file is then located by one
 * parse and read within the same bounds by a second that decrypts as it
 * reads, with `password` (an empty user password opens it without one).
 * Answers its page count (and its encryption), or why it is refused. Whatever
 * the parser throws (a stack overflow on deep nesting among it) is the file's fault.
 */
export async function readPdfInput(
  bytes: Uint8Array,
  options: { decrypt?: boolean; password?: string } = {},
): Promise<{ pages: number; encryption?: InputEncryption } | PdfInputProblem> {
  const headers = objectHeaders(bytes);
  if (headers > MAX_DOCUMENT_OBJECTS) return { problem: tooManyObjects };
  let context: PDFContext;
  const locating = options.decrypt === true;
  const budget: Partial<ParseBudget> = locating ? { undecodable: 0, tolerates: 'ObjStm' } : {};
  try {
    context = await boundedParse(bytes, headers, budget);
  } catch (error) {
    return { problem: error instanceof PdfBoundError ? error.message : 'Is not a readable PDF' };
  }
  const encryptDict = context.lookup(context.trailerInfo.Encrypt);
  if (!encryptDict) {
    if ((budget.undecodable ?? 0) > 0) return { problem: 'Its object and cross-reference streams must be valid Flate data' };
  } else {
    if (!locating) return { problem: 'Must not be encrypted: remove its password first' };
    if (!(encryptDict instanceof PDFDict)) return { problem: 'Is not a readable PDF: its encryption dictionary is damaged' };
    const opened = await decryptingParse(bytes, headers, context, encryptDict, options.password);
    if ('problem' in opened) return opened;
    const parsed = parsedPdfProblem(opened.context);
    if (typeof parsed === 'string') return { problem: parsed };
    return parsed.pages === 0 ? { problem: 'Has no pages' } : { ...parsed, encryption: opened.encryption };
  }
  const parsed = parsedPdfProblem(context);
  if (typeof parsed === 'string') return { problem: parsed };
  return parsed.pages === 0 ? { problem: 'Has no pages' } : parsed;
}

/** The decryption pdf-lib's parser takes (the library does not export its class: see `cipherFactoryClass`). */
type CipherFactory = NonNullable<Parameters<typeof PDFParser.forBytesWithOptions>[5]>;
type CipherFactoryClass = new (dict: PDFDict, fileId: Uint8Array, password?: string) => CipherFactory;

let cipherFactory: Promise<CipherFactoryClass> | undefined;

/**
 * pdf-lib's CipherTransformFactory, which its package does not export: taken
 * once from the parser call `PDFDocument.load` makes for a file it encrypted
 * itself. The decryption tests fail if an upgrade changes that call.
 */
function cipherFactoryClass(): Promise<CipherFactoryClass> {
  cipherFactory ??= (async () => {
    const doc = await PDFDocument.create();
    doc.addPage([10, 10]);
    doc.encrypt({ userPassword: 'u', ownerPassword: 'o' });
    const sample = await doc.save();
    const original = PDFParser.forBytesWithOptions;
    let found: CipherFactoryClass | undefined;
    PDFParser.forBytesWithOptions = (...args: Parameters<typeof original>) => {
      if (args[5]) found = args[5].constructor as CipherFactoryClass;
      return original(...args);
    };
    try {
      await PDFDocument.load(sample, { password: 'u' });
    } finally {
      PDFParser.forBytesWithOptions = original;
    }
    if (!found) throw new Error('pdf-lib decrypts without a CipherTransformFactory: see cipherFactoryClass');
    return found;
  })();
  return cipherFactory;
}

/** The numbers of the encryption dictionary, as a JSON answer and a log can show them. */
function encryptionFacts(context: PDFContext, dict: PDFDict): InputEncryption {
  const number = (key: string, fallback: number) => {
    const value = context.lookup(dict.get(PDFName.of(key)));
    return value instanceof PDFNumber ? value.asNumber() : fallback;
  };
  const filter = context.lookup(dict.get(PDFName.of('Filter')));
  const version = number('V', 0);
  return {
    filter: filter instanceof PDFName ? filter.decodeText() : '',
    version,
    revision: number('R', 0),
    keyBits: version >= 5 ? 256 : number('Length', 40),
    permissions: number('P', 0),
    // Version 4 and later may leave the XMP packet in clear (ISO 32000-1 Table 20).
    metadataEncrypted: context.lookup(dict.get(PDFName.of('EncryptMetadata'))) !== PDFBool.False,
  };
}

/** The second parse of an encrypted file: decrypted as it is read, within the bounds; a wrong or missing password is said so. */
async function decryptingParse(
  bytes: Uint8Array,
  headers: number,
  located: PDFContext,
  encryptDict: PDFDict,
  password: string | undefined,
): Promise<{ context: PDFContext; encryption: InputEncryption } | PdfInputProblem> {
  const ids = located.lookup(located.trailerInfo.ID);
  const first = ids instanceof PDFArray ? located.lookup(ids.get(0)) : undefined;
  const fileId = first instanceof PDFHexString || first instanceof PDFString ? first.asBytes() : new Uint8Array();
  const Factory = await cipherFactoryClass();
  let factory: CipherFactory;
  try {
    factory = new Factory(encryptDict, fileId, passwordForRevision(password ?? '', encryptionFacts(located, encryptDict).revision));
  } catch (error) {
    if (/password/i.test((error as Error).message)) {
      return password == null ? { problem: 'Is encrypted: give its password', password: true } : { problem: 'The password does not open this PDF', password: true };
    }
    return { problem: 'Is encrypted with a method this service cannot open', password: true };
  }
  try {
    return { context: await boundedParse(bytes, headers, { undecodable: 0, tolerates: 'XRef' }, factory), encryption: encryptionFacts(located, encryptDict) };
  } catch (error) {
    return { problem: error instanceof PdfBoundError ? error.message : 'Is not a readable PDF' };
  }
}

/** A bound the parse met: its message is the field's problem. */
class PdfBoundError extends Error {}

/**
 * pdf-lib's own parser (the one `PDFDocument.load` uses, with invalid objects
 * an error), with two of its steps bounded on this instance (the library is
 * not changed for anyone else):
 * - each object it reads passes `checkParsedStream` before the parser decodes
 *   it as an object or cross-reference stream (which it does with no ceiling),
 *   and its arrays and dictionaries nest within the bound (the parser recurses);
 * - its junk-skipping step tries to read an object header at every printable
 *   byte until one reads, and each miss throws inside the library: misses
 *   are counted.
 * Both hooks are methods the library does not publish: the bounds' tests (a
 * bomb, junk) fail if an upgrade renames them.
 */
async function boundedParse(bytes: Uint8Array, objects: number, budgetSeed: Partial<ParseBudget> = {}, decryption?: CipherFactory): Promise<PDFContext> {
  const parser = PDFParser.forBytesWithOptions(bytes, ParseSpeeds.Slow, true, undefined, undefined, decryption);
  const hooks = parser as unknown as { matchIndirectObjectHeader: () => boolean; parseObject: (ref?: PDFRef) => PDFObject };
  const matchHeader = hooks.matchIndirectObjectHeader.bind(parser);
  const parseObject = hooks.parseObject.bind(parser);
  // The seed is the caller's to read afterwards (the undecodable count of a locating parse).
  const budget = Object.assign(budgetSeed, { objects, streams: 0, inflated: 0, xrefEntries: 0 }) as ParseBudget;
  // The parser catches what its steps throw and throws its own error instead: the breach is kept to be answered.
  let breach: PdfBoundError | undefined;
  const guard = <T>(step: () => T): T => {
    try {
      return step();
    } catch (error) {
      if (error instanceof PdfBoundError) breach ??= error;
      throw error;
    }
  };
  let misses = 0;
  hooks.matchIndirectObjectHeader = () =>
    guard(() => {
      if (matchHeader()) return true;
      if (++misses > MAX_PARSER_RECOVERIES) throw new PdfBoundError(`Is not a readable PDF: more than ${MAX_PARSER_RECOVERIES} bytes of it lie outside any object`);
      return false;
    });
  // The parser reads arrays and dictionaries by recursion through parseObject: its depth is the nesting's,
  // bounded here before it can overflow the stack (objects inside object streams are walked after the parse).
  let depth = 0;
  hooks.parseObject = (ref) =>
    guard(() => {
      if (++depth > MAX_DOCUMENT_NESTING + 1) throw new PdfBoundError(tooDeep);
      try {
        const object = parseObject(ref);
        if (object instanceof PDFRawStream) checkParsedStream(object, budget);
        return object;
      } finally {
        depth--;
      }
    });
  try {
    const context = await parser.parseDocument();
    if (breach) throw breach;
    return context;
  } catch (error) {
    throw breach ?? error;
  }
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
    if (nestingOf(object) > MAX_DOCUMENT_NESTING) return tooDeep;
  }
  const tree = pageTree(context);
  if (typeof tree === 'string') return tree;
  if (referenceDepth(context, tree.leaves) > MAX_DOCUMENT_REFERENCE_DEPTH) {
    return `Its pages must not reach objects through more than ${MAX_DOCUMENT_REFERENCE_DEPTH} levels of references, arrays and dictionaries`;
  }
  if (xmpTooLarge(context)) return `Its XMP metadata must decode to at most ${MAX_STREAM_INFLATED_BYTES / 1024 / 1024} MB`;
  return { pages: tree.pages };
}

/**
 * Whether the catalog's XMP packet decodes past the stream ceiling: pdf-lib
 * inflates it with no ceiling at every save (to learn a PDF/A-1 claim), so a
 * few kilobytes of Flate there would allocate gigabytes in whichever step
 * saves the document.
 */
function xmpTooLarge(context: PDFContext): boolean {
  const catalog = context.lookup(context.trailerInfo.Root);
  const metadata = catalog instanceof PDFDict ? catalog.lookup(PDFName.of('Metadata')) : undefined;
  if (!(metadata instanceof PDFRawStream)) return false;
  return boundedStreamBytes(metadata, documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000 })) === 'over';
}

/**
 * How deep copying the pages goes: pdf-lib's copier follows each reference
 * from a page (its /Parent aside) by recursion, once per object, so a chain
 * of 5,000 references overflowed its stack. Walked here depth-first with a
 * stack of its own, each object once, as the copier does (the depth of a
 * graph walk depends on its order: this is the walk's, close to the copier's).
 */
function referenceDepth(context: PDFContext, leaves: Set<PDFDict>): number {
  const visited = new Set<PDFRef>();
  const pending: Array<[PDFObject, number]> = [];
  for (const leaf of leaves) {
    for (const [key, value] of leaf.entries()) if (key !== PDFName.of('Parent')) pending.push([value, 1]);
  }
  let deepest = 0;
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DOCUMENT_REFERENCE_DEPTH) return deepest;
    if (next instanceof PDFRef) {
      if (visited.has(next)) continue;
      visited.add(next);
      const target = context.lookup(next);
      if (target) pending.push([target, depth + 1]);
      continue;
    }
    const inner = next instanceof PDFStream ? next.dict : next;
    if (inner instanceof PDFDict) for (const [, value] of inner.entries()) pending.push([value, depth + 1]);
    else if (inner instanceof PDFArray) for (const value of inner.asArray()) pending.push([value, depth + 1]);
  }
  return deepest;
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
function pageTree(context: PDFContext): string | { pages: number; leaves: Set<PDFDict> } {
  // The classes the parser makes of dictionaries typed Catalog, Pages and Page: what pdf-lib's page code reads.
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFCatalog)) return 'Is not a readable PDF';
  const rootRef = catalog.get(PDFName.of('Pages'));
  const root = context.lookup(rootRef);
  if (!(root instanceof PDFPageTree)) return 'Has no pages';
  const seen = new Set<PDFDict>([root]);
  const pending: TreeNode[] = [{ node: root, ref: rootRef instanceof PDFRef ? rootRef : undefined, depth: 1, mediaBox: undefined, userUnit: undefined }];
  let pages = 0;
  const leaves = new Set<PDFDict>();
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
      leaves.add(kid);
      const sizeProblem = pageSizeProblem(context.lookup(inherited.mediaBox), context.lookup(inherited.userUnit));
      if (sizeProblem) return sizeProblem;
    }
  }
  return { pages, leaves };
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
