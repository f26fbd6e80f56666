import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { sleep, within } from '../../deadline.js';
import { requiredTexts } from './pattern-literal.js';
import { SETTLE_KEY } from './settle.js';

/**
 * Cookie-consent banners, dismissed with DuckDuckGo's autoconsent: its rules
 * recognise several hundred consent platforms and click "reject" (opt out).
 * The content bundle runs in every new top-level document
 * (`evaluateOnNewDocument`), in the page's main world, and is answered inside
 * the page: its `init` request gets the config and rules from a wrapper that
 * runs before it, so nothing waits for a round trip to Node and no page code
 * can reach a binding of ours.
 *
 * Deciding "there is no banner" quickly is what matters for speed: autoconsent
 * itself keeps searching for seconds (it retries every 500 ms in case a
 * consent platform shows up late). The wrapper notes when a detection pass
 * ends empty and when the DOM last changed; once a pass that began after the
 * last change has found nothing, the page as it stands has no banner, and
 * `dismissCookieBanners` returns.
 */

/** Whole time `dismissCookieBanners` may take. */
export const DISMISS_BUDGET_MS = 1500;
/** How long a consent platform that shows no popup is given to show one. */
const POPUP_PATIENCE_MS = 600;
/** How long autoconsent may search before we stop waiting for it, when the DOM never holds still. */
const SEARCH_PATIENCE_MS = 1000;
const POLL_MS = 20;
/** autoconsent waits this long between detection passes (findCmp in its lib/web.ts); scheduling it means a pass ended empty. */
const RETRY_WAIT_MS = 500;

// See autoconsent's docs/api.md and lib/types.ts (Config).
const AUTOCONSENT_CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  // Hides known banners from the first paint, so a screenshot never catches one half-closed.
  enablePrehide: true,
  prehideTimeout: 2000,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  // Unknown banners: click a reject or acknowledge button found by text ('tier1'), never "accept all".
  enableHeuristicDetection: true,
  heuristicMode: 'tier1',
  enablePopupMutationObserver: true,
  // Passes after the first wait for the DOM to change; a late banner is still caught while the page renders.
  detectRetries: 4,
  isMainWorld: true,
  visualTest: false,
  performanceLoggingEnabled: false,
  heuristicPopupSearchTimeout: 100,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
} as const;

/** Lifecycle states after which autoconsent does nothing more in a document. */
const FINISHED = new Set(['nothingDetected', 'done', 'optOutSucceeded', 'optOutFailed', 'optInSucceeded', 'optInFailed']);
/** A platform was recognised but shows no popup (yet). */
const WAITING_FOR_POPUP = 'cmpDetected';

/** Window property (per process, not guessable by pages) where the wrapper keeps its status reader. */
const STATUS_KEY = `__docrender_consent_${randomUUID().slice(0, 8)}`;

let source: Promise<string> | undefined;

/** autoconsent's compact rule set (rules/compact-rules.json), as far as we read it. */
type CompactRules = {
  v: number;
  s: string[];
  r: unknown[][];
  index: { genericRuleRange: [number, number]; specificRuleRange: [number, number]; genericStringEnd: number };
};

/** The rule set as the page script takes it, each part JSON text (parsed in the page when needed). */
type SplitRules = { generic: string; sites: string; specific: string };

/**
 * The rule set split the way autoconsent's own `filterCompactRules` (lib/encoding.ts)
 * narrows it per document, which is how DuckDuckGo's browsers and autoconsent's
 * Playwright runner hand it out: the ~200 generic rules always, and of the ~600
 * site-specific rules only those whose URL pattern matches the document. The
 * generic rules come with the strings they use (the set's first ones); the
 * site rules and the rest of the strings are parsed only in a document whose
 * URL holds one of their sites' names.
 */
function splitRules(text: string): SplitRules {
  const compact = JSON.parse(text) as CompactRules;
  const { genericRuleRange: [genericStart, genericEnd], specificRuleRange: [sitesStart, sitesEnd], genericStringEnd } = compact.index;
  const specificRules = compact.r.slice(sitesStart, sitesEnd);
  // Per site rule: texts one of which a URL its pattern matches contains (null: none known), and its run context.
  const sites = specificRules.map((rule) => [typeof rule[3] === 'string' && rule[3] ? requiredTexts(rule[3]) : null, rule[4]]);
  return {
    generic: JSON.stringify({ v: compact.v, s: compact.s.slice(0, genericStringEnd), r: compact.r.slice(genericStart, genericEnd) }),
    sites: JSON.stringify(sites),
    specific: JSON.stringify({ s: compact.s.slice(genericStringEnd), r: specificRules }),
  };
}

/** A JavaScript string literal of `text`, quoted with ' (JSON text has few of those, JSON.stringify would escape every "). */
function singleQuoted(text: string): string {
  return `'${text.replace(/[\\'\n\r\u2028\u2029]/g, (char) => (char === '\\' || char === "'" ? `\\${char}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/**
 * The script run in each new document: the wrapper, then the bundle with its
 * own `setTimeout` (so its retry timers neither count as page work for the
 * `auto` wait nor go unnoticed by us). Built once per process.
 */
function consentSource(): Promise<string> {
  source ??= (async () => {
    const require = createRequire(import.meta.url);
    // The content bundle is not in the package's exports map; it sits beside the main entry.
    const dist = dirname(require.resolve('@duckduckgo/autoconsent'));
    const [bundle, compact] = await Promise.all([
      readFile(join(dist, 'autoconsent.playwright.js'), 'utf8'),
      readFile(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
    ]);
    return pageSource(JSON.stringify(AUTOCONSENT_CONFIG), splitRules(compact), bundle);
  })().catch((error: unknown) => {
    source = undefined;
    throw error;
  });
  return source;
}

/**
 * Top frame only: frames are left alone (autoconsent's own rule for its
 * heuristics, and a frame's banner is not the page's). Plain JavaScript in a
 * string so no bundler helper slips into the page.
 */
function pageSource(config: string, rules: SplitRules, bundle: string): string {
  const wrapper = `(function (key, settleKey, config, genericJson, sitesJson, specificJson, retryWaitMs) {
  var tracker = window[Symbol.for(settleKey)];
  var timers = (tracker && tracker.timers) || { setTimeout: window.setTimeout, clearTimeout: window.clearTimeout };
  // Window's own timer functions: called on anything but window they throw "Illegal invocation".
  var later = function (handler, ms) { return timers.setTimeout.call(window, handler, ms); };
  var cancel = function (id) { return timers.clearTimeout.call(window, id); };
  var s = { lifecycle: 'loading', attempt: 0, attemptStartedAt: 0, detected: false, patterns: 0,
    searchStartedAt: 0, lastChangeAt: 0, emptyPassStartedAt: -1, emptyHeuristicPassStartedAt: -1 };
  var observer;
  // autoconsent's wait before its next pass, which we may cut short (see the status reader).
  var pendingRetry = null;
  // Status readers waiting for the pass they hurried to end (it found nothing, or found a banner).
  var passWaiters = [];
  var passEnded = function () {
    var waiters = passWaiters;
    passWaiters = [];
    for (var i = 0; i < waiters.length; i++) waiters[i]();
  };
  var watchChanges = function () {
    if (observer || !window.MutationObserver) return;
    observer = new MutationObserver(function () { s.lastChangeAt = performance.now(); });
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  };
  Object.defineProperty(window, key, {
    // With hurry, a pass still owed to the DOM as it is now starts at once instead of after autoconsent's pause.
    // The answer is then the status once that pass has ended (passEnded: true), or after passWaitMs.
    value: function (hurry, passWaitMs) {
      var read = function (ended) {
        var now = performance.now();
        return {
          lifecycle: s.lifecycle, detected: s.detected, patterns: s.patterns,
          searchingMs: s.searchStartedAt ? now - s.searchStartedAt : 0,
          covered: s.emptyPassStartedAt > s.lastChangeAt,
          heuristicCovered: s.emptyHeuristicPassStartedAt > s.lastChangeAt,
          passEnded: ended,
        };
      };
      var status = read(false);
      if (hurry && pendingRetry && !(status.covered && (status.patterns === 0 || status.heuristicCovered))) {
        var retry = pendingRetry;
        pendingRetry = null;
        cancel(retry.id);
        later(retry.run, 0);
        if (passWaitMs > 0) {
          return new Promise(function (resolve) {
            var answered = false;
            var answer = function (ended) {
              if (answered) return;
              answered = true;
              resolve(read(ended));
            };
            passWaiters.push(function () { answer(true); });
            later(function () { answer(false); }, passWaitMs);
          });
        }
      }
      return status;
    },
    configurable: true, writable: true, enumerable: false,
  });
  // The rules for this document (filterCompactRules in autoconsent's lib/encoding.ts, top frame):
  // the generic ones, and a site's own only where its URL pattern matches. JSON text is parsed
  // faster than the same object written as a literal, and the whole set only when needed.
  var rulesFor = function (url) {
    var generic = function () { return { autoconsent: [], compact: JSON.parse(genericJson) }; };
    var sites = JSON.parse(sitesJson);
    var candidates = [];
    for (var i = 0; i < sites.length; i++) {
      var texts = sites[i][0];
      if (sites[i][1] === 1) continue;
      // Compiling ~600 patterns in a fresh renderer costs milliseconds; a URL without the site's name cannot match.
      if (texts) {
        var named = false;
        for (var k = 0; k < texts.length && !named; k++) named = url.indexOf(texts[k]) !== -1;
        if (!named) continue;
      }
      candidates.push(i);
    }
    if (candidates.length === 0) return generic();
    var specific = JSON.parse(specificJson);
    var matched = [];
    for (var j = 0; j < candidates.length; j++) {
      var rule = specific.r[candidates[j]];
      try {
        if (rule[3] && url.match(rule[3]) === null) continue;
      } catch (e) { continue; }
      matched.push(rule);
    }
    if (matched.length === 0) return generic();
    var rules = JSON.parse(genericJson);
    return { autoconsent: [], compact: { v: rules.v, s: rules.s.concat(specific.s), r: rules.r.concat(matched) } };
  };
  window.autoconsentSendMessage = function (message) {
    try {
      if (!message || typeof message !== 'object') return Promise.resolve();
      if (message.type === 'init') {
        var rules = rulesFor(String(message.url || location.href));
        // Answered once the bundle has defined its receiver (the rest of its script, then this microtask).
        queueMicrotask(function () {
          if (typeof window.autoconsentReceiveMessage === 'function') {
            window.autoconsentReceiveMessage({ type: 'initResp', config: config, rules: rules });
          }
        });
      } else if (message.type === 'eval') {
        // Only sent with isMainWorld false: never evaluate code a page sent.
        queueMicrotask(function () { window.autoconsentReceiveMessage({ type: 'evalResp', id: message.id, result: false }); });
      } else if (message.type === 'cmpDetected' || message.type === 'popupFound') {
        s.detected = true;
        passEnded();
      } else if (message.type === 'report' && message.mainFrame && message.state) {
        var state = message.state;
        s.lifecycle = String(state.lifecycle);
        if (s.lifecycle !== 'started') passEnded();
        s.patterns = state.heuristicPatterns ? state.heuristicPatterns.length : 0;
        if (s.lifecycle === 'started' && !s.searchStartedAt) {
          s.searchStartedAt = performance.now();
          watchChanges();
        }
        if (state.findCmpAttempts !== s.attempt) {
          s.attempt = state.findCmpAttempts;
          s.attemptStartedAt = performance.now();
        }
      }
    } catch (e) {}
    return Promise.resolve();
  };
  return {
    setTimeout: function (handler, ms) {
      // The bundle waits between passes only after a pass that found nothing.
      if (ms === retryWaitMs && s.lifecycle === 'started' && !s.detected && s.attempt > 0 && typeof handler === 'function') {
        s.emptyPassStartedAt = Math.max(s.emptyPassStartedAt, s.attemptStartedAt);
        // Heuristic rules run on even passes only (autoconsent's findCmp).
        if (s.attempt % 2 === 0) s.emptyHeuristicPassStartedAt = Math.max(s.emptyHeuristicPassStartedAt, s.attemptStartedAt);
        var retry = { id: 0, run: function () { if (pendingRetry === retry) pendingRetry = null; handler(); } };
        retry.id = later(retry.run, ms);
        pendingRetry = retry;
        passEnded();
        return retry.id;
      }
      return timers.setTimeout.apply(window, arguments);
    },
    clearTimeout: cancel,
  };
})(${JSON.stringify(STATUS_KEY)}, ${JSON.stringify(SETTLE_KEY)}, ${config}, ${singleQuoted(rules.generic)}, ${singleQuoted(rules.sites)}, ${singleQuoted(rules.specific)}, ${RETRY_WAIT_MS})`;
  // No globals of ours: a page declaring the same name with const or let would fail to run.
  return `if (window.self === window.top && !window.autoconsentReceiveMessage) {
(function (own) {
(function (setTimeout, clearTimeout) {
${bundle}
})(own.setTimeout, own.clearTimeout);
})(${wrapper});
}`;
}

/** Script identifiers registered per page, so the hook can be taken off again. */
const hooks = new WeakMap<Page, Promise<string | undefined>>();

/**
 * Registers autoconsent for every document the page loads from now on. Cheap
 * to call ahead of time (a prepared session does); `disableCookieConsent`
 * takes it off for a render that does not want it.
 */
export async function prepareCookieConsent(page: Page): Promise<void> {
  let hook = hooks.get(page);
  if (!hook) {
    hook = consentSource().then(async (script) => (await page.evaluateOnNewDocument(script)).identifier);
    hooks.set(page, hook.catch(() => undefined));
  }
  await hook;
}

/** Takes the autoconsent hook off a page before it navigates (adblock off, or JavaScript off). */
export async function disableCookieConsent(page: Page): Promise<void> {
  const hook = hooks.get(page);
  if (!hook) return;
  hooks.delete(page);
  const identifier = await hook;
  if (identifier !== undefined) await page.removeScriptToEvaluateOnNewDocument(identifier);
}

type Status = {
  lifecycle: string;
  detected: boolean;
  patterns: number;
  searchingMs: number;
  /** A detection pass that began after the DOM last changed found nothing. */
  covered: boolean;
  /** The same, for a pass that also ran the heuristic (text) rules. */
  heuristicCovered: boolean;
  /** Read once the pass a hurried reading started had ended (rather than at once, or at the wait's bound). */
  passEnded: boolean;
};

/**
 * How long a hurried reading waits in the page for the pass it started: such
 * a pass takes a few milliseconds, and answering when it ends spares the
 * poll that would otherwise find it ended (a third of the banner step on a
 * page whose DOM changed after load, such as the bench's late content).
 */
const PASS_WAIT_MS = 100;

/**
 * Where autoconsent is in the current document; undefined when it does not run there.
 * With `hurry`, a detection pass the current DOM still needs starts now.
 */
async function statusOf(page: Page, hurry = false): Promise<Status | undefined> {
  return await page
    .evaluate(
      (key: string, now: boolean, passWaitMs: number) => {
        const read = (window as unknown as Record<string, unknown>)[key];
        if (typeof read !== 'function') return undefined;
        return (read as (hurry: boolean, passWaitMs: number) => unknown)(now, passWaitMs) as Status | Promise<Status>;
      },
      STATUS_KEY,
      hurry,
      hurry ? PASS_WAIT_MS : 0,
    )
    .catch(() => undefined);
}

async function settle(page: Page): Promise<void> {
  // Banners usually leave with a transition; give the page two frames to restyle.
  await page
    .evaluate(
      () =>
        new Promise<void>((resolve) => {
          requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
          setTimeout(resolve, 150);
        }),
    )
    .catch(() => undefined);
}

/** True once it is clear the page as it stands has no banner autoconsent could handle. */
function nothingToDismiss(status: Status): boolean {
  if (status.lifecycle !== 'started' || status.detected) return false;
  if (status.searchingMs >= SEARCH_PATIENCE_MS) return true;
  // Text that reads like a consent notice: wait for a pass with the heuristic rules as well.
  return status.covered && (status.patterns === 0 || status.heuristicCovered);
}

async function dismiss(page: Page, deadline: number): Promise<void> {
  let status = await statusOf(page);
  if (status === undefined) {
    // The document was not created by a navigation (setContent) or the page
    // loaded before the hook was set: start autoconsent in it now.
    await page.evaluate(await consentSource()).catch(() => undefined);
    status = await statusOf(page);
    if (status === undefined) return;
  }

  let popupWaitSince: number | undefined;
  while (status && !FINISHED.has(status.lifecycle)) {
    const now = Date.now();
    if (nothingToDismiss(status)) return;
    if (status.lifecycle === WAITING_FOR_POPUP) {
      popupWaitSince ??= now;
      if (now - popupWaitSince >= POPUP_PATIENCE_MS) return;
    } else {
      popupWaitSince = undefined;
    }
    if (now + POLL_MS > deadline) return;
    // The page has settled: what autoconsent would look at after its pause is already there.
    if (status.lifecycle === 'started') {
      const hurried = await statusOf(page, true);
      // The pass it started has ended and found the page clear: no poll needed to learn it.
      if (hurried?.passEnded && nothingToDismiss(hurried)) return;
    }
    await sleep(POLL_MS);
    status = await statusOf(page);
  }
  if (status && status.lifecycle !== 'nothingDetected') await settle(page);
}

/**
 * Called once the page has loaded (and settled): dismisses cookie-consent
 * banners, preferring reject / opt-out, and returns as soon as it is clear
 * there is none; bounded in time (≤ ~1.5 s), never throws.
 */
export async function dismissCookieBanners(page: Page): Promise<void> {
  const deadline = Date.now() + DISMISS_BUDGET_MS;
  // A closed page or a navigation in progress: the banner simply stays.
  await within(dismiss(page, deadline - 200).catch(() => undefined), DISMISS_BUDGET_MS, undefined);
}
