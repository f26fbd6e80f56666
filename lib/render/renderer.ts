import { RenderError, RenderTimeoutError, ServiceError } from '../errors.js';
import { sharedEgressProxy } from '../net/index.js';
import { launchBrowser, type LaunchedBrowser } from './browser-process.js';
import { startDeadline, within, type Deadline } from './deadline.js';
import type { PageSession, SessionFactory } from './page-session.js';
import type { RenderInput, Renderer, RendererOptions, RenderResult } from './types.js';

/** One launched browser and the session prepared for its next render. */
type BrowserSlot = {
  launched: LaunchedBrowser;
  sessions: SessionFactory;
  /** Sessions opened ahead of the renders that will take them, oldest first (see `anticipate`). */
  spares: Array<Promise<PageSession | undefined>>;
  /** Renders given this browser so far, and those still running in it. */
  served: number;
  active: number;
};

/** How long closing what a timed-out render left behind may take before the browser is killed instead. */
const RECOVERY_MS = 2_000;

/** How long wiping a single-process render's cookies and storage may take before the browser is killed instead. */
const WIPE_MS = 5_000;

const noop = () => undefined;

/**
 * Renders one browser serves before it is replaced (as Gotenberg restarts
 * Chromium after N conversions): its browser process keeps descriptors on
 * deleted shared-memory files of the contexts it has closed (about 0.7 per
 * render, measured by `npm run soak`), which would exhaust Lambda's 1,024
 * descriptors in a container that lives for hours. The replacement
 * launches alongside the old browser's last render (on Lambda there is no
 * idle time after an answer to launch it in), so the next render finds it
 * warm; often enough that every stretch of renders pays it alike (Gotenberg
 * restarts after 10).
 */
const RENDERS_PER_BROWSER = 50;

/**
 * What renders and sets pages up, loaded once Chromium's process is started
 * rather than before: a cold start spawns Chromium first and loads the rest
 * (page set-up, schemas, templates, capture) while it boots.
 */
type RenderModules = {
  createSessionFactory: typeof import('./page-session.js').createSessionFactory;
  renderInSession: typeof import('./render-page.js').renderInSession;
  wantsCookieConsent: typeof import('./cookie-consent.js').wantsCookieConsent;
};
let modules: Promise<RenderModules> | undefined;
const renderModules = (): Promise<RenderModules> =>
  (modules ??= Promise.all([import('./page-session.js'), import('./render-page.js'), import('./cookie-consent.js')]).then(
    ([session, render, consent]) => ({ createSessionFactory: session.createSessionFactory, renderInSession: render.renderInSession, wantsCookieConsent: consent.wantsCookieConsent }),
  ));

/**
 * Creates the renderer of this process: one Chromium, launched on first use
 * (or by `warm()`) and reused, a fresh isolated session per render prepared
 * ahead of time, a time budget per render after which the render fails with
 * `RenderTimeoutError` and whatever hung is closed or the browser killed, and
 * a relaunch whenever the browser has gone away.
 */
export function createRenderer(options: RendererOptions): Renderer {
  const { mode } = options;
  const rendersPerBrowser = options.rendersPerBrowser ?? RENDERS_PER_BROWSER;
  let slot: BrowserSlot | undefined;
  let launching: Promise<BrowserSlot> | undefined;
  let closed = false;
  // Cleanup the next render must wait for: wiping state (single-process), or closing what a timed-out render left.
  let pending: Promise<void> = Promise.resolve();
  // Under --single-process all pages share one context, so renders take turns.
  let turn: Promise<unknown> = Promise.resolve();
  /** Whether the spare should come with the cookie-banner hook: the last render wanted one. */
  let expectCookieConsent = false;

  const waitForIt = (task: Promise<void>) => {
    pending = Promise.all([pending, task]).then(noop);
  };

  const retire = (s: BrowserSlot) => {
    if (slot === s) slot = undefined;
    s.launched.kill();
  };

  const browserSlot = (): Promise<BrowserSlot> => {
    if (closed) return Promise.reject(new RenderError('The renderer is closed'));
    if (slot?.launched.browser.connected && slot.served < rendersPerBrowser) return Promise.resolve(slot);
    if (slot && slot.active > 0 && slot.launched.browser.connected) {
      // Worn out but still rendering: it goes when its last render ends (see run's finally).
      slot = undefined;
    } else if (slot) {
      retire(slot);
    }
    launching ??= (async () => {
      const egress = await (options.egress ?? sharedEgressProxy)();
      const launched = await launchBrowser({
        mode,
        egress,
        ...(options.executablePath ? { executablePath: options.executablePath } : {}),
        ...(options.chromiumPackDir ? { chromiumPackDir: options.chromiumPackDir } : {}),
      });
      let createSessionFactory: RenderModules['createSessionFactory'];
      try {
        ({ createSessionFactory } = await renderModules());
      } catch (error) {
        launched.kill();
        throw error;
      }
      const s: BrowserSlot = { launched, sessions: createSessionFactory(launched), spares: [], served: 0, active: 0 };
      if (closed) {
        launched.kill();
        throw new RenderError('The renderer is closed');
      }
      launched.browser.once('disconnected', () => {
        if (slot === s) slot = undefined;
      });
      slot = s;
      return s;
    })().finally(() => {
      launching = undefined;
    });
    return launching;
  };

  /** Opens sessions until `count` are ready or under way. */
  const prepareSpare = (s: BrowserSlot, count = 1) => {
    // A worn browser gets no spare: it is replaced once its renders end.
    if (closed || slot !== s || !s.launched.browser.connected || s.served >= rendersPerBrowser) return;
    while (s.spares.length < count) s.spares.push(s.sessions.open({ cookieConsent: expectCookieConsent }).catch(() => undefined));
  };

  const takeSession = async (s: BrowserSlot): Promise<PageSession> => {
    const spare = s.spares.shift();
    // The next render's session is opened now, alongside this render, not after the answer: on
    // Lambda the process tree is frozen as soon as the handler returns, so work left for "after"
    // would only run at the start of the next invocation, on its critical path. Opening a session
    // is mostly Chromium starting a renderer process, in its own process, while this render waits
    // on its page; by the time this answer is sent the next session is (nearly) ready.
    // Under --single-process the spare would share the default context with this render's page,
    // so there it is opened once this render's state has been wiped (see release).
    if (mode === 'multi-process') prepareSpare(s);
    const session = spare ? await spare : undefined;
    if (session && s.launched.browser.connected) return session;
    return s.sessions.open();
  };

  /** Closes a finished render's session; single-process renders also wipe what the page stored. */
  const release = (s: BrowserSlot, session: PageSession) => {
    if (mode === 'multi-process') {
      // The spare is normally under way already (takeSession); this opens one if that failed.
      // A context that will not close means a browser in trouble.
      prepareSpare(s);
      void within(session.dispose().catch(() => false), WIPE_MS, false).then((closedInTime) => {
        if (!closedInTime) retire(s);
      });
      return;
    }
    waitForIt((async () => {
      const wiped = await within(session.dispose().catch(() => false), WIPE_MS, false);
      // State that could not be wiped must not reach the next render: start over.
      if (!wiped) retire(s);
      else prepareSpare(s);
    })());
  };

  /** After a timeout: stop and close what hung; if that does not work at once, kill the browser. */
  const recover = (s: BrowserSlot | undefined, session: PageSession | undefined) => {
    waitForIt((async () => {
      if (!s) return;
      if (!session) {
        // The browser did not even give us a page within the whole budget: it hangs.
        retire(s);
        return;
      }
      const closedInTime = await within(
        session.interrupt().catch(noop).then(() => session.dispose()).catch(() => false),
        RECOVERY_MS,
        false,
      );
      if (!closedInTime) retire(s);
      else prepareSpare(s);
    })());
  };

  const run = async (input: RenderInput, deadline: Deadline): Promise<RenderResult> => {
    const started = Date.now();
    const { renderInSession, wantsCookieConsent } = await renderModules();
    expectCookieConsent = wantsCookieConsent(input.page);
    const timings: Record<string, number> = {};
    let s: BrowserSlot | undefined;
    let session: PageSession | undefined;
    let timedOut = false;
    const claim = (next: BrowserSlot) => {
      if (s) s.active -= 1;
      s = next;
      next.active += 1;
      next.served += 1;
    };

    const work = (async () => {
      await within(pending, deadline.remaining(), undefined);
      let current = await browserSlot();
      claim(current);
      if (current.served >= rendersPerBrowser && !closed) {
        // This browser's last render: its replacement launches (and opens its first session) now,
        // alongside it, rather than on the next render's critical path after the freeze.
        void browserSlot().then((next) => prepareSpare(next), noop);
      }
      let opened: PageSession;
      try {
        opened = await takeSession(current);
      } catch {
        // A browser that cannot open a page is broken: replace it once before giving up.
        retire(current);
        current = await browserSlot();
        claim(current);
        opened = await current.sessions.open();
      }
      if (timedOut) {
        // Too late: the caller has had its answer; the session was never used.
        release(current, opened);
        throw new RenderTimeoutError(deadline.budgetMs);
      }
      session = opened;
      timings.context = Date.now() - started;
      return renderInSession(opened, input, deadline, timings);
    })();

    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new RenderTimeoutError(deadline.budgetMs));
      }, deadline.remaining());
    });

    try {
      const result = await Promise.race([work, expired]);
      timings.total = Date.now() - started;
      return result;
    } catch (error) {
      // A step bounded by what was left of the budget (printing, capturing) can fail a moment
      // before the budget's own timer fires: that is the budget running out all the same.
      if (!timedOut && deadline.remaining() === 0) {
        timedOut = true;
        error = new RenderTimeoutError(deadline.budgetMs, { cause: error });
      }
      if (timedOut) {
        work.catch(noop);
        recover(s, session);
        throw error;
      }
      if (s && !s.launched.browser.connected) {
        throw new RenderError('The browser stopped while rendering', { cause: error });
      }
      if (error instanceof ServiceError) throw error;
      throw new RenderError('Rendering failed', { cause: error });
    } finally {
      clearTimeout(timer);
      if (!timedOut && s && session) release(s, session);
      if (s) {
        s.active -= 1;
        if (s.served >= rendersPerBrowser && s.active === 0) {
          // Its session is closing with it; the replacement launches now rather than in the next render.
          retire(s);
          if (!closed) void browserSlot().then(prepareSpare, noop);
        }
      }
    }
  };

  return {
    render(input, renderOptions) {
      const deadline = startDeadline(renderOptions?.timeoutMs ?? options.timeoutMs);
      if (mode === 'multi-process') return run(input, deadline);
      const result = turn.then(() => run(input, deadline));
      turn = result.catch(noop);
      return result;
    },

    anticipate() {
      // Called as an invocation that will render begins, before its checks (auth, rate, quota: round
      // trips to DynamoDB, during which this process and Chromium sit idle). The session the render
      // after this one will take starts opening now: Chromium starting a renderer process is most of
      // an isolated session's cost, and started here it overlaps those round trips instead of only
      // this render. At most two sessions are ever ahead (an invocation that ends up not rendering
      // leaves the second for the next one).
      if (mode === 'multi-process' && slot) prepareSpare(slot, 2);
    },

    async warm() {
      const s = await browserSlot();
      prepareSpare(s);
      // The ad blocker is not loaded here: see loadPage, it loads with the first render that needs it.
      await s.spares[0];
    },

    async close() {
      closed = true;
      const current = slot ?? (await launching?.catch(() => undefined));
      if (!current) return;
      retire(current);
      await current.launched.gone;
    },
  };
}
