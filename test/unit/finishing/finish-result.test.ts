import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { startDeadline } from '../../../lib/deadline.js';
import { finishResult } from '../../../lib/document-renderer.js';
import { RenderTimeoutError } from '../../../lib/errors.js';
import type { PdfStep } from '../../../lib/finishing/pipeline/step-types.js';

/** A print's bytes as far as the page count reads them: a root of 730 pages. */
const PRINTED = Buffer.from('%PDF-1.4\n50 0 obj\n<</Type /Pages\n/Count 730\n/Kids []>>\nendobj\n%%EOF', 'latin1');

describe('finishResult', () => {
  it('says how far a document got when the budget runs out in its finishing: the pages printed, in the message and on the error', async () => {
    // Prepare: a finishing step slower than the 50 ms left
    const slow: PdfStep = async (pdf) => new Promise((resolve) => setTimeout(() => resolve(pdf), 500));
    const result = { body: PRINTED, contentType: 'application/pdf' as const, output: 'PDF' as const, timings: {} };

    // Act
    const failure = await finishResult(result, { protect: slow }, startDeadline(50), unboundedBudget()).then(
      () => undefined,
      (error: unknown) => error,
    );

    // Assess
    assert.ok(failure instanceof RenderTimeoutError);
    assert.equal(failure.pagesPrinted, 730);
    assert.match(failure.message, /in the finishing of the 730 printed pages$/);
  });

  it('counts the pages of the document the finishing opened', async () => {
    const { PDFDocument } = await import('@cantoo/pdf-lib');
    const doc = await PDFDocument.create();
    for (let i = 0; i < 4; i += 1) doc.addPage([100, 100]);
    const result = { body: Buffer.from(await doc.save()), contentType: 'application/pdf' as const, output: 'PDF' as const, timings: {} };

    const finished = await finishResult(result, { stamp: { edit: (opened) => void opened.removePage(0) } }, startDeadline(10_000), unboundedBudget());

    assert.equal(finished.pageCount, 3);
  });
});
