import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumTextDrawer, watermarkTextPage } from '../../../lib/finishing/steps/stamp/watermark-text.js';
import type { PageFontsPlan } from '../../../lib/fonts/user-fonts/page-fonts.js';

/** An account's font set as the edge gives it (only its key and faces matter to the drawer). */
const fontsOf = (key: string): PageFontsPlan => ({
  key,
  faces: [{ id: `fnt_${key}`, family: 'Brand Sans', weight: 400, style: 'normal', format: 'ttf', sha256: key.repeat(64).slice(0, 64) }],
  bytes: async () => undefined,
});

describe('chromiumTextDrawer with account fonts', () => {
  it("never hands one account's stamp, drawn with its fonts, to another account stamping the same text", async () => {
    // Prepare: each print answers with the font set it was drawn with.
    const prints: Array<string | undefined> = [];
    const drawer = chromiumTextDrawer(async (_html, _timeoutMs, fonts) => {
      prints.push(fonts?.key);
      return { body: new TextEncoder().encode(fonts?.key ?? 'layer') };
    });
    const stamp = { text: 'PAID', fontSize: 40, color: '#ff0000' };

    // Act
    const tenantA = await drawer(() => 10_000, fontsOf('a'))(stamp);
    const tenantB = await drawer(() => 10_000, fontsOf('b'))(stamp);
    const noFonts = await drawer(() => 10_000)(stamp);
    const tenantAAgain = await drawer(() => 10_000, fontsOf('a'))(stamp);

    // Assess
    assert.equal(new TextDecoder().decode(tenantA), 'a');
    assert.equal(new TextDecoder().decode(tenantB), 'b');
    assert.equal(new TextDecoder().decode(noFonts), 'layer');
    assert.equal(new TextDecoder().decode(tenantAAgain), 'a');
    assert.deepEqual(prints, ['a', 'b', undefined], 'each font set printed once, then reused for its own account only');
  });
});

describe('a watermark text in a family of its own', () => {
  it('asks for the family first, quoted, and the layer\'s sans-serif after it; a generic family unquoted; none, sans-serif', () => {
    const style = (fontFamily?: string) => /font-family:([^;]*);/.exec(watermarkTextPage({ text: 'PAID', fontSize: 40, color: '#f00', ...(fontFamily ? { fontFamily } : {}) }))?.[1];
    assert.equal(style('Brand Sans'), '"Brand Sans", sans-serif');
    assert.equal(style('Serif'), 'serif, sans-serif');
    assert.equal(style(), 'sans-serif');
  });

  it('draws the same text in two families twice, each kept under its family', async () => {
    const pages: string[] = [];
    const drawer = chromiumTextDrawer(async (html) => {
      pages.push(html);
      return { body: new TextEncoder().encode(String(pages.length)) };
    });
    const draw = drawer(() => 10_000, fontsOf('a'));
    const plain = await draw({ text: 'PAID', fontSize: 40, color: '#f00' });
    const brand = await draw({ text: 'PAID', fontSize: 40, color: '#f00', fontFamily: 'Brand Sans' });
    const brandAgain = await draw({ text: 'PAID', fontSize: 40, color: '#f00', fontFamily: 'Brand Sans' });
    assert.deepEqual([plain, brand, brandAgain].map((body) => new TextDecoder().decode(body)), ['1', '2', '2']);
    assert.ok(pages[1]?.includes('font-family:"Brand Sans", sans-serif'));
  });
});
