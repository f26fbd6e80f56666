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

  const retire = (s: BrowserSlot) => {
    if (slot === s) slot = undefined;
    s.launched.kill();
  };

  const launch = async (): Promise<BrowserSlot> => {
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
    if (closed) {
      launched.kill();
      throw new RenderError('The renderer is closed');
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
      launching ??= launch().finally(() => {
        launching = undefined;
      });
      return launching;
    },
    current: () => slot,
    usable: (s) => !closed && slot === s && s.launched.browser.connected && s.served < rendersPerBrowser,
    worn: (s) => s.served >= rendersPerBrowser,
    retire,
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
