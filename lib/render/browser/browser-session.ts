import type { BrowserContext, CDPSession, HTTPRequest, Page, Target } from 'puppeteer-core';
import type { LaunchedBrowser } from './launch-browser.js';
import { createNetworkActivity, type NetworkActivity } from './network-activity.js';

/** A subresource request as a filter judges it. */
export type FilterQuery = { url: string; type: string };

/**
 * Decides which subresources a page may load (the page layer's ad blocker is
 * one). A promise while the filter is still loading: the request waits for
 * it, so a page without subresources never waits; a rejected promise fails
 * the request and marks the session (`policy.filterFailed`).
 */
export type RequestFilter = { shouldBlock(query: FilterQuery): boolean | Promise<boolean> };

/** What the request handler of a session decides with; set per render before the page loads. */
export type RequestPolicy = {
  /** Consulted for every subresource but the page's own document when set. */
  filter: RequestFilter | null;
  /** A request needed the filter and it could not be loaded: the render must fail, not let everything through. */
  filterFailed: boolean;
  /**
   * HTTP credentials were used (page option, or a URL with user:password@).
   * Chromium keeps them in a cache no DevTools call clears, so under
   * --single-process the browser is not reused after such a render.
   */
  usedCredentials: boolean;
  /** The last URL the main frame was sent to (the page, then each redirect hop): what a failed navigation names. */
  navigationUrl: string;
  /**
   * Consulted for every navigation request of the main frame when set (the page itself, a redirect hop, a
   * link followed, a form sent, a script's change of location): false aborts it, and the page stays on the
   * document it shows.
   */
  navigationGuard: ((navigation: { url: string; redirect: boolean }) => boolean) | null;
  /** The account's fonts of this render (lib/render/page/user-fonts.ts): requests under USER_FONTS_ORIGIN are answered from them alone. */
  userFonts?: UserFontsPolicy | null;
};

/**
 * Where a page's user fonts are fetched from: a host under `.invalid` (RFC 2606), which never
 * resolves, so such a request never leaves the browser; the session's request handler answers it.
 */
export const USER_FONTS_ORIGIN = 'https://fonts.docrender.invalid';

/** How this render's user fonts are answered: under its own nonce only, each font by id. */
export type UserFontsPolicy = {
  nonce: string;
  serve(fontId: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
};

/**
 * Answers a request for a user font: the font when the path names this
 * render's nonce and one of its fonts, else a refusal (another render's nonce,
 * a guessed id, no fonts at all). Fonts are fetched in CORS mode, from a page
 * of another origin: the answer allows any origin, as the bytes go to this page only.
 */
function answerUserFont(request: HTTPRequest, url: string, fonts: UserFontsPolicy | null | undefined): void {
  const [nonce, id, ...rest] = url.slice(USER_FONTS_ORIGIN.length + 1).split(/[/?#]/);
  if (!fonts || nonce !== fonts.nonce || !id || rest.some((part) => part !== '') || request.method() !== 'GET') {
    void request.abort('blockedbyclient').catch(noop);
    return;
  }
  fonts.serve(id).then(
    (font) =>
      void (font
        ? request.respond({ status: 200, contentType: font.contentType, headers: { 'access-control-allow-origin': '*', 'cache-control': 'no-store' }, body: Buffer.from(font.bytes) })
        : request.abort('blockedbyclient')
      ).catch(noop),
    () => void request.abort('failed').catch(noop),
  );
}

/** An isolated page, ready to load what one render asks for. */
export type PageSession = {
  page: Page;
  /**
   * A CDP session of the page, for what puppeteer has no call for (cookies by URL, media features,
   * stopping scripts): attached on first use, as most renders never need one.
   */
  cdp(): Promise<CDPSession>;
  launched: LaunchedBrowser;
  activity: NetworkActivity;
  policy: RequestPolicy;
  /** Another page in the same isolation (used to compose overlays). */
  openSidePage(): Promise<Page>;
  /** Stops the scripts of a page that hangs, so that it can be closed. */
  interrupt(): Promise<void>;
  /**
   * Closes the pages (and context); in single-process mode also wipes what
   * they stored. Resolves false when the browser holds state of this render
   * that could not be wiped and must not serve another one.
   */
  dispose(): Promise<boolean>;
};

/** What a session is prepared for ahead of its render. */
export type SessionOptions = {
  /** Registers the cookie-banner hook (a large script: worth sending ahead only when URL renders are expected). */
  cookieConsent?: boolean;
};

/** Opens render sessions in one browser and closes every window nobody asked for. */
export type SessionFactory = {
  open(options?: SessionOptions): Promise<PageSession>;
};

/**
 * What the layer above puts into every new page before it is handed out (its
 * new-document scripts), in the same round of calls as the session's own set-up;
 * `alongside` is this layer's script, to be registered with them in one call.
 */
export type PreparePage = (page: Page, options: { alongside: string; cookieConsent: boolean }) => Promise<unknown>;

const noop = () => undefined;

/**
 * Headless Chromium has no popup blocker: `window.open` answers as a blocked
 * popup does, so nothing is loaded. Windows opened another way (a link with
 * target=_blank) are closed as soon as they appear.
 */
const NO_POPUPS_SOURCE = 'window.open = function open() { return null; };';

/**
 * Subresources may only come over http(s), or from `data:` and `blob:` URLs
 * the page builds itself; `file:`, `chrome:`, `view-source:`… are refused.
 */
function allowedScheme(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://') || url.startsWith('data:') || url.startsWith('blob:');
}

/** An http(s) URL whose authority carries `user[:password]@`. */
const USERINFO = /^https?:\/\/[^/?#]*@/i;

function originOf(url: string): string | undefined {
  if (!url.startsWith('http')) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Creates sessions for one launched browser. In multi-process mode each
 * session is a fresh incognito context; under `--single-process`, where
 * creating a context kills the browser, it is a fresh page in the default
 * context whose cookies, storage and cache are wiped when it is disposed.
 */
export function createSessionFactory(launched: LaunchedBrowser, preparePage: PreparePage): SessionFactory {
  const { browser, mode } = launched;
  const ownTargets = new WeakSet<Target>();
  let creating: Promise<unknown> = Promise.resolve();
  let janitor: Promise<CDPSession> | undefined;
  // Taken before any page of ours exists: the blank page Chromium opened at launch.
  const initialPages = mode === 'single-process' ? browser.pages() : Promise.resolve([]);

  // A target event for one of our own pages arrives before newPage() resolves,
  // so wait for creations in flight before calling a page a popup.
  browser.on('targetcreated', (target: Target) => {
    if (target.type() !== 'page') return;
    void (async () => {
      await creating;
      if (ownTargets.has(target)) return;
      const popup = await target.page();
      await popup?.close();
    })().catch(noop);
  });

  const newOwnPage = (context: BrowserContext): Promise<Page> => {
    const created = context.newPage().then((page) => {
      ownTargets.add(page.target());
      return page;
    });
    // `.then(noop)`: the chain must not hold on to every page ever created.
    creating = Promise.allSettled([creating, created]).then(noop);
    return created;
  };

  /**
   * Wipes what pages left in the default context. Storage calls only work on a
   * page's session, and the render's own pages are closed first (a page that
   * still runs could write again), so this goes through the blank page Chromium
   * opened at launch, which is never used for anything else.
   */
  const wipeDefaultContext = async (origins: Set<string>) => {
    janitor ??= initialPages.then((pages) => {
      const blank = pages.find((p) => !p.isClosed());
      if (!blank) throw new Error('The initial blank page is gone');
      return blank.createCDPSession();
    });
    const cdp = await janitor;
    await Promise.all([
      cdp.send('Network.clearBrowserCookies'),
      cdp.send('Network.clearBrowserCache'),
      ...[...origins].map((origin) => cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
    ]);
  };

  return {
    async open(options = {}) {
      const context = mode === 'multi-process'
        ? await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } })
        : browser.defaultBrowserContext();
      const pages: Page[] = [];
      const origins = new Set<string>();
      const trackOrigins = mode === 'single-process';
      const activity = createNetworkActivity();
      const policy: RequestPolicy = { filter: null, filterFailed: false, usedCredentials: false, navigationUrl: '', navigationGuard: null, userFonts: null };

      const closeAll = async (): Promise<boolean> => {
        if (mode === 'multi-process') {
          await context.close();
          return true;
        }
        await Promise.all(pages.map((p) => p.close()));
        await wipeDefaultContext(origins);
        return !policy.usedCredentials;
      };

      try {
        const page = await newOwnPage(context);
        pages.push(page);
        const main = page.mainFrame();

        // The one request handler: cheap checks first, it runs for every request.
        page.on('request', (request: HTTPRequest) => {
          activity.started(request);
          const url = request.url();
          if (url.startsWith(`${USER_FONTS_ORIGIN}/`)) {
            answerUserFont(request, url, policy.userFonts);
            return;
          }
          if (!allowedScheme(url)) {
            void request.abort('accessdenied').catch(noop);
            return;
          }
          if (request.isNavigationRequest() && request.frame() === main) {
            // Aborted, not blocked: Chromium shows no error page for an aborted navigation, the document stays.
            if (policy.navigationGuard && !policy.navigationGuard({ url, redirect: request.redirectChain().length > 0 })) {
              void request.abort('aborted').catch(noop);
              return;
            }
            policy.navigationUrl = url;
          }
          if (trackOrigins) {
            const origin = originOf(url);
            if (origin) origins.add(origin);
            if (USERINFO.test(url)) policy.usedCredentials = true;
          }
          if (policy.filter && url.startsWith('http')) {
            const type = request.resourceType();
            const mainDocument = type === 'document' && request.frame() === main && request.isNavigationRequest();
            if (!mainDocument) {
              // Any document but the page's own is a frame.
              const verdict = policy.filter.shouldBlock({ url, type: type === 'document' ? 'sub_frame' : type });
              if (verdict === true) {
                void request.abort('blockedbyclient').catch(noop);
                return;
              }
              if (verdict !== false) {
                verdict.then(
                  (block) => void (block ? request.abort('blockedbyclient') : request.continue()).catch(noop),
                  () => {
                    policy.filterFailed = true;
                    void request.abort('failed').catch(noop);
                  },
                );
                return;
              }
            }
          }
          void request.continue().catch(noop);
        });
        page.on('requestfinished', (request: HTTPRequest) => activity.ended(request));
        page.on('requestfailed', (request: HTTPRequest) => activity.ended(request));
        page.on('requestservedfromcache', (request: HTTPRequest) => activity.ended(request));
        page.on('dialog', (dialog) => void dialog.dismiss().catch(noop));

        let pageCdp: Promise<CDPSession> | undefined;
        const cdp = () => (pageCdp ??= page.createCDPSession());
        await Promise.all([
          page.setRequestInterception(true),
          page.setUserAgent(launched.userAgent),
          preparePage(page, { alongside: NO_POPUPS_SOURCE, cookieConsent: options.cookieConsent === true }),
        ]);

        return {
          page,
          cdp,
          launched,
          activity,
          policy,
          async openSidePage() {
            const side = await newOwnPage(context);
            pages.push(side);
            return side;
          },
          async interrupt() {
            await (await cdp()).send('Runtime.terminateExecution');
          },
          dispose: closeAll,
        };
      } catch (error) {
        await closeAll().catch(noop);
        throw error;
      }
    },
  };
}
