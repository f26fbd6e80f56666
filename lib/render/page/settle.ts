import type { Page } from 'puppeteer-core';
import { within } from '../../deadline.js';
import type { NetworkActivity } from '../browser/network-activity.js';
import type { RenderLog } from '../types.js';

/** Name under which the page-side helper hides on `window` (a registered symbol, never enumerated). */
export const SETTLE_KEY = 'docrender.settle';

/** Timers longer than this are animations or polling, not "load the content now". */
const SHORT_TIMER_MS = 1_500;

/**
 * Timers a page schedules once the wait has started are followed only when
 * they are this short: a script yielding to the event loop mid-layout
 * (`setTimeout(next, 0)`), not a poll every second.
 */
const YIELD_TIMER_MS = 20;

/**
 * After the load event, how long `auto` may keep waiting for the page to
 * finish: a chart's first-draw animation (about 1 s in most libraries) after
 * data fetched by a timer, or a pagination polyfill laying out a few dozen
 * pages, fit; a page that never settles is captured at this bound.
 */
export const AUTO_SETTLE_MAX_MS = 5_000;

/**
 * Quiet time `auto` asks of a page that runs scripts: short, unlike
 * networkidle's 500 ms. Three frames: work a page chains onto a response or a
 * DOM change (the next fetch, a layout pass) starts within a task or two, and
 * what it starts is seen (a request, a short timer, a frame, a change) and
 * waited for in its own right; a heavy synchronous step holds the check up
 * rather than slipping past it. It is what every scripted page pays after
 * its last change, so it is kept to what that needs (it was 100 ms: a
 * third of a small page's whole render, measured in bench/README.md).
 */
export const AUTO_IDLE_MS = 50;

/**
 * How much faster `performance.now()`, `Date.now()` and frame timestamps run
 * while the wait sees a `requestAnimationFrame` loop: time-based animations
 * reach their last frame sooner, and that frame is the same.
 */
const WARP_SPEED = 10;

/** How often the page checks whether it has settled; about one frame. */
const PAGE_POLL_MS = 16;

/** Rounds of "page quiet, then network quiet" before the bound; each ends early once both hold. */
const MAX_ROUNDS = 50;

/**
 * Runs in every document before its own scripts (and is evaluated into the
 * blank page before `setContent`, whose document no navigation creates).
 *
 * It notes what a page still has to do: the short `setTimeout`s scheduled
 * while loading (a script that fetches content 300 ms after the load event is
 * the classic case), `requestAnimationFrame` callbacks (how canvas and SVG
 * chart libraries animate their first draw), and, once the wait has begun,
 * changes to the DOM (a diagram or math renderer, a pagination polyfill).
 * Timers scheduled after the wait started are not followed unless they only
 * yield to the event loop, so a page that polls does not hold the render up.
 * Finite Web Animations and CSS animations/transitions are fast-forwarded to
 * their end (`finish()`), which is exactly what they would show once done;
 * infinite ones are left as they are. Animation-frame loops are sped up
 * rather than skipped: the page's clocks run faster while one is running
 * during the wait, so a time-based animation draws its own final frame.
 *
 * Plain JavaScript in a string: a bundler that keeps function names (tsx,
 * esbuild's keepNames) would otherwise slip helper calls into the page.
 */
const SETTLE_TRACKER_SOURCE = `(() => {
  const symbol = Symbol.for(${JSON.stringify(SETTLE_KEY)});
  if (window[symbol]) return;
  const pendingTimers = new Set();
  const pendingFrames = new Set();
  let tracking = true;
  let lastActivityAt = 0;
  let observer = null;
  let waiting = false;
  // The page scheduled work of its own: it runs scripts, even if it has removed its script elements
  // since (a pagination polyfill replaces the body with the pages it laid out).
  let scheduled = false;
  const nativePerfNow = performance.now.bind(performance);
  const nativeDateNow = Date.now;
  const now = nativePerfNow;
  // Time as animation code reads it runs ${WARP_SPEED}x fast while the wait sees an animation-frame loop:
  // an eased first draw (chart.js, d3, GSAP: they take progress from these clocks) reaches its
  // last frame, the same one it would draw in real time, in a tenth of the time.
  let skew = 0;
  let warpSince = -1;
  const skewNow = () => (warpSince < 0 ? skew : skew + (nativePerfNow() - warpSince) * ${WARP_SPEED - 1});
  const warp = (on) => {
    if (on && warpSince < 0) warpSince = nativePerfNow();
    else if (!on && warpSince >= 0) { skew = skewNow(); warpSince = -1; }
  };
  performance.now = function now() { return nativePerfNow() + skewNow(); };
  Date.now = function now() { return nativeDateNow.call(Date) + Math.round(skewNow()); };
  const nativeSetTimeout = window.setTimeout;
  const nativeClearTimeout = window.clearTimeout;
  const nativeRaf = window.requestAnimationFrame;
  const nativeCancelRaf = window.cancelAnimationFrame;
  window.setTimeout = function setTimeout(handler, delay, ...args) {
    const ms = delay === undefined ? 0 : Number(delay);
    scheduled = true;
    const follow = typeof handler === 'function' && ms <= (tracking ? ${SHORT_TIMER_MS} : ${YIELD_TIMER_MS});
    if (!follow) return nativeSetTimeout.call(window, handler, delay, ...args);
    const id = nativeSetTimeout.call(window, function (...callArgs) {
      pendingTimers.delete(id);
      lastActivityAt = now();
      return handler.apply(this, callArgs);
    }, delay, ...args);
    pendingTimers.add(id);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) {
    pendingTimers.delete(id);
    return nativeClearTimeout.call(window, id);
  };
  if (nativeRaf) {
    window.requestAnimationFrame = function requestAnimationFrame(callback) {
      scheduled = true;
      if (typeof callback !== 'function') return nativeRaf.call(window, callback);
      const id = nativeRaf.call(window, function (time) {
        pendingFrames.delete(id);
        lastActivityAt = now();
        return callback.call(this, time + skewNow());
      });
      pendingFrames.add(id);
      return id;
    };
    window.cancelAnimationFrame = function cancelAnimationFrame(id) {
      pendingFrames.delete(id);
      return nativeCancelRaf.call(window, id);
    };
  }
  const finishAnimations = () => {
    let endless = 0;
    if (!document.getAnimations) return endless;
    for (const animation of document.getAnimations()) {
      try {
        const end = animation.effect && animation.effect.getComputedTiming().endTime;
        if (animation.playState === 'finished' || animation.playState === 'idle') continue;
        if (typeof end === 'number' && Number.isFinite(end)) animation.finish();
        else if (animation.playState === 'running') endless += 1;
      } catch (error) {
        // A detached or cancelled animation: nothing to fast-forward.
      }
    }
    return endless;
  };
  const watchDom = () => {
    if (observer || !window.MutationObserver) return;
    observer = new MutationObserver(function () { lastActivityAt = now(); });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  const revealLazy = () => {
    // Lazy images and frames below the fold would print blank: load them now.
    for (const element of document.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]')) element.loading = 'eager';
  };
  const busy = (idleMs) => {
    const reasons = [];
    if (document.fonts && document.fonts.status !== 'loaded') reasons.push('web fonts loading');
    if (pendingTimers.size > 0) reasons.push('timers pending');
    if (pendingFrames.size > 0) reasons.push('requestAnimationFrame loop running');
    if (now() - lastActivityAt < idleMs) reasons.push('DOM still changing');
    return reasons;
  };
  const decodeImages = () => Promise.all(Array.from(document.images, function (image) {
    return image.src && image.decode ? image.decode().catch(function () {}) : undefined;
  }));
  Object.defineProperty(window, symbol, {
    value: {
      // For our own in-page helpers (cookie consent), whose timers are not the page's work.
      timers: { setTimeout: nativeSetTimeout, clearTimeout: nativeClearTimeout },
      /**
       * Resolves once the page has nothing pending and no change for idleMs
       * (or at maxMs): { waitedMs, busy: reasons left, endless: infinite animations, scripted }.
       */
      settled: function (maxMs, idleMs) {
        const scripted = scheduled || document.scripts.length > 0 || window.frames.length > 0;
        if (!scripted) idleMs = 0;
        if (!waiting) {
          waiting = true;
          // The wait begins: from now on only yielding timers are followed, and the DOM is watched
          // for a full idle window (work started right after load may not have touched it yet).
          tracking = false;
          lastActivityAt = now();
          watchDom();
          revealLazy();
        }
        const started = now();
        return new Promise(function (resolve) {
          const check = function () {
            const endless = finishAnimations();
            warp(pendingFrames.size > 0);
            const reasons = busy(idleMs);
            const waitedMs = now() - started;
            if (reasons.length === 0 || waitedMs >= maxMs) {
              warp(false);
              decodeImages().then(function () {
                resolve({ waitedMs: waitedMs, busy: reasons, endless: endless, scripted: scripted });
              });
              return;
            }
            nativeSetTimeout.call(window, check, Math.min(${PAGE_POLL_MS}, Math.max(0, maxMs - waitedMs)));
          };
          check();
        });
      },
    },
  });
})()`;

/** What the page answered about its state. */
type PageState = { waitedMs: number; busy: string[]; endless: number; scripted: boolean };

const pageSettled = (maxMs: number, idleMs: number) => `(async () => {
  const tracker = window[Symbol.for(${JSON.stringify(SETTLE_KEY)})];
  if (!tracker) {
    await document.fonts.ready;
    return { waitedMs: 0, busy: [], endless: 0, scripted: document.scripts.length > 0 || window.frames.length > 0 };
  }
  return tracker.settled(${Math.max(0, Math.round(maxMs))}, ${Math.max(0, Math.round(idleMs))});
})()`;

/**
 * Prepares a page so `waitForSettled` can see the timers of the documents it
 * loads; `alongside` is more new-document script, sent in the same call.
 */
export async function prepareSettleTracking(page: Page, alongside = ''): Promise<void> {
  await page.evaluateOnNewDocument(alongside ? `${alongside};\n${SETTLE_TRACKER_SOURCE}` : SETTLE_TRACKER_SOURCE);
}

/**
 * Puts the tracker into the page's current document: `setContent` writes
 * into the blank page already there, which no navigation created, so the
 * new-document script never ran in it.
 */
export async function trackCurrentDocument(page: Page): Promise<void> {
  await page.evaluate(SETTLE_TRACKER_SOURCE);
}

/** How the `auto` wait ended, for the timings and the log. */
export type SettleOutcome = { settled: boolean; waitedMs: number; reasons: string[] };

/**
 * The `auto` wait, run after the load event: the page finished, not only
 * loaded. Web fonts ready, short timers fired, animation-frame loops ended
 * (sped up while the wait sees them),
 * the DOM unchanged and the network quiet for a short idle window (none at
 * all for a page without scripts, where nothing is left to change), images
 * decoded and finite animations fast-forwarded to their end. Gives up at
 * `until` and lets the render go on with what is there, logging why.
 */
export async function waitForSettled(
  page: Page,
  activity: NetworkActivity,
  options: { until: number; javascript: boolean; log?: RenderLog },
): Promise<SettleOutcome> {
  const { until } = options;
  const started = Date.now();
  const idleMs = options.javascript ? AUTO_IDLE_MS : 0;
  let reasons: string[] = [];
  let endless = 0;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const left = Math.max(0, until - Date.now());
    const inPage = page.evaluate(pageSettled(left, idleMs)).then(
      (state) => state as PageState,
      // A page that navigates itself while we look has scripts and is not done.
      (): PageState => ({ waitedMs: PAGE_POLL_MS, busy: ['page navigating'], endless: 0, scripted: true }),
    );
    const state = await within(inPage, left + 100, { waitedMs: left, busy: ['page unresponsive'], endless: 0, scripted: true });
    const scripted = options.javascript && state.scripted;
    // A page without scripts has nothing left to start a request: no idle window for it.
    const quiet = await activity.waitForQuiet({ idleMs: scripted ? idleMs : 0, until });
    endless = state.endless;
    reasons = [...state.busy, ...(quiet ? [] : ['network busy'])];
    // Done when the page was already quiet when asked (it did not have to wait) and the network
    // is quiet too: a round that had to wait saw activity, so the next one confirms it is over.
    if (reasons.length === 0 && (!scripted || state.waitedMs < PAGE_POLL_MS)) break;
    if (Date.now() >= until) break;
  }
  const outcome: SettleOutcome = { settled: reasons.length === 0, waitedMs: Date.now() - started, reasons };
  if (!outcome.settled) {
    options.log?.('warn', 'Page did not settle within the auto wait; captured as it stands', { waitedMs: outcome.waitedMs, reasons });
  } else if (endless > 0) {
    options.log?.('info', 'Page runs endless animations; captured as they stand', { endless });
  }
  return outcome;
}
