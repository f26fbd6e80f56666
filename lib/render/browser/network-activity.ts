import type { HTTPRequest } from 'puppeteer-core';
import { sleep } from '../../deadline.js';

/** Requests of one page still in flight, fed by the page's request events. */
export type NetworkActivity = {
  started(request: HTTPRequest): void;
  ended(request: HTTPRequest): void;
  /**
   * Resolves true once the network has been quiet for `idleMs`, false if that
   * did not happen before `until` (epoch ms). Quiet time already behind counts:
   * a network quiet for long answers at once. Quiet means at most
   * `maxInFlight` requests in flight, none of them younger than `freshMs`:
   * an old request is a long poll or a stalled tracker, a young one is
   * content on its way.
   */
  waitForQuiet(options: { idleMs: number; until: number; maxInFlight?: number; freshMs?: number }): Promise<boolean>;
};

const POLL_MS = 20;

/** Starts counting a page's requests in flight. */
export function createNetworkActivity(): NetworkActivity {
  const inFlight = new Map<HTTPRequest, number>();
  /** When a request last started or ended. */
  let lastChangeAt = 0;

  /** Since when the network has been quiet (undefined: it is not). */
  const quietSince = (now: number, maxInFlight: number, freshMs: number): number | undefined => {
    if (inFlight.size > maxInFlight) return undefined;
    let since = lastChangeAt;
    for (const startedAt of inFlight.values()) {
      if (now - startedAt < freshMs) return undefined;
      // A request in flight became "old" (a long poll, a stalled tracker) only after freshMs.
      since = Math.max(since, startedAt + freshMs);
    }
    return since;
  };

  return {
    started: (request) => {
      lastChangeAt = Date.now();
      inFlight.set(request, lastChangeAt);
    },
    ended: (request) => {
      if (inFlight.delete(request)) lastChangeAt = Date.now();
    },
    async waitForQuiet({ idleMs, until, maxInFlight = 2, freshMs = 1_000 }) {
      for (;;) {
        const now = Date.now();
        const since = quietSince(now, maxInFlight, freshMs);
        if (since !== undefined && now - since >= idleMs) return true;
        if (now >= until) return false;
        const toIdle = since === undefined ? POLL_MS : idleMs - (now - since);
        await sleep(Math.min(POLL_MS, toIdle, until - now));
      }
    },
  };
}
