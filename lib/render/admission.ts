/**
 * Admission of renders into one process's browser: at most `concurrency`
 * run at once, at most `queued` wait behind them, and a waiting render that
 * is not let in while it can still finish is turned away. On Lambda an
 * instance serves one invocation at a time and never queues here; a process
 * that takes renders concurrently (the renderer used as a library, a burst
 * in one container) would otherwise start them all at once, and on a starved
 * CPU each one's steps (opening a session, printing) would overrun their
 * bounds together. Browserless (CONCURRENT, QUEUED) and Gotenberg (its
 * Chromium queue) shed load the same way: a clean 503 with Retry-After
 * instead of a timeout for everyone.
 */
import os from 'node:os';
import type { Deadline } from '../deadline.js';
import { ServiceError } from '../errors.js';

/** Seconds a turned-away caller is told to wait: a queue of short renders moves on within it. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** Longest a render waits in the queue before it is turned away (never more than half its budget). */
const PATIENCE_MS = 10_000;

/** The renderer has as many renders running and waiting as it takes: 503, retry after Retry-After. */
export class RendererBusyError extends ServiceError {
  constructor(reason: string) {
    super(`The renderer is busy (${reason}); retry after the number of seconds in Retry-After`, 503, {
      expose: true,
      headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
    });
  }
}

export type AdmissionLimits = { concurrency: number; queued: number };

/**
 * Default limits of a multi-process browser: two renders per core run at
 * once (a render is mostly Chromium's CPU time, and waits on the page for
 * part of it), and four times as many wait.
 */
export function defaultAdmissionLimits(): AdmissionLimits {
  const concurrency = Math.max(2, 2 * os.availableParallelism());
  return { concurrency, queued: 4 * concurrency };
}

export type Admission = {
  /** Runs `work` once let in; rejects with `RendererBusyError` when the queue is full or the render waited too long. */
  run<T>(work: () => Promise<T>, deadline: Deadline): Promise<T>;
  /** Renders running and waiting now. */
  readonly running: number;
  readonly waiting: number;
};

export function createAdmission({ concurrency, queued }: AdmissionLimits): Admission {
  let running = 0;
  const waiters: Array<() => void> = [];

  const leave = () => {
    const next = waiters.shift();
    if (next) next();
    else running -= 1;
  };

  /** Resolves once a place is free (handed over by `leave`), or rejects after `patienceMs`. */
  const waitForPlace = (patienceMs: number) =>
    new Promise<void>((resolve, reject) => {
      const enter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = waiters.indexOf(enter);
        if (index >= 0) waiters.splice(index, 1);
        reject(new RendererBusyError(`waited ${patienceMs} ms for one of ${concurrency} renders to end`));
      }, patienceMs);
      waiters.push(enter);
    });

  return {
    async run(work, deadline) {
      if (running < concurrency) running += 1;
      else if (waiters.length >= queued) throw new RendererBusyError(`${concurrency} renders running and ${queued} waiting`);
      // The place is handed over by `leave` without `running` going down in between.
      else await waitForPlace(Math.min(PATIENCE_MS, Math.floor(deadline.remaining() / 2)));
      try {
        return await work();
      } finally {
        leave();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
