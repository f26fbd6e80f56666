import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { PNG } from 'pngjs';
import { CHROMIUM_LAYER_DIR } from '../../scripts/build-layer.js';
import { b64, startService, type RunningService } from '../helpers/service.js';

/**
 * npm start renders with the Chromium layer's fonts and nothing else, as the
 * rendering functions do on Lambda (whose only fonts are the layer's and the
 * Open Sans @sparticuz/chromium brings): the same request gives the same
 * document locally and on AWS.
 */

const TEXT = '<p style="font:24px sans-serif">日本語の文章 简体中文 繁體中文 한국어 😀🎉</p>';

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

/** What the layer installs, by PostScript name: its files' names (the emoji's numbered slices are one font). */
function layerFontNames(): Set<string> {
  return new Set(
    readdirSync(join(CHROMIUM_LAYER_DIR, 'fonts'))
      .filter((file) => /\.(otf|ttf)$/.test(file))
      .map((file) => file.replace(/\.(otf|ttf)$/, '').replace(/-\d+$/, '')),
  );
}

describe('fonts of local renders', () => {
  let service: RunningService;

  before(async () => {
    service = await startService();
  });
  after(() => service?.stop());

  it('embeds the layer\'s Noto CJK and colour emoji fonts in a PDF, and no font of this machine', async () => {
    // Act
    const response = await service.request('/v1/pdf', { json: { page: { html: b64(TEXT) } } });
    assert.equal(response.status, 200, service.output());
    const fonts = await embeddedFonts(new Uint8Array(await response.arrayBuffer()));

    // Assess: Chinese/Japanese, Korean and emoji each drawn with a layer font...
    const layer = layerFontNames();
    assert.ok(fonts.some((name) => /^NotoSans(JP|Hans|Hant)-/.test(name)), `no Noto CJK font in ${fonts.join(', ')}`);
    assert.ok(fonts.includes('NotoSansKR-Regular'), `no Korean font in ${fonts.join(', ')}`);
    assert.ok(fonts.includes('NotoColorEmoji'), `no colour emoji font in ${fonts.join(', ')}`);
    // ...and every embedded font is the layer's or @sparticuz/chromium's Open Sans
    const foreign = fonts.filter((name) => !layer.has(name) && !name.startsWith('OpenSans-'));
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
