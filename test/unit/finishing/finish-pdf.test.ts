import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finishPdf, type PdfStep } from '../../../lib/finishing/finish-pdf.js';

const append = (tag: string): PdfStep => async (pdf) => new Uint8Array([...pdf, tag.charCodeAt(0)]);

describe('finishPdf', () => {
  it('runs the steps in the documented order whatever order they are given in', async () => {
    // Prepare
    const steps = { protect: append('P'), attach: append('T'), assemble: append('A'), archive: append('R'), stamp: append('S') };
    // Act
    const out = await finishPdf(new Uint8Array(), steps);
    // Assess
    assert.equal(String.fromCharCode(...out), 'ASRTP');
  });

  it('answers the printed bytes themselves when nothing is asked', async () => {
    const pdf = new Uint8Array([1, 2, 3]);
    assert.equal(await finishPdf(pdf, {}), pdf);
  });
});
