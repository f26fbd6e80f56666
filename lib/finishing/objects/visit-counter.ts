/**
 * Counts a walk's visits (objects, content operators) against the document's
 * `objects` total a batch at a time: a spend per visit would cost more than
 * the visit, a batch keeps the count exact within BATCH and the deadline
 * checked every BATCH visits.
 */
import type { DocumentBudget } from '../../budget/document-budget.js';

const BATCH = 1024;

/** What a walk counts its visits with; `done()` spends the visits of the last, partial batch. */
export type VisitCounter = { visit(): void; done(): void };

/** A counter of visits that spends from `budget`'s `objects` total. */
export function visitCounter(budget: DocumentBudget): VisitCounter {
  let pending = 0;
  return {
    visit() {
      pending += 1;
      if (pending === BATCH) {
        pending = 0;
        budget.spend('objects', BATCH);
      }
    },
    done() {
      if (pending > 0) budget.spend('objects', pending);
      pending = 0;
    },
  };
}
