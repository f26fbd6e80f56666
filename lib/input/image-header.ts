/**
 * What a caller's PNG or JPEG declares, read from its header before anything
 * decodes it: a decoder allocates what the header says (pdf-lib turns a PNG
 * into width × height × 4 bytes, twice), so a 250 KB file of zeros declaring
 * 16,000 × 16,000 pixels costs most of a gigabyte. The schema compares what
 * this reads with its limits and refuses before the decoder runs.
 *
 * PNG: the chunks are walked (lengths within the file, `IHDR` first and
 * valid, `IEND` last, no animation), and the compressed streams are inflated
 * with a ceiling: the image data (`IDAT`) to exactly what its dimensions
 * make, the text chunks (`zTXt`, `iTXt`) to a small total. That is what the
 * decoder inflates without a ceiling of its own.
 * JPEG: the segments are walked up to the first frame header (`SOFn`).
 */
import { inflateSync } from 'node:zlib';

export type ImageHeader = { kind: 'png' | 'jpeg'; width: number; height: number };
export type ImageProblem = { problem: string };

/** Most a PNG's compressed text chunks may inflate to, together. */
export const MAX_PNG_TEXT_BYTES = 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Channels of each PNG colour type, and the bit depths it allows (PNG §11.2.2). */
const PNG_COLOUR_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

/** Adam7's passes: first column, first row, column step, row step. */
const ADAM7: Array<[number, number, number, number]> = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/** Whether `bytes` starts as a PNG or a JPEG does; anything else is neither. */
export function imageKind(bytes: Uint8Array): ImageHeader['kind'] | undefined {
  if (bytes.length >= 8 && PNG_SIGNATURE.equals(bytes.subarray(0, 8))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

/**
 * The kind and dimensions a PNG or JPEG declares, or why it cannot be
 * trusted (truncated, no header, invalid header, an animated PNG). Reads
 * the header only: a PNG's data is checked by `pngDataProblem`.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | ImageProblem {
  const kind = imageKind(bytes);
  if (kind === 'png') {
    const png = walkPng(bytes);
    return 'problem' in png ? png : { kind, width: png.width, height: png.height };
  }
  if (kind === 'jpeg') return readJpegFrame(bytes);
  return { problem: 'Must be a PNG or JPEG image' };
}

type PngLayout = { width: number; height: number; bitsPerPixel: number; interlaced: boolean; data: Uint8Array[]; texts: Uint8Array[] };

function walkPng(bytes: Uint8Array): PngLayout | ImageProblem {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let layout: PngLayout | undefined;
  let offset = 8;
  while (offset < view.length) {
    if (offset + 12 > view.length) return { problem: 'Is a truncated PNG (a chunk is cut short)' };
    const length = view.readUInt32BE(offset);
    const type = view.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    const end = start + length;
    if (end + 4 > view.length) return { problem: 'Is a truncated PNG (a chunk is cut short)' };
    const body = view.subarray(start, end);
    if (!layout && type !== 'IHDR') return { problem: 'Is not a valid PNG (IHDR must come first)' };
    if (type === 'IHDR') {
      if (layout) return { problem: 'Is not a valid PNG (two IHDR chunks)' };
      const header = readIhdr(body);
      if ('problem' in header) return header;
      layout = header;
    } else if (type === 'IDAT') {
      layout!.data.push(body);
    } else if (type === 'acTL' || type === 'fcTL' || type === 'fdAT') {
      return { problem: 'Must not be an animated PNG' };
    } else if (type === 'zTXt') {
      // keyword, NUL, compression method, then the zlib stream
      const nul = body.indexOf(0);
      if (nul >= 0) layout!.texts.push(body.subarray(nul + 2));
    } else if (type === 'iTXt') {
      // keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, text
      const nul = body.indexOf(0);
      if (nul >= 0 && body[nul + 1] === 1) {
        const language = body.indexOf(0, nul + 3);
        const translated = language >= 0 ? body.indexOf(0, language + 1) : -1;
        if (translated >= 0) layout!.texts.push(body.subarray(translated + 1));
      }
    } else if (type === 'IEND') {
      if (layout!.data.length === 0) return { problem: 'Is not a valid PNG (no IDAT chunk)' };
      return layout!;
    }
    offset = end + 4;
  }
  return { problem: layout ? 'Is a truncated PNG (no IEND chunk)' : 'Is a truncated PNG (no IHDR chunk)' };
}

function readIhdr(body: Buffer): PngLayout | ImageProblem {
  if (body.length !== 13) return { problem: 'Is not a valid PNG (IHDR must be 13 bytes)' };
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [depth, colourType, compression, filter, interlace] = body.subarray(8, 13);
  const colour = PNG_COLOUR_TYPES[colourType as number];
  if (width === 0 || height === 0) return { problem: 'Is not a valid PNG (IHDR declares no pixels)' };
  if (!colour || !colour.depths.includes(depth as number) || compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) {
    return { problem: 'Is not a valid PNG (IHDR declares an unknown colour type, depth, compression, filter or interlace)' };
  }
  return { width, height, bitsPerPixel: colour.channels * (depth as number), interlaced: interlace === 1, data: [], texts: [] };
}

/** Bytes the image data of a PNG inflates to: each row's bytes and its filter byte, per Adam7 pass when interlaced. */
export function pngInflatedBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w === 0 || h === 0 ? 0 : h * (Math.ceil((w * bitsPerPixel) / 8) + 1));
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((sum, [x, y, dx, dy]) => sum + rows(Math.ceil(Math.max(0, width - x) / dx), Math.ceil(Math.max(0, height - y) / dy)), 0);
}

/**
 * Why a PNG's compressed streams cannot be trusted, or undefined: its image
 * data must inflate to exactly what its dimensions make, its text chunks to
 * at most `MAX_PNG_TEXT_BYTES` together. Each is inflated with that ceiling
 * (zlib stops there), so call it once the dimensions are within the limits:
 * it allocates what they make.
 */
export function pngDataProblem(bytes: Uint8Array): string | undefined {
  const png = walkPng(bytes);
  if ('problem' in png) return png.problem;
  const expected = pngInflatedBytes(png.width, png.height, png.bitsPerPixel, png.interlaced);
  const inflated = inflateWithin(Buffer.concat(png.data), expected);
  if (inflated === 'invalid') return 'Is not a valid PNG (its image data is not a zlib stream)';
  if (inflated === 'over' || inflated !== expected) {
    return `Is not a valid PNG (its image data inflates to ${inflated === 'over' ? 'more' : 'less'} than its ${png.width} × ${png.height} pixels make)`;
  }
  let textBytes = 0;
  for (const text of png.texts) {
    const size = inflateWithin(text, MAX_PNG_TEXT_BYTES - textBytes);
    if (size === 'invalid') return 'Is not a valid PNG (a text chunk is not a zlib stream)';
    if (size === 'over') return `Must not carry more than ${MAX_PNG_TEXT_BYTES} bytes of compressed text`;
    textBytes += size;
  }
  return undefined;
}

/** The size `stream` inflates to, 'over' when past `ceiling` (zlib stops there), 'invalid' when it is no zlib stream. */
function inflateWithin(stream: Uint8Array, ceiling: number): number | 'over' | 'invalid' {
  try {
    // One byte past the ceiling tells "exactly the ceiling" from "more".
    const size = inflateSync(stream, { maxOutputLength: ceiling + 1 }).length;
    return size > ceiling ? 'over' : size;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'over' : 'invalid';
  }
}

/** JPEG frame header markers: SOF0–SOF15 less DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Walks a JPEG's segments from SOI to its first frame header and reads the dimensions there. */
function readJpegFrame(bytes: Uint8Array): ImageHeader | ImageProblem {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const truncated = { problem: 'Is a truncated JPEG (it ends before its frame header)' };
  let offset = 2;
  for (;;) {
    if (offset >= view.length) return truncated;
    if (view[offset] !== 0xff) return { problem: `Is not a valid JPEG (no segment marker at byte ${offset})` };
    // Any number of 0xFF fill bytes may precede a marker.
    while (view[offset] === 0xff) offset++;
    if (offset >= view.length) return truncated;
    const marker = view[offset++] as number;
    // Markers without a length: TEM and the restart markers.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd8 || marker === 0xd9 || marker === 0xda) return { problem: 'Is not a valid JPEG (no frame header before its image data)' };
    if (offset + 2 > view.length) return truncated;
    const length = view.readUInt16BE(offset);
    if (length < 2) return { problem: 'Is not a valid JPEG (a segment declares a length under 2)' };
    if (offset + length > view.length) return truncated;
    if (isFrameHeader(marker)) {
      if (length < 8) return { problem: 'Is not a valid JPEG (its frame header is too short)' };
      const height = view.readUInt16BE(offset + 3);
      const width = view.readUInt16BE(offset + 5);
      const components = view[offset + 7] as number;
      // A height of 0 is set later by a DNL marker: the header alone would not bound the image.
      if (width === 0 || height === 0) return { problem: 'Is not a valid JPEG (its frame header declares no pixels)' };
      if (![1, 3, 4].includes(components)) return { problem: 'Must be a greyscale, RGB or CMYK JPEG (1, 3 or 4 components)' };
      return { kind: 'jpeg', width, height };
    }
    offset += length;
  }
}
