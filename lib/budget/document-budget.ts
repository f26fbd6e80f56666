/**
 * The one budget of a document's finishing (issue 45): every step of a
 * request runs against the same object, which carries the request's
 * deadline and what the document has spent so far of its totals (objects
 * visited, bytes inflated, pixels decoded, fields, headings).
 *
 * Why a clock read rather than a timer: the steps' work is synchronous
 * (pdf-lib, the content walks, the codecs), so a timer cannot fire while it
 * runs; a loop over caller data calls `check()` (or `spend()`, which checks
 * too) and the work stops where it is once the deadline has passed, instead
 * of running on after the 504 has been answered. The deadline is also an
 * `AbortSignal` for the work that is asynchronous (a print, a fetch), which
 * a timer can abort.
 *
 * Nothing here knows HTTP: the edge maps `BudgetDeadlineError` to the 504 and
 * `DocumentBudgetError` to the 400 naming the document (or the part).
 */

/** The totals a document is held to, whatever the step that spends them. */
export type BudgetTotal = 'objects' | 'inflatedBytes' | 'pixels' | 'fields' | 'headings';

/**
 * What one document may spend of each total, over all of its steps. Each is
 * far above what a real document of the input bounds needs (a 5,000-page
 * report visits a few million objects, a catalogue of images decodes a few
 * hundred megapixels) and far below what exhausts a 1,536 MB function.
 */
export const DOCUMENT_TOTALS: Readonly<Record<BudgetTotal, number>> = {
  // Dictionary, array and stream visits of every walk of the document's objects, together.
  objects: 20_000_000,
  // Decompressed bytes of every caller stream the steps inflate (content, forms, fonts, images), together.
  inflatedBytes: 1024 * 1024 * 1024,
  // Pixels of every image the steps decode, together (50 MP each at most, see image-limits).
  pixels: 1_000_000_000,
  // Form fields and widgets visited, together.
  fields: 200_000,
  // Section headings read for bands, together.
  headings: 100_000,
};

/** The deadline passed while a step was working: the edge answers the request's 504. */
export class BudgetDeadlineError extends Error {
  readonly budgetMs: number;
  constructor(budgetMs: number) {
    super(`The document's finishing did not end within ${budgetMs} ms`);
    this.name = 'BudgetDeadlineError';
    this.budgetMs = budgetMs;
  }
}

/** A caller's document that would spend more than its total of something: the edge answers a 400 naming it. */
export class DocumentBudgetError extends Error {
  readonly total: BudgetTotal;
  readonly limit: number;
  constructor(total: BudgetTotal, limit: number) {
    super(`Needs more than the ${limit.toLocaleString('en-US')} ${TOTAL_NAMES[total]} a document may take`);
    this.name = 'DocumentBudgetError';
    this.total = total;
    this.limit = limit;
  }
}

const TOTAL_NAMES: Record<BudgetTotal, string> = {
  objects: 'object visits',
  inflatedBytes: 'decompressed bytes',
  pixels: 'decoded image pixels',
  fields: 'form fields',
  headings: 'section headings',
};

/** The budget every step of one document spends from. */
export type DocumentBudget = {
  /** Aborted once the deadline has passed, for asynchronous work (prints, fetches). */
  readonly signal: AbortSignal;
  /** When the deadline passes, in epoch milliseconds. */
  readonly at: number;
  /** Throws `BudgetDeadlineError` once the deadline has passed: one clock read, cheap enough for every loop turn. */
  check(): void;
  /** Counts `amount` against `total` (and checks the deadline); throws `DocumentBudgetError` past the document's total. */
  spend(total: BudgetTotal, amount: number): void;
  /** How much of `total` is left: a ceiling to pass to a decoder before it allocates (zlib's `maxOutputLength`). */
  left(total: BudgetTotal): number;
  /** Milliseconds left before the deadline. */
  remaining(): number;
};

/**
 * A budget ending at `at` (epoch ms; `budgetMs` is what the request was
 * given, for the error's message), with the document totals, or `totals`
 * in their place (tests use small ones).
 */
export function documentBudget(options: { at: number; budgetMs: number; totals?: Partial<Record<BudgetTotal, number>> }): DocumentBudget {
  const { at, budgetMs } = options;
  const limits = { ...DOCUMENT_TOTALS, ...options.totals };
  const spent: Record<BudgetTotal, number> = { objects: 0, inflatedBytes: 0, pixels: 0, fields: 0, headings: 0 };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new BudgetDeadlineError(budgetMs)), Math.max(0, at - Date.now()));
  // A budget never keeps a process alive, and its timer goes when it fires or the process ends.
  timer.unref();
  const check = () => {
    if (Date.now() >= at) {
      if (!controller.signal.aborted) controller.abort(new BudgetDeadlineError(budgetMs));
      throw new BudgetDeadlineError(budgetMs);
    }
  };
  return {
    signal: controller.signal,
    at,
    check,
    spend(total, amount) {
      spent[total] += amount;
      if (spent[total] > limits[total]) throw new DocumentBudgetError(total, limits[total]);
      check();
    },
    left: (total) => Math.max(0, limits[total] - spent[total]),
    remaining: () => Math.max(0, at - Date.now()),
  };
}

/** A budget for work that has none of its own (a unit test of one step): an hour, the document totals. */
export function unboundedBudget(): DocumentBudget {
  return documentBudget({ at: Date.now() + 3_600_000, budgetMs: 3_600_000 });
}
