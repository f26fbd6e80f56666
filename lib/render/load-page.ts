import type { HTTPResponse, Page, Viewport } from 'puppeteer-core';
import { RenderError, ValidationError } from '../errors.js';
import type { PageOptionsOutput } from '../schemas/render-options.js';
import { loadAdblockEngine, loadedAdblockEngine, readPageTokens } from './adblock.js';
import { disableCookieConsent, dismissCookieBanners, prepareCookieConsent, wantsCookieConsent } from './cookie-consent.js';
import { step } from '../step-bound.js';
import { captureReserveMs, sleep, waitAllowanceMs, within, type Deadline } from './deadline.js';
import { refusedByEgress, toNavigationError } from './navigation-error.js';
import type { PageSource } from './page-source.js';
import type { PageSession } from './page-session.js';
import { AUTO_SETTLE_MAX_MS, trackCurrentDocument, waitForSettled } from './settle.js';

/** Screen a screenshot is taken on; a PDF keeps the page's default. */
export type ScreenEmulation = { viewport: Viewport; userAgent?: string };

type CookieParam = {
  name: string;
  value: string;
  url?: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  expires?: number;
};

const noop = () => undefined;

/**
 * Past the waits' own timeouts, how long navigation and the wait may take
 * before their step gives up: puppeteer's timeouts answer first (a
 * navigation timeout is the caller's 400); this only catches a CDP call that
 * is never answered.
 */
const STEP_GRACE_MS = 1_000;

/**
 * Loads the page source into the session's page with every page option
 * applied, and waits as the options ask. Phase durations go into `timings`.
 */
export async function loadPage(
  session: PageSession,
  options: PageOptionsOutput,
  source: PageSource,
  deadline: Deadline,
  screen: ScreenEmulation | null,
  timings: Record<string, number>,
): Promise<void> {
  const { page } = session;
  const javascript = options.javascript !== false;
  const adblock = options.adblock !== false;
  const fromUrl = source.kind === 'url';
  const consent = wantsCookieConsent(options);

  let started = Date.now();
  // Loaded when first needed, not at start-up: its ~0.2 s of CPU would otherwise fall on a cold
  // start or on a render of HTML that never makes a request. A site's render starts it now, while
  // the page itself downloads (element hiding needs it); otherwise the first request to be judged
  // does, and only requests wait for it.
  const engineLoading = adblock && fromUrl ? loadAdblockEngine() : null;
  // A failure matters only to a render that needed the engine, and that one reports it.
  engineLoading?.catch(noop);
  session.policy.adblock = adblock ? (loadedAdblockEngine() ?? null) : null;
  // One load per render at most: after a failure every request of the page must not start another.
  let loading = engineLoading;
  session.policy.adblockLoading = adblock && !session.policy.adblock ? () => (loading ??= loadAdblockEngine()) : null;
  session.policy.pageUrl = fromUrl ? source.url : 'about:blank';
  await step(deadline, 'setup', Promise.all([
    applyPageOptions(session, options, source, screen),
    consent ? prepareCookieConsent(page) : disableCookieConsent(page),
  ]));
  timings.setup = Date.now() - started;

  started = Date.now();
  const waitUntil = options.waitUntil ?? 'auto';
  const timeout = Math.max(1, waitAllowanceMs(deadline));
  const navigate = async (): Promise<HTTPResponse | null> => {
    try {
      if (fromUrl) return await page.goto(source.url, { waitUntil: waitUntil === 'auto' ? 'load' : waitUntil, timeout });
      // setContent writes into the blank page already there: no new document, so the settle
      // tracker is put in by hand, before the caller's scripts run, as a navigation would have.
      if (javascript) await trackCurrentDocument(page);
      // setContent knows no network idleness: wait for it the way goto would (500 ms idle).
      await page.setContent(source.html, { waitUntil: waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load', timeout });
      if (waitUntil === 'networkidle0' || waitUntil === 'networkidle2') {
        const concurrency = waitUntil === 'networkidle0' ? 0 : 2;
        await page.waitForNetworkIdle({ idleTime: 500, concurrency, timeout: Math.max(1, started + timeout - Date.now()) });
      }
      return null;
    } catch (error) {
      throw toNavigationError(error, { field: source.field, timeoutMs: timeout, egress: session.launched.egress, lastUrl: session.policy.navigationUrl });
    }
  };
  const response = await step(deadline, 'navigation', navigate(), { boundMs: timeout + STEP_GRACE_MS });
  // A refused or unreachable address (the page itself or a redirect) answered by the egress proxy.
  const refused = response && refusedByEgress(response, session.launched.egress, source.field);
  if (refused) throw refused;
  timings.navigate = Date.now() - started;

  started = Date.now();
  await step(deadline, 'wait', waitAsAsked(session, options, deadline, { fromUrl, consent, engineLoading, timings }), {
    boundMs: waitAllowanceMs(deadline) + STEP_GRACE_MS,
  });
  timings.wait = Date.now() - started;
}

/** The waits after the page has loaded: settling, banners, ad hiding, and the caller's selector, function and delay. */
async function waitAsAsked(
  session: PageSession,
  options: PageOptionsOutput,
  deadline: Deadline,
  state: { fromUrl: boolean; consent: boolean; engineLoading: ReturnType<typeof loadAdblockEngine> | null; timings: Record<string, number> },
): Promise<void> {
  const { page } = session;
  const { fromUrl, consent, engineLoading, timings } = state;
  const javascript = options.javascript !== false;
  const waitUntil = options.waitUntil ?? 'auto';
  if (waitUntil === 'auto') {
    const until = Math.min(Date.now() + AUTO_SETTLE_MAX_MS, deadline.at - captureReserveMs(deadline.budgetMs));
    const outcome = await waitForSettled(page, session.activity, { until, javascript });
    // In the request's log line: a page captured at the bound (the reasons are logged by the wait).
    if (!outcome.settled) timings.unsettled = outcome.waitedMs;
  }
  // After the settling: autoconsent has been at work in the page all along, and it is the
  // page as it now stands that must be free of banners (one that came late is caught).
  if (consent) await within(dismissCookieBanners(page).catch(noop), waitAllowanceMs(deadline), undefined);
  // Element hiding only for sites: in the caller's own HTML a class named "ad" is theirs.
  if (engineLoading && fromUrl) {
    const engine = await engineLoading;
    await hideAdElements(page, engine.cosmeticCss(page.url(), await readPageTokens(page)));
  }
  if (session.policy.adblockFailed) throw new RenderError('The ad blocker could not be loaded');
  if (options.waitForSelector) await waitForSelectorOption(page, options.waitForSelector, deadline);
  if (options.waitForFunction) await waitForFunctionOption(page, options.waitForFunction, deadline);
  if (options.waitForMilliseconds) await sleep(Math.min(options.waitForMilliseconds, waitAllowanceMs(deadline)));
}

/** Everything that must be in place before the first request leaves: one round of CDP calls, in parallel. */
async function applyPageOptions(
  session: PageSession,
  options: PageOptionsOutput,
  source: PageSource,
  screen: ScreenEmulation | null,
): Promise<void> {
  const { page } = session;
  const pageUrl = source.kind === 'url' ? source.url : undefined;
  const { cookie: cookieHeader, ...headers } = lowerCaseKeys(options.headers ?? {});
  const cookies = [
    ...(options.cookies ?? []).map((cookie, index) => toCookieParam(cookie, pageUrl, `page.cookies.${index}.url`)),
    ...(cookieHeader ? parseCookieHeader(cookieHeader, pageUrl) : []),
  ];

  const steps: Array<Promise<unknown>> = [];
  if (Object.keys(headers).length > 0) steps.push(page.setExtraHTTPHeaders(headers));
  if (cookies.length > 0) steps.push(setCookies(session, cookies));
  if (options.authentication) {
    session.policy.usedCredentials = true;
    steps.push(page.authenticate({ username: options.authentication.username, password: options.authentication.password }));
  }
  if (options.javascript === false) steps.push(page.setJavaScriptEnabled(false));
  if (options.colorScheme || options.mediaType) {
    // One call for both: each setEmulatedMedia replaces the whole media emulation, so two calls would undo each other.
    const features = options.colorScheme ? [{ name: 'prefers-color-scheme', value: options.colorScheme }] : [];
    steps.push(session.cdp().then((cdp) => cdp.send('Emulation.setEmulatedMedia', { media: options.mediaType ?? '', features })));
  }
  if (options.timezone) steps.push(emulateTimezone(page, options.timezone));
  if (screen) {
    steps.push(page.setViewport(screen.viewport));
    if (screen.userAgent) steps.push(page.setUserAgent(screen.userAgent));
  }
  await Promise.all(steps);
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function toCookieParam(
  cookie: NonNullable<PageOptionsOutput['cookies']>[number],
  pageUrl: string | undefined,
  field: string,
): CookieParam {
  const url = cookie.url ?? (cookie.domain ? undefined : pageUrl);
  if (!url && !cookie.domain) {
    throw new ValidationError({ [field]: 'Give url or domain: the page is given as HTML, so the cookie has no site' });
  }
  const param: CookieParam = { name: cookie.name, value: cookie.value };
  if (url) param.url = url;
  if (cookie.domain) param.domain = cookie.domain;
  if (cookie.path != null) param.path = cookie.path;
  if (cookie.secure != null) param.secure = cookie.secure;
  if (cookie.httpOnly != null) param.httpOnly = cookie.httpOnly;
  if (cookie.sameSite != null) param.sameSite = cookie.sameSite;
  if (cookie.expires != null && cookie.expires >= 0) param.expires = cookie.expires;
  return param;
}

/** `headers.cookie` is cookies for the page's site, as a browser would have sent them. */
function parseCookieHeader(header: string, pageUrl: string | undefined): CookieParam[] {
  if (!pageUrl) {
    throw new ValidationError({ 'page.headers.cookie': 'Cookies need a site: use page.url, or page.cookies with a domain' });
  }
  return header
    .split(';')
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? { name: '', value: pair.trim() } : { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
    })
    .filter((cookie) => cookie.name !== '')
    .map((cookie) => ({ ...cookie, url: pageUrl }));
}

async function setCookies(session: PageSession, cookies: CookieParam[]): Promise<void> {
  try {
    await (await session.cdp()).send('Network.setCookies', { cookies });
  } catch (error) {
    throw new ValidationError({ 'page.cookies': `Chromium refused a cookie: ${(error as Error).message}` }, { cause: error });
  }
}

async function emulateTimezone(page: Page, timezone: string): Promise<void> {
  try {
    await page.emulateTimezone(timezone);
  } catch (error) {
    throw new ValidationError({ 'page.timezone': 'Unknown time zone' }, { cause: error });
  }
}

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
function boundedTimeout(requested: number | null | undefined, deadline: Deadline): number {
  return Math.max(1, Math.min(requested ?? Number.POSITIVE_INFINITY, waitAllowanceMs(deadline)));
}

async function waitForSelectorOption(
  page: Page,
  option: NonNullable<PageOptionsOutput['waitForSelector']>,
  deadline: Deadline,
): Promise<void> {
  const visible = option.options?.visible ?? undefined;
  const hidden = option.options?.hidden ?? undefined;
  await assertSelector(page, option.selector, 'page.waitForSelector.selector');
  try {
    await page.waitForSelector(option.selector, { visible, hidden, timeout: boundedTimeout(option.options?.timeout, deadline) });
  } catch {
    // The contract: when the selector does not appear in time, the render continues.
  }
}

/**
 * Refuses a selector that is not valid CSS (puppeteer's waits would only
 * time out on it): one query, which throws a SyntaxError for bad syntax.
 */
export async function assertSelector(page: Page, selector: string, field: string): Promise<void> {
  try {
    const found = await page.$(selector);
    await found?.dispose();
  } catch (error) {
    if (/SyntaxError|not a valid selector|Invalid selector/i.test(String((error as Error).message ?? error))) {
      throw new ValidationError({ [field]: 'Not a valid CSS selector' }, { cause: error });
    }
    // Anything else (a navigation in progress) is for the wait itself to deal with.
  }
}

async function waitForFunctionOption(
  page: Page,
  option: NonNullable<PageOptionsOutput['waitForFunction']>,
  deadline: Deadline,
): Promise<void> {
  const expression = option.pageFunction.trim().replace(/;+\s*$/, '');
  // An expression that throws (its element does not exist yet) counts as "not yet", not as a failure.
  const guarded = `(() => { try { return (${expression}\n); } catch { return false; } })()`;
  try {
    await page.waitForFunction(guarded, {
      polling: option.options?.polling ?? 'raf',
      timeout: boundedTimeout(option.options?.timeout, deadline),
    });
  } catch (error) {
    if (/SyntaxError/.test((error as Error).message)) {
      throw new ValidationError({ 'page.waitForFunction.pageFunction': 'Not a valid JavaScript expression' }, { cause: error });
    }
    // The contract: when the function does not succeed in time, the render continues.
  }
}
