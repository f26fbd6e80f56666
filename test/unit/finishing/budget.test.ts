import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetDeadlineError, DocumentBudgetError, documentBudget } from '../../../lib/budget/document-budget.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import type { PdfStep } from '../../../lib/finishing/pipeline/step-types.js';

describe('documentBudget', () => {
  it('lets work go on before its deadline and stops it with BudgetDeadlineError after', () => {
    // Prepare
    const open = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000 });
    const spent = documentBudget({ at: Date.now() - 1, budgetMs: 5_000 });

    // Act, Assess
    assert.doesNotThrow(() => open.check());
    assert.throws(() => spent.check(), (error: unknown) => error instanceof BudgetDeadlineError && error.budgetMs === 5_000);
    assert.equal(spent.signal.aborted, true);
    assert.equal(open.signal.aborted, false);
  });

  it('counts every total across calls and refuses the spend that passes it', () => {
    // Prepare
    const budget = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { objects: 10 } });

    // Act
    budget.spend('objects', 6);
    budget.spend('objects', 4);

    // Assess
    assert.equal(budget.left('objects'), 0);
    assert.throws(() => budget.spend('objects', 1), (error: unknown) => error instanceof DocumentBudgetError && error.total === 'objects' && error.limit === 10);
    assert.ok(budget.left('pixels') > 0, 'each total is counted on its own');
  });

  it('aborts its signal when the deadline passes, for asynchronous work', async () => {
    // Prepare
    const budget = documentBudget({ at: Date.now() + 20, budgetMs: 20 });

    // Act
    await new Promise((resolve) => setTimeout(resolve, 60));

    // Assess
    assert.equal(budget.signal.aborted, true);
    assert.ok(budget.signal.reason instanceof BudgetDeadlineError);
  });
});

describe('finishPdf with a budget', () => {
  it('stops a step that checks the budget in its loop once the deadline has passed, and runs no step after it', async () => {
    // Prepare: a step that would spin for 10 s, checking the budget at every turn as steps do.
    const budget = documentBudget({ at: Date.now() + 50, budgetMs: 50 });
    let laterRan = false;
    const spin: PdfStep = async (pdf, spending) => {
      const until = Date.now() + 10_000;
      while (Date.now() < until) spending.check();
      return pdf;
    };
    const later: PdfStep = async (pdf) => {
      laterRan = true;
      return pdf;
    };
    const started = Date.now();

    // Act, Assess
    await assert.rejects(finishPdf(new Uint8Array([1]), { assemble: spin, protect: later }, budget), BudgetDeadlineError);
    assert.ok(Date.now() - started < 5_000, 'the step stopped at the deadline, not when its own work ended');
    assert.equal(laterRan, false);
  });
});
