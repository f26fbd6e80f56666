import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import type { WatermarkOutput } from '../../../lib/finishing/steps/stamp/definition.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { pageCountOf, pdftoppm, pdftotextPages, qpdf } from '../../helpers/pdf-tools.js';
import { b64 } from '../render/render-fixtures.js';

/**
 * pdf.watermark proven with poppler: pdftotext finds the stamp's text on
 * exactly the selected pages, and pdftoppm's pixels show it over or under the
 * content with the opacity asked for.
 */

/** A solid colour PNG, base64, as a caller sends an image watermark. */
function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): string {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([r, g, b, 255], i);
  return PNG.sync.write(png).toString('base64');
}

/** RGB of the pixel at (x, y) of a PNG. */
function pixel(page: Buffer, x: number, y: number): [number, number, number] {
  const png = PNG.sync.read(page);
  const i = (png.width * y + x) * 4;
  return [png.data[i] as number, png.data[i + 1] as number, png.data[i + 2] as number];
}

const near = (actual: number[], expected: number[], tolerance: number) =>
  actual.every((value, i) => Math.abs(value - (expected[i] as number)) <= tolerance);

const threePages = b64(`<p style="break-after:page">Invoice page one</p><p style="break-after:page">Invoice page two</p><p>Invoice page three</p>`);
// A black 100×100 px square whose centre is the centre of a US letter page (816×1056 px): 306,396 pt.
const blackSquare = b64('<div style="position:absolute;left:358px;top:478px;width:100px;height:100px;background:#000"></div>');
const noMargin = { top: 0, bottom: 0, left: 0, right: 0 };
// 300×300 px at 96 dpi is 225 pt: from 193.5 to 418.5 pt across the page centre.
const redSquare = solidPng(300, 300, [255, 0, 0]);

describe('finishing › watermark (poppler)', () => {
  let renderer: RequestRenderer;
  before(async () => {
    renderer = await warmFinishingRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  const stamp = async (html: string, watermark: WatermarkOutput, pdf: Record<string, unknown> = {}) =>
    new Uint8Array((await renderer.render({ output: 'PDF', page: { html }, pdf: { ...pdf, watermark } })).body);

  it('stamps real text on exactly the pages selected, leaving the others and the content as they were', async () => {
    // Act
    const pdf = await stamp(threePages, { text: 'PAID', pages: '2-3', fontSize: 60 });

    // Assess
    const pages = pdftotextPages(pdf, pageCountOf(pdf));
    assert.equal(pages.length, 3);
    assert.doesNotMatch(pages[0] ?? '', /PAID/);
    assert.match(pages[1] ?? '', /PAID/);
    assert.match(pages[2] ?? '', /PAID/);
    pages.forEach((text, i) => assert.match(text, new RegExp(`Invoice page ${['one', 'two', 'three'][i]}`)));
    assert.equal(qpdf(pdf, ['--check']).status, 0);
  });

  it('keeps a diagonal stamp as text, its letters in order', async () => {
    // Act
    const pdf = await stamp(threePages, { text: 'COPY', pages: '1', rotation: 45 });

    // Assess: poppler splits diagonal text into one glyph a line; in content order (-raw) the word is whole.
    const [first, second] = pdftotextPages(pdf, 2, ['-raw']).map((text) => text.replace(/\s+/g, ''));
    assert.match(first ?? '', /COPY/);
    assert.doesNotMatch(second ?? '', /COPY/);
  });

  it('draws over the content by default and under it with layer "under"', async () => {
    // Act
    const over = pdftoppm(await stamp(blackSquare, { image: redSquare }, { printBackground: true, margin: noMargin }))[0] as Buffer;
    const under = pdftoppm(await stamp(blackSquare, { image: redSquare, layer: 'under' }, { printBackground: true, margin: noMargin }))[0] as Buffer;

    // Assess: the page centre (inside the black square) and a point left of it (watermark only).
    assert.ok(near(pixel(over, 306, 396), [128, 0, 0], 12), `over the square: ${pixel(over, 306, 396)}`);
    assert.ok(near(pixel(under, 306, 396), [0, 0, 0], 12), `under the square: ${pixel(under, 306, 396)}`);
    assert.ok(near(pixel(over, 220, 396), [255, 128, 128], 12), `over, beside: ${pixel(over, 220, 396)}`);
    assert.ok(near(pixel(under, 220, 396), [255, 128, 128], 12), `under, beside: ${pixel(under, 220, 396)}`);
    assert.ok(near(pixel(over, 150, 396), [255, 255, 255], 3), 'nothing outside the watermark');
  });

  it('applies the opacity asked for, within a tolerance', async () => {
    for (const opacity of [0.2, 0.8]) {
      // Act
      const page = pdftoppm(await stamp(b64('<p></p>'), { image: redSquare, opacity }))[0] as Buffer;

      // Assess: red over white at opacity a is (255, 255·(1−a), 255·(1−a)).
      const expected = Math.round(255 * (1 - opacity));
      assert.ok(near(pixel(page, 306, 396), [255, expected, expected], 8), `opacity ${opacity}: ${pixel(page, 306, 396)}`);
    }
  });

  it('places the stamp at the anchor asked for', async () => {
    // Act
    const page = pdftoppm(await stamp(b64('<p></p>'), { image: solidPng(40, 40, [0, 0, 255]), opacity: 1, position: 'topRight' }))[0] as Buffer;

    // Assess: 40 px is 30 pt, a quarter inch (18 pt) in from the top right corner of 612×792 pt.
    assert.ok(near(pixel(page, 612 - 18 - 15, 18 + 15), [0, 0, 255], 8), 'inside the top-right stamp');
    assert.ok(near(pixel(page, 306, 396), [255, 255, 255], 3), 'not at the centre');
  });
});
