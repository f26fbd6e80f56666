import type { Page } from 'puppeteer-core';
import { within } from './deadline.js';
import type { NetworkActivity } from './network-activity.js';

/** Name under which the page-side helper hides on `window` (a registered symbol, never enumerated). */
export const SETTLE_KEY = 'docrender.settle';

/** Timers longer than this are animations or polling, not "load the content now". */
const SHORT_TIMER_MS = 1_500;

/** After the load event, how long `auto` may keep waiting for the page to settle. */
export const AUTO_SETTLE_MAX_MS = 3_000;

/** Quiet time `auto` asks of a page that runs scripts: short, unlike networkidle's 500 ms. */
export const AUTO_IDLE_MS = 150;

/**
 * Runs in every document before its own scripts. It notes the short
 * `setTimeout`s a page schedules while loading, so that `auto` can let them
 * fire (a script that fetches content 300 ms after the load event is the
 * classic case) before it looks at the network. Timers scheduled after the
 * render starts waiting are not followed, so a page that polls forever does
 * not hold the render up.
 *
 * Plain JavaScript in a string: a bundler that keeps function names (tsx,
 * esbuild's keepNames) would otherwise slip helper calls into the page.
 */
const SETTLE_TRACKER_SOURCE = `(() => {
  const symbol = Symbol.for(${JSON.stringify(SETTLE_KEY)});
  if (window[symbol]) return;
  const pending = new Set();
  const waiters = [];
  let tracking = true;
  const nativeSetTimeout = window.setTimeout;
  const nativeClearTimeout = window.clearTimeout;
  const settle = function (id) {
    if (pending.delete(id) && pending.size === 0) for (const wake of waiters.splice(0)) wake();
  };
  window.setTimeout = function setTimeout(handler, delay, ...args) {
    const ms = delay === undefined ? 0 : Number(delay);
    if (!tracking || typeof handler !== 'function' || !(ms <= ${SHORT_TIMER_MS})) {
      return nativeSetTimeout(handler, delay, ...args);
    }
    const id = nativeSetTimeout(function (...callArgs) {
      settle(id);
      return handler.apply(this, callArgs);
    }, delay, ...args);
    pending.add(id);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) {
    settle(id);
    return nativeClearTimeout(id);
  };
  Object.defineProperty(window, symbol, {
    value: {
      // For our own in-page helpers (cookie consent), whose timers are not the page's work.
      timers: { setTimeout: nativeSetTimeout, clearTimeout: nativeClearTimeout },
      settled: function (maxMs) {
        tracking = false;
        if (pending.size === 0) return Promise.resolve();
        return new Promise(function (resolve) {
          waiters.push(resolve);
          nativeSetTimeout(resolve, maxMs);
        });
      },
    },
  });
})()`;

/** Page-side half of `auto`: fonts, then the followed timers; answers whether the page runs scripts. */
const settledInPage = (maxMs: number) => `(async () => {
  await document.fonts.ready;
  const tracker = window[Symbol.for(${JSON.stringify(SETTLE_KEY)})];
  if (tracker) await tracker.settled(${Math.max(0, Math.round(maxMs))});
  return document.scripts.length > 0 || window.frames.length > 0;
})()`;

/**
 * Prepares a page so `waitForSettled` can see the timers of the documents it
 * loads; `alongside` is more new-document script, sent in the same call.
 */
export async function prepareSettleTracking(page: Page, alongside = ''): Promise<void> {
  await page.evaluateOnNewDocument(alongside ? `${alongside};\n${SETTLE_TRACKER_SOURCE}` : SETTLE_TRACKER_SOURCE);
}

/**
 * The `auto` wait, run after the load event: web fonts ready, short timers
 * fired, then the network quiet for a short idle window (none at all for a
 * page without scripts, where nothing is left to start a request). Gives up
 * at `until` and lets the render go on with what is there.
 */
export async function waitForSettled(
  page: Page,
  activity: NetworkActivity,
  options: { until: number; javascript: boolean },
): Promise<void> {
  const { until } = options;
  const inPage = page
    .evaluate(settledInPage(until - Date.now()))
    // A page that navigates itself while we look has scripts; treat it as such.
    .then((answer) => answer !== false, () => true);
  const scripted = await within(inPage, until - Date.now(), true);
  await activity.waitForQuiet({ idleMs: options.javascript && scripted ? AUTO_IDLE_MS : 0, until });
}
