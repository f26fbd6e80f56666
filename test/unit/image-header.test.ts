import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { MAX_PNG_TEXT_BYTES, pngDataProblem, pngInflatedBytes, readImageHeader } from '../../lib/input/image-header.js';
import { ihdr, jpegHeader, pngChunk, zeroPng } from '../helpers/hostile-images.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A PNG whose header declares `width` × `height` with a token of data: enough for the header reader, which decodes nothing. */
const declaredPng = (width: number, height: number) => Buffer.concat([SIGNATURE, ihdr(width, height), pngChunk('IDAT', deflateSync(Buffer.alloc(1))), pngChunk('IEND')]);

describe('readImageHeader', () => {
  it('reads any dimensions a PNG header declares, without decoding its data', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 2 ** 32 - 1 }), (width, height) => {
        assert.deepEqual(readImageHeader(declaredPng(width, height)), { kind: 'png', width, height });
      }),
    );
  });

  it('reads any dimensions a JPEG frame header declares, behind fill bytes and restart markers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65_535 }), fc.integer({ min: 1, max: 65_535 }), fc.constantFrom(1, 3, 4), (width, height, components) => {
        const jpeg = jpegHeader(width, height, components);
        assert.deepEqual(readImageHeader(jpeg), { kind: 'jpeg', width, height });
        const padded = Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xd0, 0xff, 0xff]), jpeg.subarray(3)]);
        assert.deepEqual(readImageHeader(padded), { kind: 'jpeg', width, height });
      }),
    );
  });

  it('answers a problem, never throws, for every truncation of a PNG or JPEG header', () => {
    for (const image of [declaredPng(300, 200), jpegHeader(300, 200)]) {
      for (let length = 3; length < image.length; length++) {
        const header = readImageHeader(image.subarray(0, length));
        assert.ok('problem' in header, `a ${length}-byte prefix: ${JSON.stringify(header)}`);
      }
    }
  });

  it('answers a problem or a header, never throws, whatever follows a PNG or JPEG signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(SIGNATURE, Buffer.from([0xff, 0xd8, 0xff])), fc.uint8Array({ maxLength: 300 }), (signature, rest) => {
        const header = readImageHeader(Buffer.concat([signature, rest]));
        assert.ok('problem' in header || (header.width > 0 && header.height > 0));
      }),
    );
  });

  it('refuses headers that declare nothing, an unknown format, or an animation', () => {
    const problems = [
      Buffer.concat([SIGNATURE, ihdr(0, 10), pngChunk('IDAT', deflateSync(Buffer.alloc(1))), pngChunk('IEND')]),
      Buffer.concat([SIGNATURE, ihdr(10, 10, { depth: 8, colourType: 5 }), pngChunk('IDAT'), pngChunk('IEND')]),
      Buffer.concat([SIGNATURE, pngChunk('IDAT', deflateSync(Buffer.alloc(1))), ihdr(10, 10), pngChunk('IEND')]),
      zeroPng(2, 2, { extra: [pngChunk('acTL', Buffer.alloc(8))] }),
      Buffer.concat([SIGNATURE, ihdr(10, 10), pngChunk('IEND')]),
      jpegHeader(10, 0),
      jpegHeader(10, 10, 2),
      Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02]),
      Buffer.from('GIF89a'),
    ].map((image) => readImageHeader(image));
    for (const answer of problems) assert.ok('problem' in answer, JSON.stringify(answer));
  });
});

describe('pngDataProblem', () => {
  it('accepts image data that inflates to exactly what the header declares, as real encoders write it', () => {
    for (const colorType of [0, 2, 4, 6] as const) {
      const png = new PNG({ width: 37, height: 11, colorType, inputHasAlpha: true });
      png.data.fill(200);
      assert.equal(pngDataProblem(PNG.sync.write(png, { colorType })), undefined);
    }
    assert.equal(pngDataProblem(zeroPng(9, 5, { depth: 1 })), undefined);
  });

  it('counts the rows of each Adam7 pass of an interlaced image', () => {
    // 8 × 8 grey: passes of 1×1, 1×1, 2×1, 2×2, 4×2, 4×4 and 8×4 pixels, each row with its filter byte.
    assert.equal(pngInflatedBytes(8, 8, 8, true), 2 + 2 + 3 + 2 * 3 + 2 * 5 + 4 * 5 + 4 * 9);
    assert.equal(pngInflatedBytes(1, 1, 8, true), 2);
    assert.equal(pngInflatedBytes(8, 8, 8, false), 8 * 9);
  });

  it('refuses image data that inflates to more or less than its dimensions make (a bomb behind a small header)', () => {
    const exact = pngInflatedBytes(100, 100, 8, false);
    assert.equal(pngDataProblem(zeroPng(100, 100, { inflated: exact })), undefined);
    assert.match(pngDataProblem(zeroPng(100, 100, { inflated: exact + 1 })) ?? '', /inflates to more than its 100 × 100 pixels/);
    assert.match(pngDataProblem(zeroPng(1, 1, { inflated: 100_000_000 })) ?? '', /inflates to more than/);
    assert.match(pngDataProblem(zeroPng(100, 100, { inflated: exact - 1 })) ?? '', /inflates to less than/);
    const garbage = Buffer.concat([SIGNATURE, ihdr(2, 2), pngChunk('IDAT', Buffer.from('not zlib')), pngChunk('IEND')]);
    assert.match(pngDataProblem(garbage) ?? '', /not a zlib stream/);
  });

  it('refuses compressed text chunks that inflate past their bound', () => {
    const ztxt = (bytes: number) => pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0'), deflateSync(Buffer.alloc(bytes))]));
    const itxt = (bytes: number) => pngChunk('iTXt', Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\x01\0\0\0'), deflateSync(Buffer.alloc(bytes))]));
    assert.equal(pngDataProblem(zeroPng(2, 2, { extra: [ztxt(1000), itxt(1000)] })), undefined);
    assert.match(pngDataProblem(zeroPng(2, 2, { extra: [ztxt(MAX_PNG_TEXT_BYTES + 1)] })) ?? '', /compressed text/);
    assert.match(pngDataProblem(zeroPng(2, 2, { extra: [itxt(MAX_PNG_TEXT_BYTES / 2), itxt(MAX_PNG_TEXT_BYTES / 2 + 1)] })) ?? '', /compressed text/);
  });
});
