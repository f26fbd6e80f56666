import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { missingGlyphsHeader } from '../../../lib/glyphs/glyph-report.js';
import { describeMissingGlyphs, parseMissingGlyphs } from '../../../studio/src/missing-glyphs.js';

/** The studio's line for a report, read from the header exactly as the service writes it. */
const lineFor = (report: Parameters<typeof missingGlyphsHeader>[0]) => {
  const parsed = parseMissingGlyphs(missingGlyphsHeader(report));
  assert.ok(parsed);
  return describeMissingGlyphs(parsed);
};

describe("the studio's missing-glyph line", () => {
  it('names the characters and the first page, in code point order', () => {
    assert.equal(lineFor({ count: 3, firstPage: 2, codePoints: ['U+E001', 'U+E000'] }), '3 characters no font draws: U+E000, U+E001 (first on page 2)');
  });

  it('says one character, and no page for a screenshot', () => {
    assert.equal(lineFor({ count: 1, codePoints: ['U+E000'] }), '1 character no font draws: U+E000');
  });

  it('counts what it does not name, and says when the check stopped early', () => {
    // Prepare
    const codePoints = Array.from({ length: 12 }, (_, i) => `U+${(0xe000 + i).toString(16).toUpperCase()}`);

    // Act
    const line = lineFor({ count: 20, firstPage: 1, codePoints, partial: true });

    // Assess
    assert.equal(line, '20 characters no font draws: U+E000, U+E001, U+E002, U+E003, U+E004, U+E005, U+E006, U+E007 and 4 more (first on page 1); the check stopped early, there may be more');
  });

  it('says "over" of a list the service cut to keep its header short', () => {
    // Prepare: 64 code points of six hex digits do not fit in a header
    const codePoints = Array.from({ length: 64 }, (_, i) => `U+${(0xf0000 + i).toString(16).toUpperCase()}`);

    // Act
    const line = lineFor({ count: 64, firstPage: 3, codePoints });

    // Assess
    assert.match(line, /^64 characters no font draws: U\+F0000, (U\+F000\d, ){6}U\+F0007 and over \d+ more \(first on page 3\)$/);
  });

  it('shows nothing without the header', () => {
    assert.equal(parseMissingGlyphs(null), null);
    assert.equal(parseMissingGlyphs(''), null);
  });
});
