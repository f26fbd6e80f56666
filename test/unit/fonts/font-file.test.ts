import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FontFileError } from '../../../lib/fonts/user-fonts/errors.js';
import { readFontFile } from '../../../lib/fonts/user-fonts/font-file.js';
import { blackItalicTtf, collectionOf, thinItalicTtf, toWoff, toWoff2, woff2Claiming } from '../../helpers/font-files.js';

/** The reason a file is refused with, or a failed assertion when it is taken. */
async function refusal(bytes: Uint8Array): Promise<string> {
  try {
    await readFontFile(bytes);
  } catch (error) {
    assert.ok(error instanceof FontFileError, `expected FontFileError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the file to be refused');
}

describe('readFontFile', () => {
  it('reads a TrueType font: its typographic family, weight and style from the font itself', async () => {
    // Prepare
    const ttf = thinItalicTtf();

    // Act
    const font = await readFontFile(ttf);

    // Assess
    assert.equal(font.family, 'Noto Sans');
    // Its OS/2 weight class, as the font says (Google's thin faces say 250, which Windows needs), not its name's.
    assert.equal(font.weight, 250);
    assert.equal(font.style, 'italic');
    assert.equal(font.format, 'ttf');
    assert.equal(font.uploaded, 'ttf');
    assert.ok(font.sfnt.equals(ttf), 'a TrueType file is kept as it is');
    assert.match(font.sha256, /^[0-9a-f]{64}$/);
  });

  it('takes the family the caller gives over the one in the font', async () => {
    // Act
    const font = await readFontFile(thinItalicTtf(), { family: '  Brand   Sans ' });

    // Assess
    assert.equal(font.family, 'Brand Sans');
  });

  it('unpacks a WOFF2 and a WOFF to the same TrueType font', async () => {
    // Prepare
    const ttf = blackItalicTtf();
    const original = await readFontFile(ttf);

    // Act
    const fromWoff2 = await readFontFile(await toWoff2(ttf));
    const fromWoff = await readFontFile(toWoff(ttf));

    // Assess
    assert.equal(fromWoff2.uploaded, 'woff2');
    assert.equal(fromWoff2.weight, 900);
    assert.equal(fromWoff2.numGlyphs, original.numGlyphs);
    assert.equal(fromWoff.uploaded, 'woff');
    assert.deepEqual([fromWoff.family, fromWoff.weight, fromWoff.style, fromWoff.numGlyphs], [original.family, original.weight, original.style, original.numGlyphs]);
  });

  it('refuses a truncated font, saying it is cut off', async () => {
    // Act
    const reason = await refusal(thinItalicTtf().subarray(0, 4000));

    // Assess
    assert.match(reason, /Truncated font|cut off|damaged/);
  });

  it('refuses garbage and a file too short to be a font', async () => {
    assert.match(await refusal(Buffer.from('<html>not a font at all</html>')), /Not a font file/);
    assert.match(await refusal(Buffer.from('OTTO')), /Too short/);
  });

  it('refuses a WOFF2 claiming 2 GB before decoding anything', async () => {
    // Act
    const reason = await refusal(woff2Claiming(2 * 1024 ** 3));

    // Assess
    assert.match(reason, /unpacks to 2147483648 bytes, more than 30 MB/);
  });

  it('refuses a WOFF whose table claims more than it unpacks to', async () => {
    // Prepare: the first table's declared unpacked length doubled, the total left sane.
    const woff = toWoff(thinItalicTtf());
    woff.writeUInt32BE(woff.readUInt32BE(44 + 12) * 2 + 4, 44 + 12);

    // Act
    const reason = await refusal(woff);

    // Assess
    assert.match(reason, /does not unpack to its declared|longer packed/);
  });

  it('refuses a damaged WOFF2 body', async () => {
    // Prepare: the header kept, the compressed tables overwritten.
    const woff2 = await toWoff2(thinItalicTtf());
    woff2.fill(0x5a, 200);

    // Act
    const reason = await refusal(woff2);

    // Assess
    assert.match(reason, /could not be unpacked|could not be read|lacks/);
  });

  it('refuses a font collection, asking for its faces one by one', async () => {
    assert.match(await refusal(collectionOf(thinItalicTtf())), /collection/);
  });

  it('refuses a family name that is a CSS generic family or holds CSS syntax', async () => {
    await assert.rejects(readFontFile(thinItalicTtf(), { family: 'sans-serif' }), /generic family/);
    await assert.rejects(readFontFile(thinItalicTtf(), { family: 'x"; } body { color: red' }), /letters, digits/);
  });
});
