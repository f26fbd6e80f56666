import { STEP_BOUNDS_MS, type RenderStep, type StepClock } from './step-bound.js';

/**
 * The end of a time budget (a render's), how much of it is left, and, as the
 * clock of its steps (`step` in step-bound.ts), each step's bound (its own,
 * never past the end of the budget) and the step under way; and the one way
 * to race a timer (below).
 */
export type Deadline = StepClock & {
  readonly at: number;
  readonly budgetMs: number;
  /** When the page's load and the waits that may give up must have ended, whatever the budget (`WAIT_CAP_MS`). */
  readonly waitsUntil: number;
  remaining(): number;
};

/**
 * The longest a page's load and the waits that may give up (selectors,
 * settling, `waitForMilliseconds`) take together, whatever the budget: a
 * synchronous render's budget (25 s) is shorter, and an asynchronous one's,
 * up to its consumer's 15 minutes, is for printing and finishing a long
 * document, not for waiting on a page that never settles.
 */
export const WAIT_CAP_MS = 120_000;

/**
 * Starts the clock of a render with `budgetMs` to spend; `bounds` overrides `STEP_BOUNDS_MS` (tests use short
 * ones), `waitCapMs` overrides `WAIT_CAP_MS`.
 */
export function startDeadline(budgetMs: number, now = Date.now(), bounds: Partial<Record<RenderStep, number>> = {}, waitCapMs = WAIT_CAP_MS): Deadline {
  const at = now + budgetMs;
  const remaining = () => Math.max(0, at - Date.now());
  return {
    at,
    budgetMs,
    waitsUntil: now + waitCapMs,
    remaining,
    boundOf: (name) => Math.min(bounds[name] ?? STEP_BOUNDS_MS[name] ?? Number.POSITIVE_INFINITY, remaining()),
    underWay: undefined,
  };
}

/**
 * Time kept back for printing or capturing once the page is loaded: waits
 * that may give up (navigation, selectors, settling) stop early enough for
 * the render to still answer inside its budget.
 */
export function captureReserveMs(budgetMs: number): number {
  return Math.min(5_000, Math.max(1_000, Math.round(budgetMs * 0.2)));
}

/** When waits that may give up must end: the capture reserve before the budget's end, and never past the wait cap. */
export function waitsEndAt(deadline: Deadline): number {
  return Math.min(deadline.at - captureReserveMs(deadline.budgetMs), deadline.waitsUntil);
}

/** Milliseconds a give-up-able wait may take: until `waitsEndAt`. */
export function waitAllowanceMs(deadline: Deadline): number {
  return Math.max(0, waitsEndAt(deadline) - Date.now());
}

/**
 * The one race against a timer: `promise`'s outcome, or what `expire` gives
 * (or throws) once `ms` have passed first. The promise keeps running; the
 * timer never outlives the race.
 */
function raceTimer<T, F>(promise: Promise<T>, ms: number, expire: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<F>((resolve, reject) => {
      timer = setTimeout(() => {
        try {
          resolve(expire());
        } catch (error) {
          reject(error);
        }
      }, Math.max(0, ms));
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Resolves to `fallback` if `promise` has not settled within `ms`; the promise keeps running. */
export function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  return raceTimer(promise, ms, () => fallback);
}

/** Rejects with `expired()` if `promise` has not settled within `ms`; the promise keeps running. */
export function before<T>(promise: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  return raceTimer(promise, ms, (): never => {
    throw expired();
  });
}

/** Lets `ms` pass. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
