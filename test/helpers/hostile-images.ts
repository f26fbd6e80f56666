/**
 * PNG and JPEG files built in code for the decoder bounds' tests: valid
 * headers declaring what a test needs, with as little data as makes them
 * well-formed (a PNG of zeros deflates about 1000 to 1).
 */
import { crc32, deflateSync } from 'node:zlib';

/** One PNG chunk: length, type, body, CRC over type and body. */
export function pngChunk(type: string, body: Uint8Array = new Uint8Array()): Buffer {
  const typeAndBody = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndBody));
  return Buffer.concat([length, typeAndBody, crc]);
}

export function ihdr(width: number, height: number, { depth = 8, colourType = 0, interlace = 0 } = {}): Buffer {
  const body = Buffer.alloc(13);
  body.writeUInt32BE(width, 0);
  body.writeUInt32BE(height, 4);
  body.set([depth, colourType, 0, 0, interlace], 8);
  return pngChunk('IHDR', body);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG of `width` × `height` 8-bit grey (or what `options` say) pixels, all
 * zero, or with `inflated` bytes of zeros as its image data when given (a
 * lie about its size), and any `extra` chunks before the data.
 */
export function zeroPng(width: number, height: number, options: { depth?: number; colourType?: number; inflated?: number; extra?: Buffer[] } = {}): Buffer {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[options.colourType ?? 0] ?? 1;
  const rowBytes = Math.ceil((width * channels * (options.depth ?? 8)) / 8) + 1;
  const raw = Buffer.alloc(options.inflated ?? rowBytes * height);
  return Buffer.concat([SIGNATURE, ihdr(width, height, options), ...(options.extra ?? []), pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND')]);
}

/** A baseline JPEG's header up to its frame header (SOF0) declaring `width` × `height`, with an APP0 segment before it. */
export function jpegHeader(width: number, height: number, components = 3): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof = Buffer.alloc(2 + 2 + 6 + components * 3);
  sof.set([0xff, 0xc0]);
  sof.writeUInt16BE(8 + components * 3, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  sof[9] = components;
  for (let c = 0; c < components; c++) sof.set([c + 1, 0x11, 0], 10 + c * 3);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}
