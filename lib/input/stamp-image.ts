/**
 * A caller's stamp image (a watermark's, a visible signature's): base64 PNG
 * or JPEG bytes, their header read and held to the limits before anything
 * decodes their pixels (image-header.ts), and a PNG's compressed data held
 * to what its header declares. The schema's check, its message and the
 * plan all ask `decodeStampImage`, which keeps its last answer.
 */
import * as v from 'valibot';
import { imageKind, pngDataProblem, readImageHeader } from './image-header.js';

/** Largest stamp image, decoded. */
export const MAX_STAMP_IMAGE_BYTES = 1024 * 1024;
/**
 * Most pixels a stamp image may declare (16 megapixels, 4096 × 4096: a
 * full page at 300 dpi is 8.7). pdf-lib decodes a PNG to 4 bytes a pixel and
 * splits that again: at this bound a 16-bit RGBA PNG took 3.4 s and 260 MB
 * to embed and save (8-bit grey 1.0 s and 140 MB; docs/security.md).
 */
export const MAX_STAMP_IMAGE_PIXELS = 4096 * 4096;
/** Longest side of a stamp image in pixels: 85 inches at the 96 dpi it is drawn at. */
export const MAX_STAMP_IMAGE_EDGE = 8192;

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

export type StampImage = { kind: 'png' | 'jpeg'; bytes: Buffer };

/** The image's bytes and kind, or why it cannot be drawn. */
export function decodeStampImage(encoded: string): StampImage | { problem: string } {
  if (lastImage?.encoded !== encoded) lastImage = { encoded, decoded: decodeUncached(encoded) };
  return lastImage.decoded;
}

let lastImage: { encoded: string; decoded: StampImage | { problem: string } } | undefined;

function decodeUncached(encoded: string): StampImage | { problem: string } {
  if (!BASE64.test(encoded)) return { problem: 'Must be valid base64' };
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length > MAX_STAMP_IMAGE_BYTES) return { problem: 'Must be at most 1 MB decoded' };
  if (imageKind(bytes) === undefined) return { problem: 'Must be a base64 PNG or JPEG image' };
  const header = readImageHeader(bytes);
  if ('problem' in header) return header;
  const { kind, width, height } = header;
  if (width > MAX_STAMP_IMAGE_EDGE || height > MAX_STAMP_IMAGE_EDGE || width * height > MAX_STAMP_IMAGE_PIXELS) {
    return { problem: `Must be at most ${MAX_STAMP_IMAGE_EDGE} pixels on each side and ${MAX_STAMP_IMAGE_PIXELS} pixels in all; it declares ${width} × ${height}` };
  }
  const dataProblem = kind === 'png' ? pngDataProblem(bytes) : undefined;
  return dataProblem ? { problem: dataProblem } : { kind, bytes };
}

/** A stamp image field: a string that decodes to a PNG or JPEG within the limits. */
export const StampImageSchema = v.pipe(
  v.string('Must be a string'),
  // Checked on the encoded length first: decoding 5 MB only to refuse it is work for nothing.
  v.maxLength(Math.ceil(MAX_STAMP_IMAGE_BYTES / 3) * 4 + 1024, 'Must be at most 1 MB decoded'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const decoded = decodeStampImage(dataset.value);
    if ('problem' in decoded) addIssue({ message: decoded.problem });
  }),
);
