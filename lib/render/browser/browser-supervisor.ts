/**
 * The browser's supervisor (Gotenberg's process supervisor is the model):
 * one Chromium, launched on first use and reused; replaced once it has served
 * its number of renders (worn), relaunched when it has gone away (crashed),
 * killed when it hangs.
 */
import { RenderError } from '../../errors.js';
import type { EgressProxy } from '../../net/index.js';
import type { ChromiumMode } from '../types.js';
import type { PageSession, SessionFactory } from './browser-session.js';
import { launchBrowser, type LaunchedBrowser } from './launch-browser.js';

/** One launched browser and what it serves. */
export type BrowserSlot = {
  launched: LaunchedBrowser;
  sessions: SessionFactory;
  /** Sessions opened ahead of the renders that will take them, oldest first (see session-pool.ts). */
  spares: Array<Promise<PageSession | undefined>>;
  /** Renders given this browser so far, and those still running in it. */
  served: number;
  active: number;
  /** Set aside (see `setAside`): takes no more renders and is killed when its last one ends. */
  setAside?: boolean;
};

export type BrowserSupervisor = {
  /** The browser to render in: the current one, or a new one when there is none, it is worn or it has gone. */
  slot(): Promise<BrowserSlot>;
  /** The current browser, if one is up. */
  current(): BrowserSlot | undefined;
  /** Whether this browser may take more work: it is current, connected and not worn. */
  usable(s: BrowserSlot): boolean;
  /** Whether this browser has served all the renders it may. */
  worn(s: BrowserSlot): boolean;
  /** Kills a browser (it hangs, or it is worn and idle); the next `slot()` launches another. */
  retire(s: BrowserSlot): void;
  /**
   * Gives a browser no more renders (it did not give a session in time): the
   * next `slot()` launches another, and this one is killed now if idle, else
   * when its last render ends. Renders under way in it are not cut short: a
   * slow browser (a burst on a starved CPU) finishes them, and in a hung one
   * they reach their own bounds, whose recovery kills it.
   */
  setAside(s: BrowserSlot): void;
  /**
   * The post-response phase was cut off (the environment is frozen next):
   * the current browser is killed and a launch under way is killed when it
   * lands, so nothing half-done waits for the next render, which launches anew.
   */
  abandon(): void;
  readonly closed: boolean;
  close(): Promise<void>;
};

export type SupervisorOptions = {
  mode: ChromiumMode;
  executablePath?: string;
  /** The Chromium layer's zstd pack, when no `executablePath` is given. */
  chromiumPackDir?: string;
  egress: () => Promise<EgressProxy>;
  rendersPerBrowser: number;
  /** Opens sessions in a launched browser; loaded once the process is starting (see renderer.ts). */
  sessionsFor: (launched: LaunchedBrowser) => Promise<SessionFactory>;
};

/** Starts supervising a browser; nothing is launched before the first `slot()`. */
export function createBrowserSupervisor(options: SupervisorOptions): BrowserSupervisor {
  const { mode, rendersPerBrowser } = options;
  let slot: BrowserSlot | undefined;
  let launching: Promise<BrowserSlot> | undefined;
  let closed = false;
  // Bumped by abandon(): a launch begun before then is killed when it lands.
  let generation = 0;

  const retire = (s: BrowserSlot) => {
    if (slot === s) slot = undefined;
    s.launched.kill();
  };

  const launch = async (started: number): Promise<BrowserSlot> => {
    const egress = await options.egress();
    const launched = await launchBrowser({
      mode,
      egress,
      ...(options.executablePath ? { executablePath: options.executablePath } : {}),
      ...(options.chromiumPackDir ? { chromiumPackDir: options.chromiumPackDir } : {}),
    });
    let sessions: SessionFactory;
    try {
      sessions = await options.sessionsFor(launched);
    } catch (error) {
      launched.kill();
      throw error;
    }
    const s: BrowserSlot = { launched, sessions, spares: [], served: 0, active: 0 };
    if (closed || started !== generation) {
      launched.kill();
      throw new RenderError(closed ? 'The renderer is closed' : 'The launch was abandoned');
    }
    launched.browser.once('disconnected', () => {
      if (slot === s) slot = undefined;
    });
    slot = s;
    return s;
  };

  return {
    slot() {
      if (closed) return Promise.reject(new RenderError('The renderer is closed'));
      if (slot?.launched.browser.connected && slot.served < rendersPerBrowser) return Promise.resolve(slot);
      if (slot && slot.active > 0 && slot.launched.browser.connected) {
        // Worn out but still rendering: it goes when its last render ends (see the renderer's release).
        slot = undefined;
      } else if (slot) {
        retire(slot);
      }
      if (launching) return launching;
      const attempt: Promise<BrowserSlot> = launch(generation).finally(() => {
        if (launching === attempt) launching = undefined;
      });
      launching = attempt;
      return attempt;
    },
    current: () => slot,
    usable: (s) => !closed && slot === s && s.launched.browser.connected && s.served < rendersPerBrowser,
    worn: (s) => s.served >= rendersPerBrowser,
    retire,
    setAside(s) {
      if (slot === s) slot = undefined;
      s.setAside = true;
      if (s.active === 0) s.launched.kill();
    },
    abandon() {
      generation += 1;
      launching = undefined;
      if (slot) retire(slot);
    },
    get closed() {
      return closed;
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
