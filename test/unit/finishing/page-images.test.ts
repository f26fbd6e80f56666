import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { planPageImages } from '../../../lib/finishing/images/page-images.js';

describe('planPageImages', () => {
  it('sizes a page without /MediaBox as US Letter, and a turned page by its crop box as shown', async () => {
    // Prepare
    const doc = await PDFDocument.create({ updateMetadata: false });
    const bare = doc.addPage([300, 300]);
    bare.node.delete(PDFName.of('MediaBox'));
    doc.catalog.lookup(PDFName.of('Pages'), PDFDict).delete(PDFName.of('MediaBox'));
    const turned = doc.addPage([612, 792]);
    turned.node.set(PDFName.of('CropBox'), doc.context.obj([100, 100, 500, 700]));
    turned.node.set(PDFName.of('Rotate'), doc.context.obj(90));
    const pdf = await doc.save();

    // Act
    const planned = await planPageImages(pdf, { type: 'png', pages: '', size: { dpi: 72 } }, unboundedBudget());

    // Assess
    assert.deepEqual(planned.pages, [
      { index: 0, width: 612, height: 792 },
      { index: 1, width: 600, height: 400 },
    ]);
  });
});
