/**
 * Errors of the browser, page and output layers. They say what went wrong in
 * the plan's terms and name no request field: the edge
 * (lib/plan/request-errors.ts) turns them into the contract's 400 with its
 * `fields`, knowing how the plan was built from the request.
 */
import { ServiceError } from '../errors.js';

/** The step of a plan that the page refused: the edge maps each to the request field it came from. */
export type PlanStep =
  | 'cookies'
  | 'timezone'
  | 'waitForSelector'
  | 'waitForFunction'
  | 'element'
  | 'pageRanges'
  | 'headerFooter'
  | 'sectionHeadings'
  | 'overlayBackground'
  | 'overlayFilter'
  | 'overlayMargin';

/** What the plan asked for cannot be done with this page (a selector that is not CSS, a page range past the end…): the caller's input. */
export class PlanStepError extends ServiceError {
  readonly step: PlanStep;
  constructor(step: PlanStep, message: string, options: { cause?: unknown } = {}) {
    super(message, 400, { cause: options.cause });
    this.step = step;
  }
}

/** The page could not be loaded (DNS failure, refused, blocked, navigation timeout): `reason` says why. */
export class PageLoadError extends ServiceError {
  constructor(readonly reason: string, options: { cause?: unknown } = {}) {
    super('The page could not be loaded', 400, { cause: options.cause });
  }
}
