import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { base64TextPattern, decodeBase64Text, tryDecodeBase64Text } from '../../../lib/validation/base64-text.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('decodeBase64Text', () => {
  it('decodes standard base64 to the UTF-8 text the client encoded', () => {
    assert.equal(decodeBase64Text(b64('<p>Grüße aus 東京 🎉</p>')), '<p>Grüße aus 東京 🎉</p>');
  });

  it('ignores line breaks and spaces, as the base64 CLI wraps its output', () => {
    // Prepare
    const html = `<main>${'x'.repeat(200)}</main>`;
    const wrapped = ` ${b64(html).replace(/(.{76})/g, '$1\r\n')}\n\t`;
    // Act / Assess
    assert.equal(decodeBase64Text(wrapped), html);
  });

  it('accepts base64 without its padding', () => {
    assert.equal(decodeBase64Text(b64('<b>a</b>!').replace(/=+$/, '')), '<b>a</b>!');
    assert.equal(decodeBase64Text(b64('ab').replace(/=+$/, '')), 'ab');
  });

  it('drops a leading byte order mark', () => {
    assert.equal(decodeBase64Text(Buffer.from('\ufeff<p>x</p>', 'utf8').toString('base64')), '<p>x</p>');
  });

  it('decodes the empty string to the empty string', () => {
    assert.equal(decodeBase64Text(''), '');
  });

  const invalid: Array<[string, string]> = [
    ['the URL-safe alphabet', 'PHA-Pz4_PC9wPg=='],
    ['characters outside the alphabet', '<p>hello</p>'],
    ['padding in the middle', 'QQ==QQ=='],
    ['too much padding', 'Q==='],
    ['a wrong padded length', 'QQ='],
    ['a single character', 'Q'],
    ['five unpadded characters', 'QUJDR'],
  ];
  for (const [what, input] of invalid) {
    it(`throws "Must be valid base64" for ${what}`, () => {
      assert.throws(() => decodeBase64Text(input), { name: 'TypeError', message: 'Must be valid base64' });
    });
  }

  it('throws "Must be base64-encoded UTF-8 text" for bytes that are not UTF-8', () => {
    for (const bytes of [[0xff, 0xfe, 0x3c], [0xc3, 0x28], [0xe2, 0x82]]) {
      assert.throws(() => decodeBase64Text(Buffer.from(bytes).toString('base64')), {
        message: 'Must be base64-encoded UTF-8 text',
      });
    }
  });
});

describe('tryDecodeBase64Text', () => {
  it('reports the problem instead of throwing', () => {
    assert.deepEqual(tryDecodeBase64Text('***'), { ok: false, problem: 'Must be valid base64' });
    assert.deepEqual(tryDecodeBase64Text(b64('ok')), { ok: true, text: 'ok' });
  });
});

describe('base64TextPattern', () => {
  // Strings of base64 characters, padding and whitespace (and a stray character), in any order.
  const base64ish = fc.string({ unit: fc.constantFrom(...'AZaz09+/=\t\n\f\r -_!'), maxLength: 14 });
  const patterns = { any: new RegExp(base64TextPattern(false), 'u'), nonEmpty: new RegExp(base64TextPattern(true), 'u') };

  it('matches exactly the strings the decoder reads as base64, whatever their bytes', () => {
    fc.assert(
      fc.property(base64ish, (encoded) => {
        // Act
        const result = tryDecodeBase64Text(encoded);
        // Assess: UTF-8 is the one rule the pattern leaves out.
        const readAsBase64 = result.ok || result.problem !== 'Must be valid base64';
        assert.equal(patterns.any.test(encoded), readAsBase64, JSON.stringify(encoded));
      }),
      { numRuns: 5000 },
    );
  });

  it('with nonEmpty, also asks for at least one decoded byte', () => {
    fc.assert(
      fc.property(base64ish, (encoded) => {
        const result = tryDecodeBase64Text(encoded);
        const readAsBase64 = result.ok || result.problem !== 'Must be valid base64';
        const someBytes = readAsBase64 && Buffer.from(encoded.replace(/[\t\n\f\r ]/g, ''), 'base64').length > 0;
        assert.equal(patterns.nonEmpty.test(encoded), someBytes, JSON.stringify(encoded));
      }),
      { numRuns: 5000 },
    );
  });
});
