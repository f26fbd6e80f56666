/**
 * The renderer: runs a render plan through the layers, browser → page →
 * output, inside the render's time budget. The
 * browser layer supervises Chromium and pools its sessions; the page layer
 * loads and waits; the output layer prints or captures. After the budget
 * the render fails with `RenderTimeoutError` and whatever hung is closed or
 * the browser killed. A PDF's finishing runs after it, on the printed bytes
 * (lib/document-renderer.ts).
 */
import { before, startDeadline, type Deadline } from '../deadline.js';
import { RenderError, RenderTimeoutError, ServiceError } from '../errors.js';
import { sharedEgressProxy } from '../net/index.js';
import type { PageSession } from './browser/browser-session.js';
import { createAdmission, defaultAdmissionLimits } from './admission.js';
import { createBrowserSupervisor } from './browser/browser-supervisor.js';
import { createSessionPool, type Claim } from './browser/session-pool.js';
import type { RenderPlan } from './render-plan.js';
import type { RenderLog, Renderer, RendererOptions, RenderResult } from './types.js';

const noop = () => undefined;

/**
 * Renders one browser serves before it is replaced (as Gotenberg restarts
 * Chromium after N conversions): its browser process keeps descriptors on
 * deleted shared-memory files of the contexts it has closed (about 0.7 per
 * render, measured by `npm run soak`), which would exhaust Lambda's 1,024
 * descriptors in a container that lives for hours. The replacement
 * launches after the old browser's last answer, in the post-response phase
 * (without one, alongside that last render: a frozen environment has no
 * idle time to launch it in), so the next render finds it warm; often
 * enough that every stretch of renders pays it alike (Gotenberg restarts
 * after 10).
 */
const RENDERS_PER_BROWSER = 50;

/**
 * What sets pages up and renders in them, loaded once Chromium's process is
 * started rather than before: a cold start spawns Chromium first and loads
 * the rest (page set-up, capture, finishing) while it boots.
 */
type LayerModules = {
  createSessionFactory: typeof import('./browser/browser-session.js').createSessionFactory;
  preparePage: typeof import('./page/prepare-page.js').preparePage;
  renderInSession: typeof import('./render-in-session.js').renderInSession;
};
let modules: Promise<LayerModules> | undefined;
const layerModules = (): Promise<LayerModules> =>
  (modules ??= Promise.all([import('./browser/browser-session.js'), import('./page/prepare-page.js'), import('./render-in-session.js')]).then(
    ([session, prepare, render]) => ({ createSessionFactory: session.createSessionFactory, preparePage: prepare.preparePage, renderInSession: render.renderInSession }),
  ));

/**
 * Creates the renderer of this process: one Chromium, launched on first use
 * (or by `warm()`) and reused, a fresh isolated session per render prepared
 * ahead of time, a time budget per render, and a relaunch whenever the
 * browser has gone away.
 */
export function createRenderer(options: RendererOptions): Renderer {
  const log: RenderLog | undefined = options.log;
  const supervisor = createBrowserSupervisor({
    mode: options.mode,
    ...(options.executablePath ? { executablePath: options.executablePath } : {}),
    ...(options.chromiumPackDir ? { chromiumPackDir: options.chromiumPackDir } : {}),
    egress: options.egress ?? sharedEgressProxy,
    rendersPerBrowser: options.rendersPerBrowser ?? RENDERS_PER_BROWSER,
    sessionsFor: async (launched) => {
      const { createSessionFactory, preparePage } = await layerModules();
      const sessions = createSessionFactory(launched, preparePage);
      return options.sessionFactory ? options.sessionFactory(launched, sessions) : sessions;
    },
  });
  // With a post-response phase (see afterAnswer) the work of isolation waits for it, off the caller's clock.
  const pool = createSessionPool(supervisor, options.mode, { deferred: options.postResponse ?? false });
  // Under --single-process every page shares one context: renders take turns, one at a time.
  const limits = options.admission ?? defaultAdmissionLimits();
  const admission = createAdmission(options.mode === 'single-process' ? { ...limits, concurrency: 1 } : limits);

  const run = async (plan: RenderPlan, deadline: Deadline): Promise<RenderResult> => {
    const started = Date.now();
    const { renderInSession } = await layerModules();
    pool.expect({ cookieConsent: plan.page.cookieConsent });
    const timings: Record<string, number> = {};
    const claim: Claim = {};
    let timedOut = false;

    const work = (async () => {
      const session: PageSession = await pool.acquire(claim, deadline, () => timedOut, timings);
      timings.context = Date.now() - started;
      return renderInSession(session, plan, deadline, timings, log);
    })();

    /** The budget's end, naming the step that was under way and for how long. */
    const budgetSpent = (cause?: unknown) => {
      const under = deadline.underWay;
      return new RenderTimeoutError(deadline.budgetMs, under ? { cause, step: under.step, stepElapsedMs: Date.now() - under.startedAt } : { cause });
    };

    try {
      const result = await before(work, deadline.remaining(), () => {
        timedOut = true;
        return budgetSpent();
      });
      timings.total = Date.now() - started;
      return result;
    } catch (error) {
      // A step bounded by what was left of the budget (printing, capturing) can fail a moment
      // before the budget's own timer fires: that is the budget running out all the same.
      if (!timedOut && deadline.remaining() === 0) {
        timedOut = true;
        error = error instanceof RenderTimeoutError ? error : budgetSpent(error);
      }
      // A step past its own bound left its session (or its browser) stuck, as the budget's end would.
      if (error instanceof RenderTimeoutError) timedOut = true;
      if (timedOut) {
        work.catch(noop);
        pool.recover(claim);
        if (error instanceof RenderTimeoutError) error.timings = { ...timings, total: Date.now() - started };
        throw error;
      }
      if (claim.slot && !claim.slot.launched.browser.connected) {
        throw new RenderError('The browser stopped while rendering', { cause: error });
      }
      if (error instanceof ServiceError) throw error;
      throw new RenderError('Rendering failed', { cause: error });
    } finally {
      if (!timedOut) pool.release(claim);
      pool.finish(claim);
    }
  };

  return {
    render(plan, renderOptions) {
      const deadline = startDeadline(renderOptions?.timeoutMs ?? options.timeoutMs, Date.now(), options.stepBoundsMs);
      return admission.run(() => run(plan, deadline), deadline);
    },
    anticipate: (ahead) => pool.anticipate(ahead),
    afterAnswer: (signal) => pool.afterAnswer(signal),
    warm: () => pool.warm(),
    close: () => supervisor.close(),
  };
}
