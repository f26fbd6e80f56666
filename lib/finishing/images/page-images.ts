/**
 * Images of the pages of a finished PDF (/v1/pdf/process with output PNG,
 * JPEG or WEBP): each page drawn by PDF.js (pdfjs-dist, Apache-2.0, Mozilla's
 * viewer) in a page of the service's own Chromium, on a canvas exactly the
 * image's size, and captured by Chromium's encoders (PNG, JPEG, WebP).
 *
 * Chosen over PDFium in WebAssembly (a 4–5 MB module in Node's memory beside
 * the one Chromium already is, with its own font fallback to set up) and over
 * poppler or MuPDF binaries (GPL/AGPL, a native build per Lambda
 * architecture): PDF.js is JavaScript that Chromium already runs, its text
 * goes through Chromium's font stack (the layer's CJK and emoji fonts), its
 * transparency and blend modes through canvas, and the encoders are the
 * ones screenshots use. Each page is a render of its own, in an isolated
 * session within the request's time budget, like a watermark text's print.
 *
 * Bounds are checked here, in Node, before anything is drawn: the pages
 * chosen and each image's pixels, from the page boxes (PageImageLimitError).
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ParseSpeeds, PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { MAX_IMAGE_PIXELS } from '../../input/image-limits.js';
import { MAX_PAGE_IMAGE_PIXELS, MAX_PAGE_IMAGES } from './image-bounds.js';
import { selectPages } from '../../validation/page-ranges.js';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { PageImageLimitError } from '../pipeline/errors.js';
import { InputPdfError } from '../../pdf/errors.js';
import { shownSize } from '../../pdf/page-box.js';
import { breakResourceCycles } from '../../pdf/resource-cycles.js';

export type PageImageType = 'png' | 'jpeg' | 'webp';

/** What images a process request asks for, defaults applied. */
export type PageImagesPlan = {
  type: PageImageType;
  /** pageRanges syntax; "" for every page. */
  pages: string;
  size: { dpi: number } | { width: number };
  quality?: number;
};

/** One page's image: its 1-based page number, pixel size and encoded bytes. */
export type PageImage = { page: number; width: number; height: number; body: Uint8Array };

/**
 * What drawing a group of pages asks of the service's Chromium: load `html`, wait until `ready` (a script
 * expression) is true, then capture each of `elements` as an image of `type` in a viewport of `viewport`.
 */
export type DrawingCapture = {
  html: string;
  ready: string;
  type: PageImageType;
  quality?: number;
  viewport: { width: number; height: number };
  elements: string[];
};

/**
 * Captures a drawing page within the given time: the service's own Chromium renderer (the edge turns the
 * capture into a render: lib/document-renderer.ts). `bodies` holds one image per element, in order.
 */
export type RenderImage = (capture: DrawingCapture, timeoutMs: number) => Promise<{ bodies: Uint8Array[] }>;

/**
 * Most pixels of the pages one drawing page holds at once (their canvases live together until captured):
 * a request's pages are drawn in as few page loads as this allows, one at least.
 */
export const MAX_DRAWN_PIXELS = MAX_PAGE_IMAGE_PIXELS;

/** The name the drawing page sets when it is done ('ok', or the reason it failed). */
const DONE = '__pageImage';

/** The id of the `i`th canvas once it is drawn: the capture waits for it, so a page PDF.js could not draw is never captured blank. */
const drawnId = (i: number) => `drawn-${i}`;

type Planned = { index: number; width: number; height: number };

/** What drawing the pages takes: each page's pixel size, and whether PDF.js needs its standard fonts. */
/** The pages to draw, whether the standard fonts are needed, and the document to draw: the input, or a copy without the loops it draws (lib/pdf/resource-cycles.ts). */
export type PlannedImages = { pages: Planned[]; standardFonts: boolean; pdf: Uint8Array };

/**
 * Whether the file has a simple font it does not embed (the 14 standard fonts, or a font
 * named but not carried): PDF.js draws those with its standard fonts, which are then sent
 * with each page (about 1 MB as base64); a file that embeds its fonts, as Chromium's prints do, goes without.
 */
function hasFontsNotEmbedded(doc: PDFDocument, budget: DocumentBudget): boolean {
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    budget.check();
    if (!(object instanceof PDFDict) || object.lookup(PDFName.of('Type')) !== PDFName.of('Font')) continue;
    const subtype = object.lookup(PDFName.of('Subtype'));
    // A composite font's glyphs are in its descendant (a Font of its own); a Type 3 font draws them itself.
    if (subtype === PDFName.of('Type0') || subtype === PDFName.of('Type3')) continue;
    const descriptor = object.lookup(PDFName.of('FontDescriptor'));
    if (!(descriptor instanceof PDFDict) || !FONT_FILES.some((key) => descriptor.has(PDFName.of(key)))) return true;
  }
  return false;
}

const FONT_FILES = ['FontFile', 'FontFile2', 'FontFile3'];

/**
 * The pages to image and each one's pixel size, as a reader shows the page
 * (its crop box, turned by /Rotate; US Letter without a usable /MediaBox);
 * PageImageLimitError past a bound; its loops stop at the budget's deadline.
 */
export async function planPageImages(pdf: Uint8Array, plan: PageImagesPlan, budget: DocumentBudget): Promise<PlannedImages> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest, ignoreEncryption: true });
  const count = doc.getPageCount();
  const { pages, beyond } = selectPages(plan.pages, count);
  if (beyond || pages.length === 0) throw new PageImageLimitError('image.pages', `The document has ${count} page${count === 1 ? '' : 's'}`);
  if (pages.length > MAX_PAGE_IMAGES) {
    throw new PageImageLimitError('image.pages', `Names ${pages.length} pages: at most ${MAX_PAGE_IMAGES} images a request`);
  }
  const field = 'dpi' in plan.size ? 'image.dpi' : 'image.width';
  const planned = pages.map((index) => {
    budget.check();
    const { width: w, height: h } = shownSize(doc.getPage(index));
    const scale = 'dpi' in plan.size ? plan.size.dpi / 72 : plan.size.width / w;
    const width = Math.max(1, Math.round(w * scale));
    const height = Math.max(1, Math.round(h * scale));
    if (width > MAX_IMAGE_PIXELS || height > MAX_IMAGE_PIXELS || width * height > MAX_PAGE_IMAGE_PIXELS) {
      throw new PageImageLimitError(
        field,
        `Page ${index + 1} would be ${width}×${height} pixels: at most ${MAX_IMAGE_PIXELS} a side and ${MAX_PAGE_IMAGE_PIXELS / 1_000_000} million in all`,
      );
    }
    return { index, width, height };
  });
  const standardFonts = hasFontsNotEmbedded(doc, budget);
  // Saved again only when a loop was taken out: nearly every document draws as it came.
  const drawn = breakResourceCycles(doc, budget) > 0 ? await doc.save({ useObjectStreams: false, updateFieldAppearances: false, objectsPerTick: Infinity }) : pdf;
  return { pages: planned, standardFonts, pdf: drawn };
}

/**
 * PDF.js's modules, and the standard fonts it draws the 14 standard PDF fonts with when a file does not embed
 * them (Foxit's and Liberation's, a JSON map of name to base64), each gzipped and in base64: the drawing page
 * inflates them with the browser's own DecompressionStream. Its HTML is then 0.66 MB instead of 1.73 MB
 * (without the fonts), which is most of what a page image cost: a page with PDF.js's sources inline but never
 * run took 300 ms against 117 ms for a plain one (medians of 5, the shared 2-core machine), the gzipped ones
 * loaded and run 280 ms against 370 ms as plain text.
 */
export type PdfjsSources = { viewer: string; worker: string; fonts: string };

const gzipped = promisify(gzip);
const gzipBase64 = async (bytes: string | Buffer) => (await gzipped(bytes, { level: 9 })).toString('base64');

let sources: Promise<PdfjsSources & { noFonts: string }> | undefined;

/** PDF.js's viewer and worker modules and its standard fonts, read and gzipped once per process. */
function pdfjsSources(): Promise<PdfjsSources & { noFonts: string }> {
  const require = createRequire(import.meta.url);
  const fontsDir = join(dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts');
  sources ??= Promise.all([
    readFile(require.resolve('pdfjs-dist/build/pdf.min.mjs'), 'utf8'),
    readFile(require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'), 'utf8'),
    readdir(fontsDir).then(async (names) =>
      Object.fromEntries(
        await Promise.all(
          names.filter((name) => /\.(pfb|ttf)$/.test(name)).map(async (name) => [name, (await readFile(join(fontsDir, name))).toString('base64')] as const),
        ),
      ),
    ),
  ]).then(async ([viewer, worker, fonts]) => {
    const [viewerGz, workerGz, fontsGz, noFonts] = await Promise.all([gzipBase64(viewer), gzipBase64(worker), gzipBase64(JSON.stringify(fonts)), gzipBase64('{}')]);
    return { viewer: viewerGz, worker: workerGz, fonts: fontsGz, noFonts };
  });
  sources.catch(() => (sources = undefined));
  return sources;
}

/** A JavaScript string literal that is safe inside an inline script (no `</script>`). */
const literal = (text: string) => JSON.stringify(text).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * The page that draws `pages` of the PDF, each on a white canvas of its
 * pixel size, one after another: PDF.js loaded once from inline sources
 * (gzipped, inflated into blob modules: the page fetches nothing), its worker
 * run on the page's thread. The `i`th canvas gets its drawn id once drawn; the
 * first page that fails stops the drawing.
 */
export function pageImageHtml(pdfBase64: string, pages: Planned[], { viewer, worker, fonts }: PdfjsSources, password?: string): string {
  const canvases = pages.map(({ width, height }, i) => `<canvas id="canvas-${i}" width="${width}" height="${height}" style="width:${width}px;height:${height}px"></canvas>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;padding:0;background:#fff}canvas{display:block}
</style></head><body>${canvases}<script type="module">
const bytes = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const inflate = (base64) => new Response(new Blob([bytes(base64)]).stream().pipeThrough(new DecompressionStream('gzip')));
const module = async (base64) => import(URL.createObjectURL(new Blob([await (await inflate(base64)).arrayBuffer()], { type: 'text/javascript' })));
let fonts = {};
// What PDF.js would fetch (standard fonts; no CMaps: a non-embedded CJK font falls back to the system's), from the page itself.
class BinaryDataFactory {
  async fetch({ kind, filename }) {
    const font = kind === 'standardFontDataUrl' ? fonts[filename] : undefined;
    if (font === undefined) throw new Error('No ' + kind + ' data for ' + filename);
    return bytes(font);
  }
}
try {
  const [pdfjs, pdfjsWorker, fontData] = await Promise.all([module(${literal(viewer)}), module(${literal(worker)}), inflate(${literal(fonts)}).json()]);
  globalThis.pdfjsWorker = pdfjsWorker;
  fonts = fontData;
  const data = bytes(${literal(pdfBase64)});
  const doc = await pdfjs.getDocument({ data, BinaryDataFactory, useSystemFonts: false, isEvalSupported: false, enableXfa: false${password === undefined ? '' : `, password: ${literal(password)}`} }).promise;
  const pages = ${JSON.stringify(pages.map(({ index, width, height }) => ({ index, width, height })))};
  for (const [i, { index, width, height }] of pages.entries()) {
    const page = await doc.getPage(index + 1);
    const base = page.getViewport({ scale: 1 });
    const canvas = document.getElementById('canvas-' + i);
    const viewport = page.getViewport({ scale: width / base.width });
    const context = canvas.getContext('2d', { alpha: false });
    context.fillStyle = '#fff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvas, canvasContext: context, viewport, background: '#fff', annotationMode: pdfjs.AnnotationMode.ENABLE }).promise;
    page.cleanup();
    canvas.id = 'drawn-' + i;
  }
  window.${DONE} = 'ok';
} catch (error) {
  window.${DONE} = String(error && error.message || error);
}
</script></body></html>`;
}

/** The pages in groups of at most MAX_DRAWN_PIXELS (a page larger than that alone), in order. */
function drawingGroups(pages: Planned[]): Planned[][] {
  const groups: Planned[][] = [];
  let pixels = Infinity;
  for (const page of pages) {
    const size = page.width * page.height;
    if (pixels + size > MAX_DRAWN_PIXELS) {
      groups.push([]);
      pixels = 0;
    }
    groups.at(-1)?.push(page);
    pixels += size;
  }
  return groups;
}

/**
 * Images of the pages `planned` chose, in page order: drawn in as few renders
 * as MAX_DRAWN_PIXELS allows (PDF.js loaded once in each), each page's canvas
 * captured on its own, with what is left of the budget (`timeLeftMs`). A
 * render that fails as `undrawable` says (a canvas never drawn: PDF.js could
 * not read the page) is an InputPdfError, the caller's document.
 */
export async function renderPageImages(
  planned: PlannedImages,
  plan: PageImagesPlan,
  render: RenderImage,
  timeLeftMs: () => number,
  undrawable: (error: unknown) => boolean,
  /** What opens an encrypted PDF (a protected render's preview): its user password. It stays in the drawing page. */
  password?: string,
): Promise<PageImage[]> {
  const { noFonts, ...sources } = await pdfjsSources();
  const pdfjs = planned.standardFonts ? sources : { ...sources, fonts: noFonts };
  const { pdf } = planned;
  const pdfBase64 = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('base64');
  const images: PageImage[] = [];
  for (const group of drawingGroups(planned.pages)) {
    const html = pageImageHtml(pdfBase64, group, pdfjs, password);
    const left = timeLeftMs();
    const selectors = group.map((_, i) => `#${drawnId(i)}`);
    const capture: DrawingCapture = {
      html,
      // Drawn or failed; the capture then waits for each drawn canvas, which a failed page never has.
      ready: `window.${DONE} !== undefined`,
      type: plan.type,
      ...(plan.type !== 'png' && plan.quality !== undefined ? { quality: plan.quality } : {}),
      viewport: { width: Math.max(...group.map((page) => page.width)), height: Math.max(...group.map((page) => page.height)) },
      elements: selectors,
    };
    const first = group[0] as Planned;
    const last = group.at(-1) as Planned;
    const drawn = await render(capture, left).catch((error: unknown) => {
      if (!undrawable(error)) throw error;
      const pages = first === last ? `Page ${first.index + 1}` : `One of pages ${first.index + 1}–${last.index + 1}`;
      throw new InputPdfError(`${pages} could not be drawn`, { cause: error });
    });
    const { bodies } = drawn;
    if (bodies.length !== group.length) throw new Error(`${group.length} pages drawn, ${bodies.length} captured`);
    group.forEach(({ index, width, height }, i) => images.push({ page: index + 1, width, height, body: bodies[i] as Uint8Array }));
  }
  return images;
}
