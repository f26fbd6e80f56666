import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'puppeteer-core';

/**
 * Cookie-consent banners, dismissed with DuckDuckGo's autoconsent: its rules
 * recognise several hundred consent platforms and click "reject" (opt out).
 * Wired as its Puppeteer guide describes: the content bundle runs in every
 * new document (`evaluateOnNewDocument`) and talks to us through an exposed
 * binding; we answer its `init` with the rules and the config.
 *
 * The bundle runs in the page's main world (that is where
 * `evaluateOnNewDocument` puts it), so it is configured as such and runs its
 * rule snippets itself; no page-supplied code is ever evaluated by us.
 */

const BINDING = 'autoconsentSendMessage';
/** Whole time `dismissCookieBanners` may take. */
export const DISMISS_BUDGET_MS = 1500;
/** How long a consent platform that shows no popup is given to show one. */
const POPUP_PATIENCE_MS = 600;
/** How long autoconsent may search a document for a consent platform before we stop waiting for it. */
const SEARCH_PATIENCE_MS = 1000;
const POLL_MS = 100;

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
  // Each retry waits 500 ms for the DOM to change; the page is still loading meanwhile.
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

type Assets = { script: string; rules: unknown };
let assets: Promise<Assets> | undefined;

function loadAssets(): Promise<Assets> {
  assets ??= (async () => {
    const require = createRequire(import.meta.url);
    // The content bundle is not in the package's exports map; it sits beside the main entry.
    const dist = dirname(require.resolve('@duckduckgo/autoconsent'));
    const [script, compact] = await Promise.all([
      readFile(join(dist, 'autoconsent.playwright.js'), 'utf8'),
      readFile(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8').then((text) => JSON.parse(text) as unknown),
    ]);
    // A RuleBundle: the compact encoding goes under `compact` (passed bare, no rule would load).
    return { script, rules: { autoconsent: [], compact } };
  })().catch((error: unknown) => {
    assets = undefined;
    throw error;
  });
  return assets;
}

type PageState = {
  nonce: string;
  /** Window property where the page-side wrapper records the lifecycle of the current document. */
  statusKey: string;
  /** The content bundle wrapped to run in the top frame only, with the wrapper before it. */
  source: string;
};

const states = new WeakMap<Page, PageState>();

/**
 * Runs before the bundle: messages from the top frame get our nonce, and the
 * lifecycle the bundle reports is kept on the window so that we can ask the
 * current document how far it got. Frames are skipped: the binding cannot
 * tell which frame called it, and answering a frame in the top document
 * would be wrong.
 */
function pageSource(nonce: string, statusKey: string, script: string): string {
  const wrapper = `(function (nonce, key) {
  var raw = window.${BINDING};
  if (typeof raw !== 'function') return;
  var searchStarted;
  window.${BINDING} = function (message) {
    try {
      if (message && message.type === 'report' && message.mainFrame && message.state) {
        var lifecycle = String(message.state.lifecycle);
        if (lifecycle === 'started' && searchStarted === undefined) searchStarted = performance.now();
        Object.defineProperty(window, key, {
          value: function () { return { lifecycle: lifecycle, searchingMs: searchStarted === undefined ? 0 : performance.now() - searchStarted }; },
          configurable: true, writable: true, enumerable: false,
        });
      }
    } catch (e) {}
    return raw(Object.assign({}, message, { __nonce: nonce }));
  };
  Object.defineProperty(window, key, {
    value: function () { return { lifecycle: 'loading', searchingMs: 0 }; },
    configurable: true, writable: true, enumerable: false,
  });
})(${JSON.stringify(nonce)}, ${JSON.stringify(statusKey)});`;
  return `if (window.self === window.top && !window.autoconsentReceiveMessage) {\n${wrapper}\n${script}\n}`;
}

async function reply(page: Page, message: unknown): Promise<void> {
  await page
    .evaluate((msg: unknown) => {
      const receive = (window as unknown as { autoconsentReceiveMessage?: (m: unknown) => Promise<void> }).autoconsentReceiveMessage;
      // Not awaited: the bundle's handlers can run for seconds.
      if (receive) void receive(msg);
    }, message)
    .catch(() => undefined);
}

async function onMessage(page: Page, state: PageState, message: unknown): Promise<void> {
  if (!message || typeof message !== 'object') return;
  const { type, __nonce: nonce, id } = message as { type?: unknown; __nonce?: unknown; id?: unknown };
  if (nonce !== state.nonce) return;
  if (type === 'init') {
    const { rules } = await loadAssets();
    await reply(page, { type: 'initResp', config: AUTOCONSENT_CONFIG, rules });
  } else if (type === 'eval') {
    // Only sent with isMainWorld false; answer "no" rather than evaluate code a page sent us.
    await reply(page, { type: 'evalResp', id, result: false });
  }
}

/** Called on a fresh page before navigation when adblock is on (e.g. evaluateOnNewDocument of a content script + exposeFunction/binding). */
export async function prepareCookieConsent(page: Page): Promise<void> {
  if (states.has(page)) return;
  const { script } = await loadAssets();
  const nonce = randomUUID();
  const state: PageState = { nonce, statusKey: `__consent_${nonce.slice(0, 8)}`, source: '' };
  state.source = pageSource(nonce, state.statusKey, script);
  states.set(page, state);
  // The binding first: the bundle captures it when it starts.
  await page.exposeFunction(BINDING, (message: unknown) => onMessage(page, state, message).catch(() => undefined));
  await page.evaluateOnNewDocument(state.source);
}

type Status = { lifecycle: string; searchingMs: number };

/** Where autoconsent is in the current document; undefined when it does not run there. */
async function statusOf(page: Page, state: PageState): Promise<Status | undefined> {
  return await page
    .evaluate((key: string) => {
      const read = (window as unknown as Record<string, unknown>)[key];
      if (typeof read !== 'function') return undefined;
      const status = (read as () => unknown)() as { lifecycle?: unknown; searchingMs?: unknown } | undefined;
      return typeof status?.lifecycle === 'string' && typeof status.searchingMs === 'number'
        ? { lifecycle: status.lifecycle, searchingMs: status.searchingMs }
        : undefined;
    }, state.statusKey)
    .catch(() => undefined);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

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

async function dismiss(page: Page, deadline: number): Promise<void> {
  if (!states.has(page)) await prepareCookieConsent(page);
  const state = states.get(page);
  if (!state) return;

  let status = await statusOf(page, state);
  if (status === undefined) {
    // The document was not created by a navigation (setContent) or the page
    // loaded before the hook was set: start autoconsent in it now.
    await page.evaluate(state.source).catch(() => undefined);
    status = await statusOf(page, state);
    if (status === undefined) return;
  }

  let popupWaitSince: number | undefined;
  while (status && !FINISHED.has(status.lifecycle)) {
    const now = Date.now();
    if (status.lifecycle === 'started' && status.searchingMs >= SEARCH_PATIENCE_MS) return;
    if (status.lifecycle === WAITING_FOR_POPUP) {
      popupWaitSince ??= now;
      if (now - popupWaitSince >= POPUP_PATIENCE_MS) return;
    } else {
      popupWaitSince = undefined;
    }
    if (now + POLL_MS > deadline) return;
    await sleep(POLL_MS);
    status = await statusOf(page, state);
  }
  if (status && status.lifecycle !== 'nothingDetected') await settle(page);
}

/** Called after the page loaded; dismisses (rejects/opt-out preferred) cookie-consent banners; bounded in time (≤ ~1.5 s), never throws. */
export async function dismissCookieBanners(page: Page): Promise<void> {
  const deadline = Date.now() + DISMISS_BUDGET_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      dismiss(page, deadline - 200),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DISMISS_BUDGET_MS);
      }),
    ]);
  } catch {
    // A closed page or a navigation in progress: the banner simply stays.
  } finally {
    clearTimeout(timer);
  }
}
