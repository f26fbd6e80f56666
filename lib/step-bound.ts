import { RenderStepTimeoutError } from './errors.js';

/**
 * The steps of a render. Each has its own bound (see `step`), far below the
 * whole budget where it can be: a step that hangs fails the render with its
 * name and elapsed time instead of silently spending the rest of the budget.
 */
export type RenderStep = 'launch' | 'session' | 'setup' | 'navigation' | 'wait' | 'capture' | 'store' | 'upload';

/**
 * Bounds of the steps whose normal duration does not depend on the page
 * (a few hundred milliseconds each, seconds under load). Navigation and the
 * waits are bounded by what is left of the budget instead (see
 * `waitAllowanceMs`): how long a page takes to load is the caller's business.
 */
export const STEP_BOUNDS_MS: Readonly<Partial<Record<RenderStep, number>>> = {
  // Chromium's own start, cold: about 1 s on Lambda, several on a loaded machine.
  launch: 15_000,
  // An isolated context with its first page: 50-300 ms, or nothing to wait for when one was opened ahead.
  session: 5_000,
  // One round of CDP calls (viewport, headers, cookies, emulation).
  setup: 5_000,
  // A screenshot or a print of a page already laid out: long documents take seconds, never this long.
  capture: 15_000,
  // Writing the file to the service's temporary storage.
  store: 10_000,
};

/** The step a render is in, read when its budget runs out to say where it was. */
export type StepUnderWay = { step: RenderStep; startedAt: number };

/** What times the steps of one render (its deadline, see deadline.ts). */
export type StepClock = {
  /** The bound of `step` if it starts now. */
  boundOf(step: RenderStep): number;
  /** The step running now, if any. */
  underWay: StepUnderWay | undefined;
};

/**
 * Runs one step of a render within its bound (`clock.boundOf(name)`, or
 * `boundMs` when given): resolves as `work` does, or rejects with
 * `RenderStepTimeoutError` naming the step and its elapsed time once the
 * bound has passed. `work` keeps running; what it yields after that goes to
 * `late` (so that, say, a session that opened too late is closed).
 */
export async function step<T>(
  clock: StepClock | undefined,
  name: RenderStep,
  work: Promise<T>,
  options: { boundMs?: number; late?: (value: T) => void } = {},
): Promise<T> {
  const boundMs = Math.max(0, options.boundMs ?? clock?.boundOf(name) ?? STEP_BOUNDS_MS[name] ?? 0);
  const startedAt = Date.now();
  const mine: StepUnderWay = { step: name, startedAt };
  if (clock) clock.underWay = mine;
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      // Node's timers run on the event loop's cached clock, so one can fire a millisecond before
      // Date.now() says the bound has passed; the step ran at least its bound all the same.
      reject(new RenderStepTimeoutError(name, Math.max(boundMs, Date.now() - startedAt), boundMs));
    }, boundMs);
  });
  const { late } = options;
  if (late) work.then((value) => (expired ? late(value) : undefined), () => undefined);
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
    // Left in place on expiry: the render's own error handling reads it.
    if (clock && !expired && clock.underWay === mine) clock.underWay = undefined;
  }
}
