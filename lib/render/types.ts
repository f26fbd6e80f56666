import type { BandFacts } from '../finishing/steps/bands/bands-plan.js';
import type { PageFacts } from '../finishing/pipeline/finishing-plan.js';
import type { EgressProxy } from '../net/index.js';
import type { DocumentPlan, RenderPlan } from './render-plan.js';
import type { RenderStep } from '../step-bound.js';
import type { LaunchedBrowser } from './browser/launch-browser.js';
import type { SessionFactory } from './browser/browser-session.js';
import type { AdmissionLimits } from './admission.js';
import type { MissingGlyphReport } from '../glyphs/glyph-report.js';

/**
 * Where the layers write what is worth a log line (a page that did not settle):
 * the service's one logger, with the Lambda context, once it is loaded.
 */
export type RenderLog = (level: 'info' | 'warn', message: string, details: Record<string, unknown>) => void;

/** A rendered file with its type and the phase timings of its render. */
export type RenderResult = {
  body: Buffer;
  contentType: 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/webp' | 'application/json' | 'application/zip';
  /** JSON: the facts of an existing PDF (/v1/pdf/process with output JSON). IMAGE: a screenshot, or page images (several: a ZIP). */
  output: 'PDF' | 'IMAGE' | 'JSON';
  /** Milliseconds per phase (context, navigate, wait, capture…) for the request log line. */
  timings: Record<string, number>;
  /** The page's title and language, read for the finishing when the plan's metadata leaves them out. */
  pageFacts?: PageFacts;
  /** What the bands need of the page (title, URL, section headings), read when the plan has bands. */
  bandFacts?: BandFacts;
  /**
   * Images made beside the file (issue 34), which the /sync and /async answers store as files of their own:
   * each page's image when the file is the ZIP of several, and the PDF's preview (`pdf.preview`).
   */
  companions?: { pages?: CompanionImage[]; preview?: CompanionImage };
  /** A capture of several elements (`shot.target.kind` 'elements'): each one's image in order, the first also `body`. */
  bodies?: Buffer[];
  /** Characters drawn with no glyph (issue 46), when the plan asked and there were any. */
  missingGlyphs?: MissingGlyphReport;
  /** A PDF's pages, when the finishing opened it (else read from the file where it can be: lib/pdf/page-count.ts). */
  pageCount?: number;
};

/** One image beside a rendered file: the 1-based page it shows, its pixel size and encoded bytes. */
export type CompanionImage = { page: number; width: number; height: number; body: Uint8Array; contentType: 'image/png' | 'image/jpeg' | 'image/webp' };

/** What renders plans: one Chromium, its sessions and the layers (see renderer.ts). */
export type Renderer = {
  /** Renders a plan (lib/plan builds it from a request; renderForRequest names the request's fields in what fails). */
  render(plan: RenderPlan, options?: { timeoutMs?: number }): Promise<RenderResult>;
  /** Launches the browser (and prepares what can be prepared) ahead of the first request. */
  warm(): Promise<void>;
  /**
   * A render is coming: start opening the isolated session of the render
   * after it (see browser/session-pool.ts). `ahead`: sessions to have ready
   * or opening, for an invocation that renders several (a merge's parts).
   */
  anticipate(ahead?: number): void;
  /**
   * The answer is out: does the work of isolation left for after it (with
   * `postResponse`): closes the used session, opens the next one, replaces a
   * worn or lost browser. When `signal` aborts (the bound of the
   * post-response phase), whatever is still under way is abandoned and the
   * browser killed, so the next render launches a new one.
   */
  afterAnswer(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
};

/** A renderer that also merges: the finishing renderer (lib/finishing) the endpoints and jobs use. */
export type DocumentRenderer = Omit<Renderer, 'render'> & {
  render(plan: DocumentPlan, options?: { timeoutMs?: number }): Promise<RenderResult>;
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
  /** Bounds of the steps of a render, over `STEP_BOUNDS_MS` (tests use short ones). */
  stepBoundsMs?: Partial<Record<RenderStep, number>>;
  /**
   * Wraps the session factory of each launched browser (given the real one).
   * Tests use it to inject faults (a session whose opening never settles).
   */
  sessionFactory?: (launched: LaunchedBrowser, sessions: SessionFactory) => SessionFactory;
  /**
   * `afterAnswer()` is called after each answer, in a post-response phase
   * (Lambda's, held open by an extension): the work of isolation waits for
   * it instead of running alongside renders. Default false.
   */
  postResponse?: boolean;
  /**
   * Renders run at once and waiting in this process before more are turned
   * away with 503 (see admission.ts); default two per core and four times as
   * many waiting. Single-process Chromium runs one at a time whatever this says.
   */
  admission?: AdmissionLimits;
};
