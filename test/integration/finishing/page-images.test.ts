import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withFinishing } from '../../../lib/document-renderer.js';
import { InputPdfError } from '../../../lib/finishing/errors.js';
import { renderPageImages } from '../../../lib/finishing/page-images.js';
import { PlanStepError } from '../../../lib/render/errors.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';

/**
 * renderPageImages in the real Chromium: a page PDF.js cannot draw is an
 * InputPdfError naming the page, answered within seconds, never a blank image.
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
      broken,
      { pages: [{ index: 0, width: 50, height: 50 }], standardFonts: false },
      { type: 'png', pages: '1', size: { width: 50 } },
      (input, timeoutMs) => document.render(buildRenderPlan(input), { timeoutMs }),
      () => 25_000,
      (error) => error instanceof PlanStepError && error.step === 'element',
    );

    // Assess
    await assert.rejects(drawing, (error: unknown) => error instanceof InputPdfError && /Page 1 could not be drawn/.test(error.message));
  });
});
