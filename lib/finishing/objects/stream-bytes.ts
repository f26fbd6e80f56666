/**
 * The decoded bytes of a caller's stream (page content, a form, a font
 * program), within a ceiling: a few hundred kilobytes of Flate inflate to
 * gigabytes (a 399 KB file's content inflated to 400 MB and grew the instance
 * by 530 MB), so every inflation gets what is left of the document's
 * `inflatedBytes` total, and no more than MAX_STREAM_INFLATED_BYTES, before
 * it allocates, and counts what it made against that total.
 *
 * How each filter is bounded: FlateDecode (nearly every stream) is inflated by
 * zlib, which stops at `maxOutputLength`, as pdf-input-bounds.ts does for
 * object streams. pdf-lib's own decoders have no ceiling, and its FlateStream
 * decodes a whole Deflate block at once (one block may inflate a thousandfold),
 * so it is never used; its other decoders (LZW, ASCII85, ASCIIHex, RunLength,
 * and the decryption of an encrypted file) make a bounded amount per block
 * (at most a few megabytes), so they are read a chunk at a time and stopped
 * at the ceiling. A chain of filters is decoded one filter at a time, each
 * under the same ceiling.
 */
import { constants, inflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFArray, PDFDict, PDFName, PDFNumber, type PDFObject, PDFRawStream, type PDFStream } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';

/**
 * Most bytes one stream may decode to. Far above a real page's content or a
 * font program (the largest CJK fonts are about 30 MB); beyond it the stream
 * is read as one the service cannot decode, which every caller already treats
 * safely (the page's fonts are not subset, its images are bounded by the page
 * size, the font is kept whole).
 */
export const MAX_STREAM_INFLATED_BYTES = 64 * 1024 * 1024;

/** What pdf-lib's chunked decoders are read by. */
const CHUNK = 64 * 1024;

const FLATE = PDFName.of('FlateDecode');

/** Over the ceiling: the caller decides whether that is the stream's own ceiling or the document's total. */
const OVER = Symbol('over');

/** `bytes` inflated by zlib, OVER past `ceiling`, undefined when it is not Flate data. */
function inflateWithin(bytes: Uint8Array, ceiling: number): Uint8Array | typeof OVER | undefined {
  try {
    // Z_SYNC_FLUSH: a truncated stream gives what it has, as readers draw it.
    return inflateSync(bytes, { maxOutputLength: ceiling + 1, finishFlush: constants.Z_SYNC_FLUSH });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? OVER : undefined;
  }
}

type Chunked = { getBytes(length: number): Uint8Array };

/** Everything `stream` yields, read a chunk at a time; OVER past `ceiling`, undefined when it fails. */
function readWithin(open: () => Chunked, ceiling: number): Uint8Array | typeof OVER | undefined {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const stream = open();
    for (;;) {
      const chunk = stream.getBytes(CHUNK);
      if (chunk.length === 0) break;
      total += chunk.length;
      if (total > ceiling) return OVER;
      chunks.push(chunk.slice());
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}

/** A one-filter stream of `bytes` for pdf-lib's decoder of `filter`. */
const oneFilter = (context: PDFDict['context'], bytes: Uint8Array, filter: PDFObject, parms: PDFObject | undefined) => {
  const dict = PDFDict.withContext(context);
  dict.set(PDFName.of('Filter'), filter);
  if (parms) dict.set(PDFName.of('DecodeParms'), parms);
  return () => decodePDFRawStream(PDFRawStream.of(dict, bytes)) as unknown as Chunked;
};

/** A predictor (ISO 32000 §7.4.4.4) pdf-lib would silently not undo: content so encoded is not read at all. */
function predicted(parms: PDFObject | undefined): boolean {
  const predictor = parms instanceof PDFDict ? parms.lookup(PDFName.of('Predictor')) : undefined;
  return predictor instanceof PDFNumber && predictor.asNumber() > 1;
}

/** The raw stream decoded under `ceiling`: its decryption, then each filter in turn. */
function decodeWithin(stream: PDFRawStream, ceiling: number): Uint8Array | typeof OVER | undefined {
  const { dict } = stream;
  const { context } = dict;
  let bytes: Uint8Array | typeof OVER | undefined = stream.getContents();
  if (stream.transform) {
    const transform = stream.transform;
    const contents = bytes;
    bytes = readWithin(() => decodePDFRawStream(PDFRawStream.of(PDFDict.withContext(context), contents, transform)) as unknown as Chunked, ceiling);
  }
  const filter = dict.lookup(PDFName.of('Filter'));
  const parms = dict.lookup(PDFName.of('DecodeParms'));
  const filters = filter instanceof PDFArray ? filter.asArray().map((entry) => context.lookup(entry)) : filter ? [filter] : [];
  const parmsOf = (i: number) => (parms instanceof PDFArray ? context.lookup(parms.get(i)) : i === 0 ? parms : undefined);
  for (let i = 0; i < filters.length; i += 1) {
    if (!(bytes instanceof Uint8Array)) return bytes;
    const name = filters[i];
    if (!(name instanceof PDFName) || predicted(parmsOf(i))) return undefined;
    const input: Uint8Array = bytes;
    bytes = name === FLATE ? inflateWithin(input, ceiling) : readWithin(oneFilter(context, input, name, parmsOf(i)), ceiling);
  }
  if (bytes instanceof Uint8Array && bytes.length > ceiling) return OVER;
  return bytes;
}

/**
 * The decoded bytes of a caller's stream, within the ceilings the module
 * comment describes, counted against the document's `inflatedBytes`;
 * undefined when its filters are not ones the service decodes, its data is
 * broken, or it decodes to more than MAX_STREAM_INFLATED_BYTES (each caller
 * treats it as content it cannot read). DocumentBudgetError when it would
 * take the document past its total.
 */
export function streamBytes(stream: PDFStream, budget: DocumentBudget): Uint8Array | undefined {
  const bytes = boundedStreamBytes(stream, budget);
  return bytes === 'over' ? undefined : bytes;
}

/**
 * `streamBytes`, telling a stream that decodes to more than MAX_STREAM_INFLATED_BYTES ('over') apart from one
 * that cannot be decoded (undefined): for a reader that must not leave the first to a decoder without a ceiling.
 */
export function boundedStreamBytes(stream: PDFStream, budget: DocumentBudget): Uint8Array | 'over' | undefined {
  budget.check();
  const left = budget.left('inflatedBytes');
  const ceiling = Math.min(MAX_STREAM_INFLATED_BYTES, left);
  let bytes: Uint8Array | typeof OVER | undefined;
  if (stream instanceof PDFRawStream) bytes = decodeWithin(stream, ceiling);
  else {
    // A stream an earlier step drew in this parse (pdf-lib's content streams): already in memory, counted all the same.
    try {
      const unencoded = (stream as unknown as { getUnencodedContents?: () => Uint8Array }).getUnencodedContents;
      bytes = unencoded ? unencoded.call(stream) : stream.getContents();
    } catch {
      bytes = undefined;
    }
    if (bytes && bytes.length > ceiling) bytes = OVER;
  }
  if (bytes === OVER) {
    // The document's total is what stopped it: the 400 naming the document.
    if (left <= MAX_STREAM_INFLATED_BYTES) budget.spend('inflatedBytes', left + 1);
    return 'over';
  }
  if (bytes) budget.spend('inflatedBytes', bytes.length);
  return bytes;
}
