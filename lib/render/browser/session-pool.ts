/**
 * The pool of isolated sessions: each render takes a fresh one (an incognito
 * context; under --single-process a page whose state is wiped afterwards),
 * opened ahead of the render that takes it, closed after it, and what a
 * timed-out render left behind is closed or the browser killed. Single-process
 * Chromium's differences (one render at a time, wiping instead of closing a
 * context, no session opened alongside a render) stay inside this layer.
 */
import { within, type Deadline } from '../../deadline.js';
import { RenderTimeoutError } from '../../errors.js';
import type { ChromiumMode } from '../types.js';
import type { PageSession } from './browser-session.js';
import type { BrowserSlot, BrowserSupervisor } from './browser-supervisor.js';

/** How long closing what a timed-out render left behind may take before the browser is killed instead. */
const RECOVERY_MS = 2_000;

/** How long wiping a single-process render's cookies and storage may take before the browser is killed instead. */
const WIPE_MS = 5_000;

const noop = () => undefined;

/** What one render holds: the browser it counts against, and its session once open. */
export type Claim = { slot?: BrowserSlot; session?: PageSession };

export type SessionPool = {
  /**
   * Runs `work` in this pool's turn: at once with separate processes; under
   * --single-process, where every page shares one context, after the renders before it.
   */
  inTurn<T>(work: () => Promise<T>): Promise<T>;
  /** Whether spares should come with the cookie-banner hook: the last render wanted one. */
  expect(options: { cookieConsent: boolean }): void;
  /**
   * Fills `claim` with a browser and a fresh session for one render. `timedOut`
   * says the caller has given up: a session that arrives then is closed unused.
   */
  acquire(claim: Claim, deadline: Deadline, timedOut: () => boolean): Promise<PageSession>;
  /** After the render: its session closes (or is wiped) and the next one is prepared. */
  release(claim: Claim): void;
  /** After a timeout: stop and close what hung; if that does not work at once, kill the browser. */
  recover(claim: Claim): void;
  /** The render's claim ends: a worn browser whose last render this was is replaced now. */
  finish(claim: Claim): void;
  /** A render is coming: open the session of the render after it (at most two ahead). */
  anticipate(): void;
  /** Launches the browser and has the first session ready. */
  warm(): Promise<void>;
};

/** The session pool of one supervised browser. */
export function createSessionPool(supervisor: BrowserSupervisor, mode: ChromiumMode): SessionPool {
  // Cleanup the next render must wait for: wiping state (single-process), or closing what a timed-out render left.
  let pending: Promise<void> = Promise.resolve();
  // Under --single-process all pages share one context, so renders take turns.
  let turn: Promise<unknown> = Promise.resolve();
  let expectCookieConsent = false;

  const waitForIt = (task: Promise<void>) => {
    pending = Promise.all([pending, task]).then(noop);
  };

  /** Opens sessions until `count` are ready or under way. */
  const prepareSpare = (s: BrowserSlot, count = 1) => {
    // A worn browser gets no spare: it is replaced once its renders end.
    if (!supervisor.usable(s)) return;
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

  const claimSlot = (claim: Claim, next: BrowserSlot) => {
    if (claim.slot) claim.slot.active -= 1;
    claim.slot = next;
    next.active += 1;
    next.served += 1;
  };

  const release = (s: BrowserSlot, session: PageSession) => {
    if (mode === 'multi-process') {
      // The spare is normally under way already (takeSession); this opens one if that failed.
      // A context that will not close means a browser in trouble.
      prepareSpare(s);
      void within(session.dispose().catch(() => false), WIPE_MS, false).then((closedInTime) => {
        if (!closedInTime) supervisor.retire(s);
      });
      return;
    }
    waitForIt((async () => {
      const wiped = await within(session.dispose().catch(() => false), WIPE_MS, false);
      // State that could not be wiped must not reach the next render: start over.
      if (!wiped) supervisor.retire(s);
      else prepareSpare(s);
    })());
  };

  return {
    inTurn(work) {
      if (mode === 'multi-process') return work();
      const result = turn.then(work);
      turn = result.catch(noop);
      return result;
    },

    expect({ cookieConsent }) {
      expectCookieConsent = cookieConsent;
    },

    async acquire(claim, deadline, timedOut) {
      await within(pending, deadline.remaining(), undefined);
      let current = await supervisor.slot();
      claimSlot(claim, current);
      if (supervisor.worn(current) && !supervisor.closed) {
        // This browser's last render: its replacement launches (and opens its first session) now,
        // alongside it, rather than on the next render's critical path after the freeze.
        void supervisor.slot().then((next) => prepareSpare(next), noop);
      }
      let opened: PageSession;
      try {
        opened = await takeSession(current);
      } catch {
        // A browser that cannot open a page is broken: replace it once before giving up.
        supervisor.retire(current);
        current = await supervisor.slot();
        claimSlot(claim, current);
        opened = await current.sessions.open();
      }
      if (timedOut()) {
        // Too late: the caller has had its answer; the session was never used.
        release(current, opened);
        throw new RenderTimeoutError(deadline.budgetMs);
      }
      claim.session = opened;
      return opened;
    },

    release(claim) {
      if (claim.slot && claim.session) release(claim.slot, claim.session);
    },

    recover({ slot: s, session }) {
      waitForIt((async () => {
        if (!s) return;
        if (!session) {
          // The browser did not even give us a page within the whole budget: it hangs.
          supervisor.retire(s);
          return;
        }
        const closedInTime = await within(
          session.interrupt().catch(noop).then(() => session.dispose()).catch(() => false),
          RECOVERY_MS,
          false,
        );
        if (!closedInTime) supervisor.retire(s);
        else prepareSpare(s);
      })());
    },

    finish({ slot: s }) {
      if (!s) return;
      s.active -= 1;
      if (supervisor.worn(s) && s.active === 0) {
        // Its session is closing with it; the replacement launches now rather than in the next render.
        supervisor.retire(s);
        if (!supervisor.closed) void supervisor.slot().then((next) => prepareSpare(next), noop);
      }
    },

    anticipate() {
      // Called as an invocation that will render begins, before its checks (auth, rate, quota: round
      // trips to DynamoDB, during which this process and Chromium sit idle). The session the render
      // after this one will take starts opening now: Chromium starting a renderer process is most of
      // an isolated session's cost, and started here it overlaps those round trips instead of only
      // this render. At most two sessions are ever ahead (an invocation that ends up not rendering
      // leaves the second for the next one).
      const s = supervisor.current();
      if (mode === 'multi-process' && s) prepareSpare(s, 2);
    },

    async warm() {
      const s = await supervisor.slot();
      prepareSpare(s);
      // The ad blocker is not loaded here: see loadPage, it loads with the first render that needs it.
      await s.spares[0];
    },
  };
}
