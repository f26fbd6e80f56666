import type { HTTPRequest } from 'puppeteer-core';
import { sleep } from './deadline.js';

/** Requests of one page still in flight, fed by the page's request events. */
export type NetworkActivity = {
  started(request: HTTPRequest): void;
  ended(request: HTTPRequest): void;
  /**
   * Resolves true once the network has been quiet for `idleMs`, false if that
   * did not happen before `until` (epoch ms). Quiet means at most
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

  const isQuiet = (now: number, maxInFlight: number, freshMs: number): boolean => {
    if (inFlight.size > maxInFlight) return false;
    for (const startedAt of inFlight.values()) if (now - startedAt < freshMs) return false;
    return true;
  };

  return {
    started: (request) => {
      inFlight.set(request, Date.now());
    },
    ended: (request) => {
      inFlight.delete(request);
    },
    async waitForQuiet({ idleMs, until, maxInFlight = 2, freshMs = 1_000 }) {
      let quietSince: number | undefined;
      for (;;) {
        const now = Date.now();
        if (isQuiet(now, maxInFlight, freshMs)) {
          quietSince ??= now;
          if (now - quietSince >= idleMs) return true;
        } else {
          quietSince = undefined;
        }
        if (now >= until) return false;
        const toIdle = quietSince === undefined ? POLL_MS : idleMs - (now - quietSince);
        await sleep(Math.min(POLL_MS, toIdle, until - now));
      }
    },
  };
}
