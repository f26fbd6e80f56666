import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYER_EMOJI } from '../../../lib/fonts/layer-fonts.js';
import { sfntChecksum, tableTags, withoutTables } from '../../../scripts/sfnt-tables.js';

const require = createRequire(import.meta.url);
const fontkit = require('@cantoo/fontkit') as {
  create(data: Uint8Array): { numGlyphs: number; layout(text: string): { glyphs: { id: number }[] } };
};
const woff2 = require('wawoff2') as { decompress(input: Uint8Array): Promise<Uint8Array> };
const pkgDir = fileURLToPath(new URL(`../../../node_modules/${LAYER_EMOJI.pkg}/`, import.meta.url));

describe('dropping tables from a font file (the layer\'s colour emoji)', () => {
  let emoji: Uint8Array;
  let stripped: Uint8Array;

  before(async () => {
    emoji = await woff2.decompress(readFileSync(join(pkgDir, LAYER_EMOJI.file)));
    stripped = withoutTables(emoji, LAYER_EMOJI.dropTables);
  });

  it('drops the SVG table and keeps every other table, byte for byte', () => {
    // Assess
    assert.ok(tableTags(emoji).includes('SVG '), 'the package\'s face has no SVG table: the build drops nothing');
    assert.deepEqual(tableTags(stripped), tableTags(emoji).filter((tag) => tag !== 'SVG '));
    assert.ok(stripped.byteLength < emoji.byteLength / 3, `${stripped.byteLength} of ${emoji.byteLength} bytes`);
  });

  it('writes a file whose checksums hold (each table\'s, and the whole file\'s through head.checksumAdjustment)', () => {
    // Assess: the whole file sums to the specification's constant.
    assert.equal(sfntChecksum(stripped), 0xb1b0afba);
    const view = new DataView(stripped.buffer, stripped.byteOffset, stripped.byteLength);
    for (let index = 0; index < view.getUint16(4); index += 1) {
      const record = 12 + index * 16;
      const tag = String.fromCharCode(...stripped.subarray(record, record + 4));
      const [offset, length] = [view.getUint32(record + 8), view.getUint32(record + 12)];
      assert.equal(offset % 4, 0, `${tag} is not 4-byte aligned`);
      const data = stripped.slice(offset, offset + length);
      if (tag === 'head') data.fill(0, 8, 12);
      assert.equal(sfntChecksum(data), view.getUint32(record + 4), `${tag}'s checksum`);
    }
  });

  it('keeps one face in which emoji sequences (ZWJ, keycap, skin tone, flag) are one glyph each', () => {
    // Act
    const font = fontkit.create(stripped);
    // Assess
    assert.equal(font.numGlyphs, fontkit.create(emoji).numGlyphs);
    for (const sequence of ['👩‍💻', '1️⃣', '👍🏽', '🇩🇪', '👨‍👩‍👧']) {
      const glyphs = font.layout(sequence).glyphs;
      assert.equal(glyphs.length, 1, `${sequence} is ${glyphs.length} glyphs`);
      assert.notEqual(glyphs[0]!.id, 0, `${sequence} is .notdef`);
    }
  });

  it('refuses what is not a TrueType or OpenType file', () => {
    assert.throws(() => withoutTables(readFileSync(join(pkgDir, LAYER_EMOJI.file)), ['SVG ']), /WOFF2 must be decoded first/);
    assert.throws(() => withoutTables(emoji.subarray(0, 40), ['SVG ']), /runs past its end/);
  });
});
