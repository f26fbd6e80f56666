/**
 * The pool of isolated sessions: each render takes a fresh one (an incognito
 * context; under --single-process a page whose state is wiped afterwards),
 * opened ahead of the render that takes it, closed after it, and what a
 * timed-out render left behind is closed or the browser killed. Single-process
 * Chromium's differences (wiping instead of closing a context, no session
 * opened alongside a render) stay inside this layer; that it renders one page
 * at a time is the renderer's admission (concurrency 1, see admission.ts).
 */
import { within, type Deadline } from '../../deadline.js';
import { RenderError, RenderTimeoutError } from '../../errors.js';
import { step, STEP_BOUNDS_MS } from '../../step-bound.js';
import type { ChromiumMode } from '../types.js';
import type { PageSession } from './browser-session.js';
import type { BrowserSlot, BrowserSupervisor } from './browser-supervisor.js';

/** How long closing what a timed-out render left behind may take before the browser is killed instead. */
const RECOVERY_MS = 2_000;

/** How long wiping a single-process render's cookies and storage may take before the browser is killed instead. */
const WIPE_MS = 5_000;

const noop = () => undefined;

/**
 * How long a render waits for the session opened ahead of it before opening
 * one of its own alongside (the first of the two to be ready is used, the
 * other closed). A spare is normally ready long before its render; one that
 * is not within this has been held up (a freeze of the instance in the
 * middle of its opening, see issue 25) and may never come.
 */
const SPARE_PATIENCE_MS = 1_500;

/** Closes a session nobody will use (one that came after its step's bound, or lost the race to another). */
const discard = (session: PageSession | undefined) => {
  if (session) void within(session.dispose().catch(() => false), WIPE_MS, false);
};

/**
 * The first of `candidates` to yield a session; each one that comes after it
 * is discarded. Rejects only when every candidate has failed.
 */
function firstSession(candidates: Array<Promise<PageSession | undefined>>): Promise<PageSession> {
  return new Promise((resolve, reject) => {
    let taken = false;
    let failed = 0;
    for (const candidate of candidates) {
      candidate
        .then((session) => {
          if (!session) throw new RenderError('The session could not be opened');
          if (taken) discard(session);
          else {
            taken = true;
            resolve(session);
          }
        })
        .catch((error: unknown) => {
          failed += 1;
          if (failed === candidates.length) reject(error);
        });
    }
  });
}

/** What one render holds: the browser it counts against, and its session once open. */
export type Claim = { slot?: BrowserSlot; session?: PageSession };

export type SessionPool = {
  /** Whether spares should come with the cookie-banner hook: the last render wanted one. */
  expect(options: { cookieConsent: boolean }): void;
  /**
   * Fills `claim` with a browser and a fresh session for one render, each
   * step bounded (`launch`, `session`; a browser that gives no session in
   * time is replaced once). `timedOut` says the caller has given up: a
   * session that arrives then is closed unused. `timings` gets `spareLate`
   * and `sessionFailed` when those happen.
   */
  acquire(claim: Claim, deadline: Deadline, timedOut: () => boolean, timings: Record<string, number>): Promise<PageSession>;
  /** After the render: its session closes (or is wiped) and the next one is prepared. */
  release(claim: Claim): void;
  /** After a timeout: stop and close what hung; if that does not work at once, kill the browser. */
  recover(claim: Claim): void;
  /** The render's claim ends: a worn browser whose last render this was is replaced now. */
  finish(claim: Claim): void;
  /**
   * A render is coming: open the session of the render after it (at most two
   * ahead; one with a post-response phase), or `ahead` sessions for an
   * invocation that renders that many more (a merge's parts).
   */
  anticipate(ahead?: number): void;
  /**
   * The answer is out (with `deferred`): closes the used session, opens the
   * next one, replaces a worn or lost browser. When `signal` aborts, what is
   * still under way is abandoned and the browser killed.
   */
  afterAnswer(signal?: AbortSignal): Promise<void>;
  /** Launches the browser and has the first session ready. */
  warm(): Promise<void>;
};

/** How the pool works: `deferred` when a post-response phase (`afterAnswer`) follows each answer. */
export type SessionPoolOptions = { deferred: boolean };

/**
 * The session pool of one supervised browser. With `deferred`, closing the
 * used session, wiping (single-process), opening the next session and
 * replacing a worn browser wait for `afterAnswer`, off the caller's clock.
 */
export function createSessionPool(supervisor: BrowserSupervisor, mode: ChromiumMode, { deferred }: SessionPoolOptions = { deferred: false }): SessionPool {
  // Cleanup the next render must wait for: wiping state (single-process), or closing what a timed-out render left.
  let pending: Promise<void> = Promise.resolve();
  let expectCookieConsent = false;
  // Deferred: used sessions to close (and wipe) once the answer is out, and closes under way.
  const toRelease: Array<() => void> = [];
  const closing = new Set<Promise<unknown>>();
  /** Starts releasing what renders left; a render starts with it too, should no post-response phase have come. */
  const releaseLeftovers = () => {
    for (const task of toRelease.splice(0)) task();
  };

  const waitForIt = (task: Promise<void>) => {
    pending = Promise.all([pending, task]).then(noop);
  };

  /** Opens sessions until `count` are ready or under way. */
  const prepareSpare = (s: BrowserSlot, count = 1) => {
    // A worn browser gets no spare: it is replaced once its renders end.
    if (!supervisor.usable(s)) return;
    while (s.spares.length < count) s.spares.push(s.sessions.open({ cookieConsent: expectCookieConsent }).catch(() => undefined));
  };

  /**
   * The session of a render: the one opened ahead if it is ready within
   * SPARE_PATIENCE_MS, else the first of it and a fresh one; bounded as the
   * step "session", after which whatever comes is closed.
   */
  const takeSession = async (s: BrowserSlot, deadline: Deadline, timings: Record<string, number>): Promise<PageSession> => {
    const spare = s.spares.shift();
    // With a post-response phase (deferred) the next render's session opens after this answer, in
    // afterAnswer. Without one it is opened now, alongside this render, not after the answer: on
    // Lambda the process tree is frozen as soon as the handler returns, so work left for "after"
    // would only run at the start of the next invocation, on its critical path. Opening a session
    // is mostly Chromium starting a renderer process, in its own process, while this render waits
    // on its page; by the time this answer is sent the next session is (nearly) ready.
    // Under --single-process the spare would share the default context with this render's page,
    // so there it is opened once this render's state has been wiped (see release).
    if (mode === 'multi-process' && !deferred) prepareSpare(s);
    if (spare && mode === 'single-process') {
      // All pages share the default context, and closing one wipes it: no second session alongside, the spare alone, bounded.
      const session = await step(deadline, 'session', spare, { late: discard });
      if (session && s.launched.browser.connected) return session;
      discard(session);
    } else if (spare) {
      const waitedFrom = Date.now();
      const ready = await within(spare, Math.min(SPARE_PATIENCE_MS, deadline.boundOf('session')), 'late' as const);
      if (ready !== 'late') {
        if (ready && s.launched.browser.connected) return ready;
        discard(ready);
      } else {
        // Awaited without a bound, a spare whose opening never settles held its render for the whole
        // budget (issue 25). Now it races a fresh session, and the loser is closed when it comes.
        timings.spareLate = Date.now() - waitedFrom;
        return step(deadline, 'session', firstSession([spare, s.sessions.open()]), { late: discard });
      }
    }
    return step(deadline, 'session', s.sessions.open(), { late: discard });
  };

  const claimSlot = (claim: Claim, next: BrowserSlot) => {
    if (claim.slot) claim.slot.active -= 1;
    claim.slot = next;
    next.active += 1;
    next.served += 1;
  };

  const release = (s: BrowserSlot, session: PageSession) => {
    if (deferred) {
      toRelease.push(() => releaseNow(s, session));
      return;
    }
    releaseNow(s, session);
  };

  const releaseNow = (s: BrowserSlot, session: PageSession) => {
    if (mode === 'multi-process') {
      // The spare is normally under way already (takeSession); this opens one if that failed.
      // A context that will not close means a browser in trouble.
      if (!deferred) prepareSpare(s);
      const disposing = within(session.dispose().catch(() => false), WIPE_MS, false).then((closedInTime) => {
        if (!closedInTime) supervisor.retire(s);
      });
      if (deferred) {
        closing.add(disposing);
        void disposing.finally(() => closing.delete(disposing));
      }
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
    expect({ cookieConsent }) {
      expectCookieConsent = cookieConsent;
    },

    async acquire(claim, deadline, timedOut, timings) {
      const started = Date.now();
      // Single-process: a wipe left for a post-response phase that never came must end before this render.
      releaseLeftovers();
      await within(pending, deadline.remaining(), undefined);
      let current = await step(deadline, 'launch', supervisor.slot());
      claimSlot(claim, current);
      if (supervisor.worn(current) && !supervisor.closed && !deferred) {
        // This browser's last render: its replacement launches (and opens its first session) now,
        // alongside it, rather than on the next render's critical path after the freeze.
        void supervisor.slot().then((next) => prepareSpare(next), noop);
      }
      let opened: PageSession;
      try {
        opened = await takeSession(current, deadline, timings);
      } catch (error) {
        if (timedOut()) throw error;
        // A browser that cannot open a page, or not within the step's bound, is broken or starved:
        // this render moves to a new one, once, before giving up. The renders under way in the old
        // one keep it until they end (killing it here cut a burst's 39 other renders short).
        timings.sessionFailed = Date.now() - started;
        current.active -= 1;
        claim.slot = undefined;
        supervisor.setAside(current);
        current = await step(deadline, 'launch', supervisor.slot());
        claimSlot(claim, current);
        opened = await step(deadline, 'session', current.sessions.open(), { late: discard });
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
      if (s.setAside && s.active === 0) supervisor.retire(s);
      else if (supervisor.worn(s) && s.active === 0) {
        // Its session is closing with it; the replacement launches now rather than in the next render.
        supervisor.retire(s);
        if (!supervisor.closed && !deferred) void supervisor.slot().then((next) => prepareSpare(next), noop);
      }
    },

    anticipate(ahead) {
      // Called as an invocation that will render begins, before its checks (auth, rate, quota: round
      // trips to DynamoDB, during which this process and Chromium sit idle). The session the render
      // after this one will take starts opening now: Chromium starting a renderer process is most of
      // an isolated session's cost, and started here it overlaps those round trips instead of only
      // this render. At most two sessions are ever ahead (an invocation that ends up not rendering
      // leaves the second for the next one).
      const s = supervisor.current();
      // With a post-response phase the next session was opened after the last answer: one is enough.
      // A merge asks for its next parts' sessions as it goes: with a post-response phase nothing else
      // would open them before their parts, and each would open on the critical path.
      if (mode === 'multi-process' && s) prepareSpare(s, ahead ?? (deferred ? 1 : 2));
    },

    async afterAnswer(signal) {
      if (supervisor.closed) return;
      releaseLeftovers();
      const work = Promise.all([
        ...closing,
        // Single-process: wiping the used state comes first (pending), and it opens the spare itself.
        pending.then(async () => {
          const s = await supervisor.slot();
          prepareSpare(s);
          await s.spares[0];
        }),
      ]).then(noop, noop);
      if (!signal) return work;
      const cutOff = new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([work, cutOff]);
      if (!signal.aborted) return;
      // The environment is frozen next: nothing half-done may wait for the next render. The browser
      // goes (a hung close or launch with it); the next render launches a new one.
      supervisor.abandon();
    },

    async warm() {
      const s = await supervisor.slot();
      prepareSpare(s);
      // The ad blocker is not loaded here: see loadPage, it loads with the first render that needs it.
      // Bounded: a spare that never opens must not hold up the cold start (the first render replaces it).
      await within(s.spares[0] ?? Promise.resolve(undefined), STEP_BOUNDS_MS.session ?? 0, undefined);
    },
  };
}
