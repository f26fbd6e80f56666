import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { drawingCapturer, withFinishing } from '../../../lib/document-renderer.js';
import { InputPdfError } from '../../../lib/pdf/errors.js';
import { planPageImages, renderPageImages } from '../../../lib/finishing/images/page-images.js';
import { imageSize } from 'image-size';
import { PlanStepError } from '../../../lib/render/errors.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';

/**
 * renderPageImages in the real Chromium: a page PDF.js cannot draw is an
 * InputPdfError naming the page, answered within seconds, never a blank image;
 * the pages of one request are drawn in one page load, each captured apart.
 */
describe('renderPageImages', () => {
  let renderer: Renderer;

  before(async () => {
    renderer = createRenderer({ mode: 'multi-process', timeoutMs: 30_000, egress: localEgress });
    await renderer.warm();
  });

  after(async () => {
    await renderer?.close();
  });

  it('throws InputPdfError when PDF.js cannot read the document, rather than capture a blank canvas', async () => {
    // Prepare: bytes that start like a PDF and hold nothing PDF.js can read.
    const broken = new TextEncoder().encode('%PDF-1.7\nnothing here\n%%EOF\n');
    const document = withFinishing(renderer, 30_000);

    // Act
    const drawing = renderPageImages(
      { pages: [{ index: 0, width: 50, height: 50 }], standardFonts: false, pdf: broken },
      { type: 'png', pages: '1', size: { width: 50 } },
      drawingCapturer(document),
      () => 25_000,
      (error) => error instanceof PlanStepError && error.step === 'element',
    );

    // Assess
    await assert.rejects(drawing, (error: unknown) => error instanceof InputPdfError && /Page 1 could not be drawn/.test(error.message));
  });

  it('draws the pages of one request in one render (PDF.js loaded once), each page its own image in page order', async () => {
    // Prepare: four pages, each a different colour across the whole page.
    const colours = ['#d00', '#0a0', '#00c', '#fb0'];
    const html = colours.map((colour) => `<div style="height:10in;background:${colour};break-after:page"></div>`).join('');
    const printed = await renderer.render(buildRenderPlan({ output: 'PDF', page: { html: Buffer.from(html).toString('base64') }, pdf: { printBackground: true, margin: { top: 0, bottom: 0, left: 0, right: 0 } } }));
    const pdf = new Uint8Array(printed.body);
    const plan = { type: 'png' as const, pages: '', size: { width: 60 } };
    const document = withFinishing(renderer, 30_000);
    let renders = 0;

    // Act
    const images = await renderPageImages(
      await planPageImages(pdf, plan, unboundedBudget()),
      plan,
      (capture, timeoutMs) => {
        renders += 1;
        return drawingCapturer(document)(capture, timeoutMs);
      },
      () => 25_000,
      () => false,
    );

    // Assess
    assert.equal(renders, 1);
    assert.deepEqual(images.map((image) => image.page), [1, 2, 3, 4]);
    for (const image of images) assert.deepEqual([imageSize(image.body).width, imageSize(image.body).height], [60, image.height]);
    assert.equal(new Set(images.map((image) => Buffer.from(image.body).toString('base64'))).size, 4, 'four different pages');
  });
});
