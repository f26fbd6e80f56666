/**
 * The page layer's main step: loads the plan's page source into a session
 * with every page option applied, then waits as the plan asks. Each wait is
 * a small step, run in the order written in `WAIT_STEPS`.
 */
import type { HTTPResponse, Page } from 'puppeteer-core';
import { sleep, waitAllowanceMs, waitsEndAt, within, type Deadline } from '../../deadline.js';
import { RenderError } from '../../errors.js';
import { step } from '../../step-bound.js';
import { PlanStepError } from '../errors.js';
import type { PageSession, RequestFilter } from '../browser/browser-session.js';
import type { PagePlan, ScreenPlan } from '../render-plan.js';
import type { RenderLog } from '../types.js';
import { loadAdblockEngine, loadedAdblockEngine, readPageTokens, type AdblockEngine } from './adblock.js';
import { disableCookieConsent, dismissCookieBanners, prepareCookieConsent } from './cookie-consent.js';
import { refusedByEgress, toPageLoadError } from './navigation-error.js';
import { guardNavigations } from './navigation-guard.js';
import { applyPageOptions } from './page-options.js';
import { assertSelector } from './selectors.js';
import { offerUserFonts } from './user-fonts.js';
import { AUTO_SETTLE_MAX_MS, trackCurrentDocument, waitForSettled } from './settle.js';

const noop = () => undefined;

/**
 * Past the waits' own timeouts, how long navigation and the wait may take
 * before their step gives up: puppeteer's timeouts answer first (a
 * navigation timeout is the caller's 400); this only catches a CDP call that
 * is never answered.
 */
const STEP_GRACE_MS = 1_000;

/** What the wait steps share: the session, the plan, the deadline, the phase timings, and the ad blocker when loading. */
type LoadContext = {
  session: PageSession;
  plan: PagePlan;
  deadline: Deadline;
  timings: Record<string, number>;
  engineLoading: Promise<AdblockEngine> | null;
  log: RenderLog | undefined;
};

/**
 * Loads the page source into the session's page with every page option
 * applied, and waits as the plan asks. Phase durations go into `timings`.
 */
export async function loadPage(
  session: PageSession,
  plan: PagePlan,
  deadline: Deadline,
  screen: ScreenPlan | null,
  timings: Record<string, number>,
  log?: RenderLog,
): Promise<void> {
  const { page } = session;
  const fromUrl = plan.source.kind === 'url';

  let started = Date.now();
  // Loaded when first needed, not at start-up: its ~0.2 s of CPU would otherwise fall on a cold
  // start or on a render of HTML that never makes a request. A site's render starts it now, while
  // the page itself downloads (element hiding needs it); otherwise the first request to be judged
  // does, and only requests wait for it.
  const engineLoading = plan.adblock && fromUrl ? loadAdblockEngine() : null;
  // A failure matters only to a render that needed the engine, and that one reports it.
  engineLoading?.catch(noop);
  session.policy.filter = plan.adblock ? adblockFilter(engineLoading, plan.source.kind === 'url' ? plan.source.url : 'about:blank') : null;
  await step(deadline, 'setup', Promise.all([
    applyPageOptions(session, plan, screen),
    plan.cookieConsent ? prepareCookieConsent(page) : disableCookieConsent(page),
    offerUserFonts(session, plan.fonts, !fromUrl),
  ]));
  timings.setup = Date.now() - started;

  // A page that keeps navigating away (an auto-clicking page, a redirect loop) ends the load at once, not at the timeout.
  const guard = guardNavigations(plan.source.kind);
  session.policy.navigationGuard = guard.allow;

  started = Date.now();
  const navigating = navigate(session, plan, deadline);
  // Once the guard has stopped the load, what the navigation does after is nobody's concern.
  navigating.catch(noop);
  await step(deadline, 'navigation', Promise.race([navigating, guard.stopped]), { boundMs: Math.max(1, waitAllowanceMs(deadline)) + STEP_GRACE_MS });
  timings.navigate = Date.now() - started;

  started = Date.now();
  const context: LoadContext = { session, plan, deadline, timings, engineLoading, log };
  const waitAsAsked = async () => {
    for (const [name, wait] of WAIT_STEPS) {
      const stepStarted = Date.now();
      // Each wait the plan asked for gets its own line in the request log's timings (`wait` is their sum).
      if (await wait(context)) timings[name] = Date.now() - stepStarted;
    }
  };
  const waiting = waitAsAsked();
  waiting.catch(noop);
  await step(deadline, 'wait', Promise.race([waiting, guard.stopped]), { boundMs: waitAllowanceMs(deadline) + STEP_GRACE_MS });
  timings.wait = Date.now() - started;
}

/**
 * The ad blocker as the session's request filter. The source of every judged
 * request is the page the caller asked for (about:blank for HTML): a new
 * iframe's own URL is about:blank, which the engine would take for a
 * top-level page and let through. One load per render at most: after a
 * failure, every request of the page must not start another.
 */
function adblockFilter(engineLoading: Promise<AdblockEngine> | null, sourceUrl: string): RequestFilter {
  let engine = loadedAdblockEngine();
  let loading = engineLoading;
  return {
    shouldBlock({ url, type }) {
      if (engine) return engine.shouldBlock({ url, type, sourceUrl });
      return (loading ??= loadAdblockEngine()).then((loaded) => {
        engine = loaded;
        return loaded.shouldBlock({ url, type, sourceUrl });
      });
    },
  };
}

/** Goes to the URL, or writes the HTML into the blank page, and waits for the `waitUntil` event. */
async function navigate(session: PageSession, plan: PagePlan, deadline: Deadline): Promise<void> {
  const { page } = session;
  const { source, waitUntil } = plan;
  const started = Date.now();
  const timeout = Math.max(1, waitAllowanceMs(deadline));
  let response: HTTPResponse | null = null;
  try {
    if (source.kind === 'url') {
      response = await page.goto(source.url, { waitUntil: waitUntil === 'auto' ? 'load' : waitUntil, timeout });
    } else {
      // setContent writes into the blank page already there: no new document, so the settle
      // tracker is put in by hand, before the caller's scripts run, as a navigation would have.
      if (plan.javascript) await trackCurrentDocument(page);
      // setContent knows no network idleness: wait for it the way goto would (500 ms idle).
      await page.setContent(source.html, { waitUntil: waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load', timeout });
      if (waitUntil === 'networkidle0' || waitUntil === 'networkidle2') {
        const concurrency = waitUntil === 'networkidle0' ? 0 : 2;
        await page.waitForNetworkIdle({ idleTime: 500, concurrency, timeout: Math.max(1, started + timeout - Date.now()) });
      }
    }
  } catch (error) {
    throw toPageLoadError(error, { timeoutMs: timeout, egress: session.launched.egress, lastUrl: session.policy.navigationUrl });
  }
  // A refused or unreachable address (the page itself or a redirect) answered by the egress proxy.
  const refused = response && refusedByEgress(response, session.launched.egress);
  if (refused) throw refused;
}

/** One wait after the load; true when the plan asked for it (it then has a time of its own). */
type WaitStep = (context: LoadContext) => Promise<boolean>;

/** `waitUntil: auto`: the page settles (timers, frames, DOM, network), within a bound. */
const settle: WaitStep = async ({ session, plan, deadline, timings, log }) => {
  if (plan.waitUntil !== 'auto') return false;
  const until = Math.min(Date.now() + AUTO_SETTLE_MAX_MS, waitsEndAt(deadline));
  const outcome = await waitForSettled(session.page, session.activity, { until, javascript: plan.javascript, log });
  // In the request's log line: a page captured at the bound (the reasons are logged by the wait).
  if (!outcome.settled) timings.unsettled = outcome.waitedMs;
  return true;
};

/**
 * After the settling: autoconsent has been at work in the page all along, and
 * it is the page as it now stands that must be free of banners (one that came
 * late is caught).
 */
const dismissBanners: WaitStep = async ({ session, plan, deadline }) => {
  if (!plan.cookieConsent) return false;
  await within(dismissCookieBanners(session.page).catch(noop), waitAllowanceMs(deadline), undefined);
  return true;
};

/** Element hiding only for sites: in the caller's own HTML a class named "ad" is theirs. */
const hideAds: WaitStep = async ({ session, plan, engineLoading }) => {
  const asked = engineLoading !== null && plan.source.kind === 'url';
  if (asked) {
    const engine = await engineLoading;
    await hideAdElements(session.page, engine.cosmeticCss(session.page.url(), await readPageTokens(session.page)));
  }
  if (session.policy.filterFailed) throw new RenderError('The ad blocker could not be loaded');
  return asked;
};

const selector: WaitStep = async ({ session, plan, deadline }) => {
  const option = plan.waitForSelector;
  if (!option) return false;
  await assertSelector(session.page, option.selector, 'waitForSelector');
  try {
    await session.page.waitForSelector(option.selector, { visible: option.visible, hidden: option.hidden, timeout: boundedTimeout(option.timeoutMs, deadline) });
  } catch {
    // The contract: when the selector does not appear in time, the render continues.
  }
  return true;
};

const pageFunction: WaitStep = async ({ session, plan, deadline }) => {
  const option = plan.waitForFunction;
  if (!option) return false;
  const expression = option.expression.trim().replace(/;+\s*$/, '');
  // An expression that throws (its element does not exist yet) counts as "not yet", not as a failure.
  const guarded = `(() => { try { return (${expression}\n); } catch { return false; } })()`;
  try {
    await session.page.waitForFunction(guarded, { polling: option.polling, timeout: boundedTimeout(option.timeoutMs, deadline) });
  } catch (error) {
    if (/SyntaxError/.test((error as Error).message)) {
      throw new PlanStepError('waitForFunction', 'Not a valid JavaScript expression', { cause: error });
    }
    // The contract: when the function does not succeed in time, the render continues.
  }
  return true;
};

const pause: WaitStep = async ({ plan, deadline }) => {
  if (!plan.waitForMilliseconds) return false;
  await sleep(Math.min(plan.waitForMilliseconds, waitAllowanceMs(deadline)));
  return true;
};

/** The waits after the load, in order, each with its name in the timings. */
const WAIT_STEPS: ReadonlyArray<readonly [string, WaitStep]> = [
  ['settle', settle],
  ['banners', dismissBanners],
  ['adHiding', hideAds],
  ['selector', selector],
  ['function', pageFunction],
  ['pause', pause],
];

/** Adds the ad blocker's element-hiding rules; a constructed sheet is not subject to the page's CSP. */
async function hideAdElements(page: Page, css: string): Promise<void> {
  if (!css) return;
  await page
    .evaluate((rules: string) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(rules);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }, css)
    .catch(noop);
}

/** Puppeteer reads a timeout of 0 as "forever"; the contract means "do not wait". */
function boundedTimeout(requested: number | null, deadline: Deadline): number {
  return Math.max(1, Math.min(requested ?? Number.POSITIVE_INFINITY, waitAllowanceMs(deadline)));
}
