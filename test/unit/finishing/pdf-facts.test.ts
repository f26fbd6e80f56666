import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { InputPdfError } from '../../../lib/pdf/errors.js';
import { openExistingPdf } from '../../../lib/finishing/input/existing-pdf.js';
import { sharedKidsForm } from '../../helpers/field-trees.js';

describe("an existing PDF's facts", () => {
  it('answers the size a reader shows for a page without a /MediaBox (US Letter), where pdf-lib throws', async () => {
    // Prepare: a second page whose /MediaBox is gone (inherited from nowhere), turned by a /Rotate.
    const doc = await PDFDocument.create();
    doc.addPage([300, 400]);
    const bare = doc.addPage([300, 400]);
    bare.node.delete(PDFName.of('MediaBox'));
    bare.node.set(PDFName.of('Rotate'), doc.context.obj(90));
    const existing = await openExistingPdf(await doc.save(), undefined);

    // Act
    const facts = existing.facts(unboundedBudget());

    // Assess
    assert.deepEqual(facts.pages, [
      { number: 1, width: 300, height: 400, rotation: 0 },
      { number: 2, width: 612, height: 792, rotation: 90 },
    ]);
  });

  it('refuses a form whose fields share their kids as the document\'s problem, having read each node once', async () => {
    // Prepare: 16 levels, 65,536 paths through 17 fields; the budget's fields would not cover the paths.
    const existing = await openExistingPdf(await sharedKidsForm(16), undefined);
    const budget = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { fields: 100 } });

    // Act, Assess
    assert.throws(() => existing.facts(budget), (error: unknown) => error instanceof InputPdfError && /two parents/.test(error.message));
    assert.ok(budget.left('fields') >= 100 - 20, `${100 - budget.left('fields')} fields read`);
  });
});
