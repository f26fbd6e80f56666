/**
 * What pdf-lib throws when a caller's document is not built as the
 * specification says (a /Kids that is a number, an /Opt of dictionaries, a
 * widget without a /Rect): the caller's document that cannot be used, an
 * `InputPdfError` naming the problem (a 400 naming `document` at the edge),
 * never a 500. The service's own errors pass as they are.
 */
import { ServiceError } from '../../errors.js';
import { BudgetDeadlineError, DocumentBudgetError } from '../../budget/document-budget.js';
import { InputPdfError, OptionError } from '../../pdf/errors.js';

/** `error` as the caller's document's problem (`what` failed: "The form could not be filled"), unless it is already one of the service's. */
export function malformedInput(error: unknown, what: string): unknown {
  if (error instanceof ServiceError || error instanceof OptionError || error instanceof InputPdfError || error instanceof BudgetDeadlineError || error instanceof DocumentBudgetError) return error;
  const reason = error instanceof Error && error.message ? `: ${error.message.split('\n')[0]?.slice(0, 200)}` : '';
  return new InputPdfError(`${what}: the document is malformed${reason}`, { cause: error });
}
