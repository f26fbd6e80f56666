import type { EgressProxy } from '../net/index.js';
import type { RenderPlan } from './render-plan.js';

/**
 * Where the layers write what is worth a log line (a page that did not settle):
 * the service's one logger, with the Lambda context, once it is loaded.
 */
export type RenderLog = (level: 'info' | 'warn', message: string, details: Record<string, unknown>) => void;

/** A rendered file with its type and the phase timings of its render. */
export type RenderResult = {
  body: Buffer;
  contentType: 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp';
  output: 'PDF' | 'IMAGE';
  /** Milliseconds per phase (context, navigate, wait, capture…) for the request log line. */
  timings: Record<string, number>;
};

/** What renders plans: one Chromium, its sessions and the layers (see renderer.ts). */
export type Renderer = {
  /** Renders a plan (lib/plan builds it from a request; renderForRequest names the request's fields in what fails). */
  render(plan: RenderPlan, options?: { timeoutMs?: number }): Promise<RenderResult>;
  /** Launches the browser (and prepares what can be prepared) ahead of the first request. */
  warm(): Promise<void>;
  /** A render is coming: start opening the isolated session of the render after it (see browser/session-pool.ts). */
  anticipate(): void;
  close(): Promise<void>;
};

/** How Chromium runs: separate processes, or everything in one (what Lambda images often force). */
export type ChromiumMode = 'multi-process' | 'single-process';

/** How the renderer is built: Chromium's mode and binary, the time budget, the egress proxy, the log. */
export type RendererOptions = {
  mode: ChromiumMode;
  /** A Chromium binary to use instead of the one unpacked from `@sparticuz/chromium`. */
  executablePath?: string;
  /** Where the Chromium layer's zstd pack is (`unpackChromium`); without one, `@sparticuz/chromium` unpacks its own. */
  chromiumPackDir?: string;
  /** Default time budget of one render. */
  timeoutMs: number;
  /**
   * The filtering proxy Chromium is launched behind; default: the process's
   * shared proxy, with the `ALLOW_PRIVATE_HOSTS` policy. Tests pass their own.
   */
  egress?: () => Promise<EgressProxy>;
  /** Where the layers' log lines go; none when absent. */
  log?: RenderLog;
  /** Renders one browser serves before it is replaced (default 50: see browser/session-pool.ts). */
  rendersPerBrowser?: number;
};
