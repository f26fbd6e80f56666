/**
 * The render plan: what one render does, normalized and fully defaulted at
 * the edge (lib/plan builds it from a validated request). The browser, page
 * and output layers read only this: no request shapes, no defaults, no
 * base64, no rules between fields left to settle.
 */
import type { PDFOptions, Viewport } from 'puppeteer-core';
import type { BandsPlan } from '../finishing/steps/bands/bands-plan.js';
import type { PageImagesPlan } from '../finishing/images/page-images.js';
import type { FinishingPlan } from '../finishing/pipeline/registry.js';
import type { PageFontsPlan } from '../fonts/user-fonts/page-fonts.js';

/** What the browser loads: a URL to visit, or HTML to set as the document (given, or made from a template). */
/** What a render does when it drew a character with no glyph (issue 46): says so in the answer, or is refused. */
export type MissingGlyphsMode = 'report' | 'fail';

export type PageSource =
  | { kind: 'url'; url: string }
  | { kind: 'html'; html: string; fromTemplate: boolean };

/** A cookie as Chromium's `Network.setCookies` takes it: it always names its site (url or domain). */
export type CookiePlan = {
  name: string;
  value: string;
  url?: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  expires?: number;
};

/** Which event the load waits for; `auto` is the service's own settle wait (page/settle.ts). */
export type WaitUntil = 'auto' | 'load' | 'domcontentloaded' | 'networkidle0' | 'networkidle2';

/** The page: its source, what is set before it loads, and how long to wait for it. */
export type PagePlan = {
  source: PageSource;
  waitUntil: WaitUntil;
  /** Extra headers for every request, names lower-cased (a cookie header has become `cookies`). */
  headers: Record<string, string>;
  cookies: CookiePlan[];
  authentication: { username: string; password: string } | null;
  adblock: boolean;
  javascript: boolean;
  /** Whether cookie banners are dismissed (ad blocking on a site that runs scripts). */
  cookieConsent: boolean;
  colorScheme: string | null;
  mediaType: 'screen' | 'print' | null;
  timezone: string | null;
  /** Waits after the load, in this order; a wait that does not succeed in time lets the render continue. */
  waitForSelector: { selector: string; visible?: boolean; hidden?: boolean; timeoutMs: number | null } | null;
  waitForFunction: { expression: string; polling: 'raf' | 'mutation' | number; timeoutMs: number | null } | null;
  waitForMilliseconds: number;
  /** The account's own fonts (issue 46), offered to the page by family name; absent when it has none. */
  fonts?: PageFontsPlan;
};

/** The screen a screenshot is taken on (a PDF keeps the page's default). */
export type ScreenPlan = { viewport: Viewport; userAgent?: string };

/** The screenshot's encoding. */
export type ImageType = 'png' | 'jpeg' | 'webp';

/** What part of the page a screenshot shows. */
export type ShotTarget =
  | { kind: 'viewport' }
  | { kind: 'clip'; clip: { x: number; y: number; width: number; height: number; scale: number }; captureBeyondViewport: boolean }
  | { kind: 'fullPage'; captureBeyondViewport: boolean }
  | { kind: 'element'; selector: string }
  /** Several elements of the one loaded page, each its own image in order (page images: every page drawn in one page). */
  | { kind: 'elements'; selectors: string[] };

/**
 * The overlay's background as the edge read it: a CSS colour or gradient
 * (already checked against the safe character set), an http(s) image URL,
 * or none given (the overlay's default).
 */
export type OverlayBackground = { kind: 'css'; value: string } | { kind: 'image'; url: string } | null;

/** The frame composed around a screenshot; CSS strings checked and trimmed at the edge, defaults the overlay's. */
export type OverlayPlan = {
  background?: OverlayBackground;
  filter?: string | null;
  margin?: number | null;
  browser?: string | null;
  screenshotBorderRadius?: number | null;
};

/** How the printed header and footer were given: the print error names what the caller filled in. */
export type HeaderFooterGiven = { header: boolean; footer: boolean };

/** A render to PDF: the page, puppeteer's print options, and the finishing after the print. */
export type PdfPlan = {
  output: 'PDF';
  page: PagePlan;
  /** puppeteer's `page.pdf()` options, defaults applied and header/footer decoded (the timeout is the deadline's). */
  print: PDFOptions;
  headerFooter: HeaderFooterGiven;
  /** The running header and footer printed from HTML and laid on the pages after the print (lib/finishing/steps/bands/bands.ts). */
  bands?: BandsPlan;
  /** The headings to read (as for bands) for bands laid on it later: a merge part's, when the merge has bands. */
  sectionHeadings?: string;
  /** Fill the table of contents' page numbers (`data-toc-page`, `a.toc-page`), printing again until they are stable (output/toc.ts). */
  toc?: boolean;
  /** Operations on the printed PDF, after the output layer (lib/finishing): archive, attach. */
  finishing: FinishingPlan;
  /** Characters no font draws (issue 46): reported or refused; absent for the service's own prints (nothing is checked). */
  missingGlyphs?: MissingGlyphsMode;
};

/** A render to an image: the page, the screen it is shown on, the capture, and an optional overlay. */
export type ImagePlan = {
  output: 'IMAGE';
  page: PagePlan;
  screen: ScreenPlan;
  shot: {
    type: ImageType;
    quality?: number;
    omitBackground: boolean;
    optimizeForSpeed: boolean;
    fromSurface: boolean;
    target: ShotTarget;
  };
  overlay: OverlayPlan | null;
  /** As PdfPlan's: the probe of characters no font draws runs when set. */
  missingGlyphs?: MissingGlyphsMode;
};

/** One render, ready to run. */
export type RenderPlan = PdfPlan | ImagePlan;

/** One part of a merge: a page printed by its own plan (no finishing of its own but a stamp), or an existing PDF. */
export type MergePartPlan = { plan: PdfPlan; title?: string } | { document: Uint8Array; title?: string };

/** A merge: its parts printed one after another, then one finishing (assemble, stamp, archive, attach, protect) of the whole. */
export type MergePlan = {
  output: 'PDF';
  merge: true;
  parts: MergePartPlan[];
  /** Nest each part's own outline under its entry. */
  outline: boolean;
  /** The running header and footer laid over the merged pages. */
  bands?: BandsPlan;
  finishing: FinishingPlan;
  /** Characters no font draws in the merged document: reported, or refused when a rendered part asks for it. */
  missingGlyphs?: MissingGlyphsMode;
  /** The field a refusal names: the first part's that asked for it (`parts.2.pdf.missingGlyphs`). */
  missingGlyphsField?: string;
  /** The account's own fonts (issue 46) for what the finishing draws over the merged pages (a stamp's text, the bands). */
  fonts?: PageFontsPlan;
};

/**
 * An existing PDF (/v1/pdf/process): where its bytes come from, the password
 * that opens it, and either its facts (JSON) or the finishing of it (PDF).
 */
export type ProcessPlan = {
  output: 'PDF' | 'JSON';
  process: true;
  /** Images of the finished pages, answered instead of the PDF (output PNG, JPEG or WEBP). */
  images?: PageImagesPlan;
  source: { kind: 'bytes'; bytes: Uint8Array } | { kind: 'url'; url: string };
  password?: string;
  finishing: FinishingPlan;
  /** The account's own fonts (issue 46) for what the finishing draws (a stamp's text, the bands). */
  fonts?: PageFontsPlan;
};

/** What the document renderer (lib/document-renderer.ts) produces: one render, a merge, or an existing PDF processed. */
export type DocumentPlan = RenderPlan | MergePlan | ProcessPlan;
