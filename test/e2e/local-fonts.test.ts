import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { PNG } from 'pngjs';
import { LAYER_EMOJI, LAYER_FONTS } from '../../lib/fonts/layer-fonts.js';
import { b64, startService, type RunningService } from '../helpers/service.js';

/**
 * npm start renders with the Chromium layer's fonts and nothing else, as the
 * rendering functions do on Lambda (whose only fonts are the layer's and the
 * Open Sans @sparticuz/chromium brings, which no rule prefers): the same
 * request gives the same document locally and on AWS.
 */

const TEXT = '<p style="font:24px sans-serif">Invoice ₹ 1,200 日本語の文章 简体中文 繁體中文 한국어 مرحبا ভাষা 😀🎉</p>';

/** The PostScript names of the fonts a PDF embeds, without their subset prefix (`ABCDEF+`). */
async function embeddedFonts(pdf: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const names = new Set<string>();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Type'))?.toString() !== '/FontDescriptor') continue;
    names.add(String(object.get(PDFName.of('FontName'))).replace(/^\/([A-Z]{6}\+)?/, ''));
  }
  return [...names].sort();
}

/** What the layer installs, by PostScript name: every face of the catalogue, read from its package's files, and the colour emoji. */
function layerFontNames(): Set<string> {
  const require = createRequire(import.meta.url);
  const fontkit = require('@cantoo/fontkit') as { openSync(path: string): { postscriptName: string } };
  const names = new Set<string>();
  for (const font of [...LAYER_FONTS, { pkg: LAYER_EMOJI.pkg, files: { regular: LAYER_EMOJI.file, bold: undefined } }]) {
    const pkgDir = fileURLToPath(new URL(`../../node_modules/${font.pkg}/`, import.meta.url));
    for (const file of [font.files.regular, font.files.bold]) if (file !== undefined) names.add(fontkit.openSync(join(pkgDir, file)).postscriptName);
  }
  return names;
}

describe('fonts of local renders', () => {
  let service: RunningService;

  before(async () => {
    service = await startService();
  });
  after(() => service?.stop());

  it('embeds the layer\'s faces for each script (Noto Sans, Arabic, Bengali, CJK, colour emoji) in a PDF, and no font of this machine', async () => {
    // Act
    const response = await service.request('/v1/pdf', { json: { page: { html: b64(TEXT) } } });
    assert.equal(response.status, 200, service.output());
    const fonts = await embeddedFonts(new Uint8Array(await response.arrayBuffer()));

    // Assess: Chinese/Japanese, Korean and emoji each drawn with a layer font...
    const layer = layerFontNames();
    assert.ok(fonts.some((name) => /^NotoSans(JP|Hans|Hant)-/.test(name)), `no Noto CJK font in ${fonts.join(', ')}`);
    assert.ok(fonts.includes('NotoSansKR-Regular'), `no Korean font in ${fonts.join(', ')}`);
    assert.ok(fonts.includes('NotoColorEmoji'), `no colour emoji font in ${fonts.join(', ')}`);
    // ...Latin and the rupee in the default face, Arabic and Bengali in theirs...
    for (const name of ['NotoSans-Regular', 'NotoSansArabic-Regular', 'NotoSansBengali-Regular']) assert.ok(fonts.includes(name), `no ${name} in ${fonts.join(', ')}`);
    // ...and every embedded font is a face of the catalogue (Open Sans only where a page names it)
    const foreign = fonts.filter((name) => !layer.has(name));
    assert.deepEqual(foreign, []);
  });

  it('draws emoji in colour in a screenshot', async () => {
    // Act
    const html = '<body style="margin:0;background:#fff"><div style="font:80px/120px sans-serif">😀</div></body>';
    const response = await service.request('/v1/screenshot', {
      json: { page: { html: b64(html) }, screenshot: { viewport: { width: 120, height: 120 } } },
    });
    assert.equal(response.status, 200, service.output());
    const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));

    // Assess: monochrome or missing glyphs have (next to) no saturated pixels
    let colourPixels = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [r, g, b] = [png.data[i] as number, png.data[i + 1] as number, png.data[i + 2] as number];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colourPixels += 1;
    }
    assert.ok(colourPixels > 500, `only ${colourPixels} coloured pixels`);
  });
});
