import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { PNG } from 'pngjs';
import { archiveStep } from '../../../lib/finishing/steps/archive/archive.js';
import { attachStep } from '../../../lib/finishing/steps/attach/attachments.js';
import { BudgetDeadlineError, documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { compressStep } from '../../../lib/finishing/steps/compress/compress.js';
import type { DocumentEdit } from '../../../lib/finishing/pipeline/step-types.js';
import { stampStep } from '../../../lib/finishing/steps/stamp/watermark.js';

const png = () => {
  const image = new PNG({ width: 4, height: 4 });
  return PNG.sync.write(image);
};

const STEPS: Array<[string, DocumentEdit]> = [
  ['compress', compressStep({ imageQuality: 80, maxImageDpi: 150, grayscale: false })],
  ['stamp', stampStep({ mark: { image: { kind: 'png', bytes: png() } }, opacity: 1, rotation: 0, position: 'center', layer: 'over', pages: '' }, () => Promise.reject(new Error('no text')))],
  ['archive', archiveStep({ metadata: {}, producer: 'DocRender', pdfa: 'PDF/A-2b' })],
  ['attach', attachStep([{ name: 'a.txt', content: Buffer.from('a'), mimeType: 'text/plain', relationship: 'Data' }])],
];

describe('the steps and the budget', () => {
  for (const [name, step] of STEPS) {
    it(`${name} stops at the deadline of the budget it is given`, async () => {
      // Prepare
      const doc = await PDFDocument.create({ updateMetadata: false });
      doc.addPage([612, 792]);
      const spent = documentBudget({ at: Date.now() - 1, budgetMs: 1_000 });

      // Act, Assess
      await assert.rejects(async () => step.edit(doc, spent), BudgetDeadlineError);
    });
  }

  it('archive follows an opening action whose /Next chain loops, once', async () => {
    // Prepare: two actions naming each other as next
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([612, 792]);
    const first = doc.context.nextRef();
    const second = doc.context.register(doc.context.obj({ S: 'GoTo', D: [0, 'Fit'], Next: first }));
    doc.context.assign(first, doc.context.obj({ S: 'GoTo', D: [0, 'Fit'], Next: second }));
    doc.catalog.set(PDFName.of('OpenAction'), first);

    // Act
    await archiveStep({ metadata: {}, producer: 'DocRender', pdfa: 'PDF/A-2b' }).edit(doc, unboundedBudget());

    // Assess: nothing forbidden in it, so it stays
    assert.equal(doc.catalog.get(PDFName.of('OpenAction')), first);
  });
});
