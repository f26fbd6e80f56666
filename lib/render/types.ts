import type { EgressProxy } from '../net/index.js';
import type { PageOptionsOutput, PdfOptionsOutput, ScreenshotOptionsOutput } from '../schemas/render-options.js';

/** What to render: the page to load and the output to make of it. */
export type RenderInput =
  | { output: 'PDF'; page: PageOptionsOutput; pdf?: PdfOptionsOutput | null }
  | { output: 'IMAGE'; page: PageOptionsOutput; screenshot?: ScreenshotOptionsOutput | null };

export type RenderResult = {
  body: Buffer;
  contentType: 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp';
  output: 'PDF' | 'IMAGE';
  /** Milliseconds per phase (context, navigate, wait, capture…) for the request log line. */
  timings: Record<string, number>;
};

export type Renderer = {
  render(input: RenderInput, options?: { timeoutMs?: number }): Promise<RenderResult>;
  /** Launches the browser (and prepares what can be prepared) ahead of the first request. */
  warm(): Promise<void>;
  /** A render is coming: start opening the isolated session of the render after it (see renderer.ts). */
  anticipate(): void;
  close(): Promise<void>;
};

/** How Chromium runs: separate processes, or everything in one (what Lambda images often force). */
export type ChromiumMode = 'multi-process' | 'single-process';

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
  /** Renders one browser serves before it is replaced (default 50: see renderer.ts). */
  rendersPerBrowser?: number;
};
