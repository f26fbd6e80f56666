/** The end of a time budget (a render's), and how much of it is left; and the one way to race a timer. */
export type Deadline = {
  readonly at: number;
  readonly budgetMs: number;
  remaining(): number;
};

/** Starts the clock of a render with `budgetMs` to spend. */
export function startDeadline(budgetMs: number, now = Date.now()): Deadline {
  const at = now + budgetMs;
  return { at, budgetMs, remaining: () => Math.max(0, at - Date.now()) };
}

/**
 * Time kept back for printing or capturing once the page is loaded: waits
 * that may give up (navigation, selectors, settling) stop early enough for
 * the render to still answer inside its budget.
 */
export function captureReserveMs(budgetMs: number): number {
  return Math.min(5_000, Math.max(1_000, Math.round(budgetMs * 0.2)));
}

/** Milliseconds a give-up-able wait may take: what is left of the budget minus the capture reserve. */
export function waitAllowanceMs(deadline: Deadline): number {
  return Math.max(0, deadline.remaining() - captureReserveMs(deadline.budgetMs));
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
