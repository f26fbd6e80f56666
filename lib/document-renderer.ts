/**
 * The document renderer: the renderer with the one finishing pipeline
 * behind it (lib/finishing), for plain renders and merges alike.
 */
import { startDeadline, type Deadline } from './deadline.js';
import { RenderTimeoutError, ServiceError, ValidationError } from './errors.js';
import { plainPageCount } from './pdf/page-count.js';
import { BudgetDeadlineError, DocumentBudgetError, documentBudget, type DocumentBudget } from './budget/document-budget.js';
import type { AssemblyPart } from './finishing/steps/assemble/assemble.js';
import type { BandFacts, BandsPlan, BandTemplateRenderer } from './finishing/steps/bands/bands-plan.js';
import type { BandPrinter } from './finishing/steps/bands/bands.js';
import { finishPdf } from './finishing/pipeline/finish-pdf.js';
import type { PageFacts } from './finishing/pipeline/finishing-plan.js';
import { FINISHING_ORDER, finishingSteps, wantsFinishing, type FinishingPlan, type FinishingSteps, type StepPlans } from './finishing/pipeline/registry.js';
import { BandPrintRefusedError, PageImageLimitError } from './finishing/pipeline/errors.js';
import { InputPdfError, OptionError } from './pdf/errors.js';
import { partFailure } from './plan/merge-errors.js';
import { BAND_LAYOUT_WAIT_MS, BANDS_READY } from './finishing/steps/bands/band-page.js';
import type { DrawingCapture, PageImage, PageImagesPlan, PageImageType, RenderImage } from './finishing/images/page-images.js';
import { chromiumTextDrawer } from './finishing/steps/stamp/watermark-text.js';
import type { RenderInput } from './schemas/render-requests.js';
import { buildRenderPlan } from './plan/build-plan.js';
import { loadTemplateRenderer } from './templates/template-engine.js';
import { toRequestError } from './plan/request-errors.js';
import type { SignerRegistry } from './signing/signers.js';
import { PlanStepError } from './render/errors.js';
import type { DocumentPlan, MergePlan, MissingGlyphsMode, PdfPlan, ProcessPlan } from './render/render-plan.js';
import type { PageFontsPlan } from './fonts/user-fonts/page-fonts.js';
import { processFailure } from './plan/request-errors.js';
import type { DocumentRenderer, Renderer, RenderResult } from './render/types.js';
import { MissingGlyphsError, type MissingGlyphReport } from './glyphs/glyph-report.js';

/** Sessions a merge keeps ready or opening ahead of its parts: the one printing next, and the one after. */
const MERGE_SESSIONS_AHEAD = 2;

/** Whether `plan` is a merge of parts rather than one render. */
export const isMergePlan = (plan: DocumentPlan): plan is MergePlan => 'merge' in plan;

/** Whether `plan` processes an existing PDF. */
export const isProcessPlan = (plan: DocumentPlan): plan is ProcessPlan => 'process' in plan;

/**
 * The one finishing pipeline behind a renderer: a PDF whose plan asks for
 * finishing is printed (the page's title and language read as data in its
 * session), then finished by `finishPdf` in the registry's order
 * (lib/finishing/pipeline/registry.ts, with `signers`); a merge prints its parts one after
 * another, then assembles and finishes the whole once. Either way all of it
 * runs inside the one time budget of the request (a 504 when it runs out,
 * never a partial file). Everything else passes straight through.
 */
export function withFinishing(renderer: Renderer, defaultTimeoutMs: number, signers?: SignerRegistry): DocumentRenderer {
  // One drawer for the renderer keeps the drawn texts; each render hands it its own time left.
  const drawer = chromiumTextDrawer((html, timeoutMs, fonts) =>
    renderer.render(
      withPageFonts(
        buildRenderPlan({
          output: 'PDF',
          page: { html: Buffer.from(html).toString('base64'), waitUntil: 'load', adblock: false },
          pdf: { preferCSSPageSize: true, omitBackground: true },
        }),
        fonts,
      ),
      // A stamp's text is the service's own print: the document's scan, after the stamp, sees what it draws.
      { timeoutMs },
    ),
  );

  /**
   * The bands step's printer: a band document rendered as any page. What the band's own HTML made fail (a
   * caller's error of the render: a 4xx, not a timeout) is the step's BandPrintRefusedError, which names the band;
   * the service's own failures (a timeout, a busy or broken browser) pass as they are.
   */
  const printBand =
    (deadline: Deadline, fonts: PageFontsPlan | undefined, printed?: GlyphNames): BandPrinter =>
    async (html, size) => {
      try {
        const input = bandRenderInput(html, size, deadline.remaining());
        const result = await renderer.render(withPageFonts(buildRenderPlan(input), fonts), { timeoutMs: deadline.remaining() });
        // What the band's own print names: the document's scan, once the band is laid on, counts it.
        if (result.missingGlyphs) printed?.push(result.missingGlyphs);
        return new Uint8Array(result.body.buffer, result.body.byteOffset, result.body.byteLength);
      } catch (error) {
        throw bandPrintFailure(error);
      }
    };

  /** The steps of a document's plan (the registry's, in its order), each given the document's one context. */
  const stepsFor = (
    plans: StepPlans,
    facts: PageFacts | undefined,
    deadline: Deadline,
    fonts?: PageFontsPlan,
    printed?: GlyphNames,
  ): Promise<FinishingSteps> =>
    finishingSteps(plans, {
      now: new Date(),
      facts: facts ?? {},
      // The document's account fonts (issue 46) reach the stamps and bands Chromium draws for it.
      drawText: drawer(() => deadline.remaining(), fonts),
      printBand: printBand(deadline, fonts, printed),
      loadTemplates: loadBandTemplates,
      ...(signers ? { signers } : {}),
    });

  /** Prints the parts in order (an existing PDF as it is), then assembles and finishes them once. */
  const merge = async (plan: MergePlan, deadline: Deadline, budget: DocumentBudget): Promise<RenderResult> => {
    const started = Date.now();
    const printed: AssemblyPart[] = [];
    // The parts' and bands' own reports: they name what the merged document's scan cannot.
    const named: GlyphNames = [];
    // What each printed part read for the merge's bands: its section headings, title and URL.
    const partFacts: Array<BandFacts | undefined> = [];
    let facts: PageFacts | undefined;
    let pagesLeft = plan.parts.filter((part) => !('document' in part)).length;
    for (const [index, part] of plan.parts.entries()) {
      if ('document' in part) {
        printed.push({ pdf: part.document, title: part.title });
        partFacts.push(undefined);
        continue;
      }
      if (deadline.remaining() === 0) throw new RenderTimeoutError(deadline.budgetMs);
      // This part's session and the next part's open while this one prints (not more: a 50-part
      // merge opening every session at once would starve the part being printed).
      renderer.anticipate(Math.min(MERGE_SESSIONS_AHEAD, pagesLeft));
      pagesLeft -= 1;
      try {
        // A part only reports: the merged document is checked, and refused, once (its plan says for which part).
        const result = await single(part.plan.missingGlyphs ? { ...part.plan, missingGlyphs: 'report' } : part.plan, deadline, budget);
        // The merged file's title and language, when not given, are the first printed part's.
        facts ??= result.pageFacts;
        if (result.missingGlyphs) named.push(result.missingGlyphs);
        printed.push({ pdf: result.body, title: part.title });
        partFacts.push(result.bandFacts);
      } catch (error) {
        // The merge's selector, read in a part without bands of its own: the merge's field, not the part's.
        if (error instanceof PlanStepError && error.step === 'sectionHeadings' && !part.plan.bands) {
          throw new ValidationError({ 'pdf.sectionHeadings': error.message }, { cause: error });
        }
        throw partFailure(toRequestError(error, part.plan), index);
      }
    }
    const [first, ...others] = printed as [AssemblyPart, ...AssemblyPart[]];
    const plans: StepPlans = { ...plan.finishing, assemble: { first, others, outline: plan.outline } };
    if (plan.bands) {
      renderer.anticipate(bandCount(plan.bands));
      const { mergedBandFacts } = await import('./finishing/steps/bands/bands.js');
      // The parts' headings are read within the step, so within the deadline and the document's budget.
      const merged = (within: DocumentBudget) => mergedBandFacts(printed, partFacts, plan.finishing.archive?.metadata.title, plan.finishing.pages?.order, within);
      plans.bands = { bands: plan.bands, facts: merged };
    }
    const steps = await stepsFor(plans, facts, deadline, plan.fonts, named);
    const rendered: RenderResult = { body: Buffer.from(first.pdf), contentType: 'application/pdf', output: 'PDF', timings: { render: Date.now() - started } };
    const check = plan.missingGlyphs ? { mode: plan.missingGlyphs, field: plan.missingGlyphsField ?? 'pdf.missingGlyphs', named } : undefined;
    return finishChecked(rendered, steps, deadline, budget, check).catch((error: unknown) => {
      // The merged document needs more than a document may spend, or holds a structure the steps cannot use
      // (a form tree sharing its fields): its parts made it so, and which one is no longer known once assembled.
      if (error instanceof DocumentBudgetError) throw new ValidationError({ parts: error.message }, { message: 'The merged document is too large to finish', cause: error });
      if (error instanceof InputPdfError) throw new ValidationError({ parts: error.message }, { message: 'The merged document cannot be finished', cause: error });
      throw error;
    });
  };

  /**
   * An existing PDF: fetched when given by URL, read within the input bounds and decrypted,
   * then described (JSON) or finished like a print (a PDF/A it cannot reach is a 422 first).
   */
  const processDocument = async (plan: ProcessPlan, deadline: Deadline, budget: DocumentBudget): Promise<RenderResult> => {
    const started = Date.now();
    const timings: Record<string, number> = {};
    try {
      const bytes = plan.source.kind === 'bytes' ? plan.source.bytes : await fetchProcessInput(plan.source.url, deadline);
      if (plan.source.kind === 'url') timings.fetch = Date.now() - started;
      const { openExistingPdf } = await import('./finishing/input/existing-pdf.js');
      const existing = await withinDeadline(openExistingPdf(bytes, plan.password), deadline);
      timings.read = Date.now() - started - (timings.fetch ?? 0);
      if (plan.output === 'JSON') {
        return { body: Buffer.from(JSON.stringify(existing.facts(budget))), contentType: 'application/json', output: 'JSON', timings };
      }
      const level = plan.finishing.archive?.pdfa;
      if (level) {
        const problems = existing.pdfaProblems(level);
        if (problems.length > 0) {
          const { PdfaConformanceError } = await import('./finishing/pipeline/errors.js');
          throw new PdfaConformanceError(problems);
        }
      }
      const result: RenderResult = { body: Buffer.from(existing.bytes.buffer, existing.bytes.byteOffset, existing.bytes.byteLength), contentType: 'application/pdf', output: 'PDF', timings };
      const finished = wantsFinishing(plan.finishing) ? await finishResult(result, await stepsFor(plan.finishing, undefined, deadline, plan.fonts), deadline, budget) : result;
      if (plan.images) return await imagesOf(finished, plan.images, deadline, budget);
      return plan.finishing.preview ? await withPreview(finished, plan.finishing, deadline, budget) : finished;
    } catch (error) {
      throw processFailure(error, plan);
    }
  };

  /** The images of a PDF's pages (lib/finishing/images/page-images.ts), within what is left of `deadline`. */
  const drawPages = async (body: Buffer, images: PageImagesPlan, deadline: Deadline, budget: DocumentBudget, password?: string): Promise<PageImage[]> => {
    const { planPageImages, renderPageImages } = await import('./finishing/images/page-images.js');
    const pdf = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    const planned = await withinDeadline(planPageImages(pdf, images, budget), deadline);
    return renderPageImages(
      planned,
      images,
      drawingCapturer(renderer),
      () => deadline.remaining(),
      // The capture waits for the drawn canvas (`screenshot.element`): not found means not drawn.
      (error) => error instanceof PlanStepError && error.step === 'element',
      password,
    );
  };

  /**
   * Images of the finished PDF's pages: one image as it is, several in a ZIP in page order, each page's
   * image also kept beside it (the /sync and /async answers store them as files of their own: `fileUrls`).
   */
  const imagesOf = async (finished: RenderResult, images: PageImagesPlan, deadline: Deadline, budget: DocumentBudget): Promise<RenderResult> => {
    const started = Date.now();
    const drawn = await drawPages(finished.body, images, deadline, budget);
    const timings = { ...finished.timings, images: Date.now() - started };
    const contentType = IMAGE_TYPES[images.type];
    const [first] = drawn;
    if (drawn.length === 1 && first) return { body: Buffer.from(first.body), contentType, output: 'IMAGE', timings };
    const { zipInMemory } = await import('./files/zip-stream.js');
    const files = drawn.map((image) => ({ name: pageImageName(image.page, images.type), data: image.body }));
    const pages = drawn.map((image) => ({ ...image, contentType }));
    return { body: await zipInMemory(files), contentType: 'application/zip', output: 'IMAGE', timings, companions: { pages } };
  };

  /**
   * The finished PDF with its preview beside it (`pdf.preview`): its first page imaged as any page image, the
   * last step of the request, within its budget. A protected PDF is opened with its user password, so the
   * image shows what a reader who opens it sees (an owner password alone leaves the pages readable).
   */
  const withPreview = async (finished: RenderResult, finishing: FinishingPlan, deadline: Deadline, budget: DocumentBudget): Promise<RenderResult> => {
    const preview = finishing.preview;
    if (!preview) return finished;
    const started = Date.now();
    const [image] = await drawPages(finished.body, { type: preview.type, pages: '1', size: { width: preview.width } }, deadline, budget, finishing.protect?.userPassword).catch(
      (error: unknown) => {
        throw error instanceof PageImageLimitError ? new ValidationError({ 'pdf.preview.width': error.message }, { cause: error }) : error;
      },
    );
    if (!image) throw new Error('The preview draws page 1');
    const timings = { ...finished.timings, preview: Date.now() - started };
    return { ...finished, timings, companions: { ...finished.companions, preview: { ...image, contentType: IMAGE_TYPES[preview.type] } } };
  };

  /** One plan printed, then finished when it asks for it. */
  const single = async (plan: PdfPlan, deadline: Deadline, budget: DocumentBudget): Promise<RenderResult> => {
    // The bands print in sessions of their own, side by side, once the body is printed: they open while it
    // prints (besides the body's), not after it on the critical path (a session is mostly Chromium starting a renderer).
    if (plan.bands) renderer.anticipate(1 + bandCount(plan.bands));
    const result = await renderer.render(plan, { timeoutMs: deadline.remaining() });
    const plans: StepPlans = plan.bands ? { ...plan.finishing, bands: { bands: plan.bands, facts: result.bandFacts ?? { title: '', url: '', headings: [] } } } : plan.finishing;
    if (!wantsFinishing(plans)) return refuseMissingGlyphs(result, plan.missingGlyphs, 'pdf.missingGlyphs');
    const named: GlyphNames = result.missingGlyphs ? [result.missingGlyphs] : [];
    const check = plan.missingGlyphs ? { mode: plan.missingGlyphs, field: 'pdf.missingGlyphs', named } : undefined;
    return finishChecked(result, await stepsFor(plans, result.pageFacts, deadline, plan.page.fonts, named), deadline, budget, check);
  };

  return {
    ...renderer,
    render: async (plan, options) => {
      if (!isProcessPlan(plan) && !isMergePlan(plan) && (plan.output !== 'PDF' || (!wantsFinishing(plan.finishing) && !plan.bands && !plan.finishing.preview))) {
        const result = await renderer.render(plan, options);
        // A PDF printed and not finished: its print's report is the document's (a screenshot's probe refuses in its session).
        return plan.output === 'PDF' ? refuseMissingGlyphs(result, plan.missingGlyphs, 'pdf.missingGlyphs') : result;
      }
      const deadline = startDeadline(options?.timeoutMs ?? defaultTimeoutMs);
      // The request's one budget: every step of its document spends from it (lib/budget/document-budget.ts).
      const budget = documentBudget({ at: deadline.at, budgetMs: deadline.budgetMs });
      if (isProcessPlan(plan)) return processDocument(plan, deadline, budget);
      const result = isMergePlan(plan) ? await merge(plan, deadline, budget) : await single(plan, deadline, budget);
      return withPreview(result, plan.finishing, deadline, budget);
    },
  };
}

const IMAGE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/** A page image's name in a ZIP: page-001.png, the number padded to three digits at least. */
export const pageImageName = (page: number, type: PageImageType) => `page-${String(page).padStart(3, '0')}.${type === 'jpeg' ? 'jpg' : type}`;

/** How page images are captured with `renderer`: each drawing page rendered as any page, its canvases captured in turn. */
export function drawingCapturer(renderer: Pick<Renderer, 'render'>): RenderImage {
  return async (capture, timeoutMs) => {
    const plan = buildRenderPlan(drawingRenderInput(capture, timeoutMs));
    // The service's own drawing page: what it draws is an existing PDF's, not checked (docs/pdf-options.md).
    delete plan.missingGlyphs;
    // Several pages drawn in the one page: each canvas captured in turn (no request field says this).
    if (capture.elements.length > 1 && plan.output === 'IMAGE') plan.shot.target = { kind: 'elements', selectors: capture.elements };
    const result = await renderer.render(plan, { timeoutMs });
    return { bodies: capture.elements.length > 1 ? (result.bodies ?? []) : [result.body] };
  };
}

/**
 * The render of a drawing page (lib/finishing/images/page-images.ts): like any page, in its own context,
 * captured once `ready` holds, each element at its own size (the first here; more through the plan's target).
 */
function drawingRenderInput(capture: DrawingCapture, timeLeftMs: number): RenderInput {
  return {
    output: 'IMAGE',
    page: {
      html: Buffer.from(capture.html).toString('base64'),
      waitUntil: 'load',
      adblock: false,
      waitForFunction: { pageFunction: capture.ready, options: { polling: 'raf', timeout: timeLeftMs } },
    },
    screenshot: {
      type: capture.type,
      ...(capture.quality !== undefined ? { quality: capture.quality } : {}),
      viewport: { ...capture.viewport, deviceScaleFactor: 1 },
      element: capture.elements[0],
    },
  } as RenderInput;
}

/** What failed in printing a band, as the bands step reads it: the band's own HTML refused, or the service's failure as it is. */
export function bandPrintFailure(error: unknown): unknown {
  if (error instanceof ServiceError && error.statusCode < 500 && !(error instanceof RenderTimeoutError)) return new BandPrintRefusedError(error.message, { cause: error });
  return error;
}

/**
 * The template renderer for the bands step: a band's template that fails is an OptionError naming the path
 * inside the pdf options the step gives (`header.htmlTemplate`), which the edge puts under `pdf.` or a part's.
 */
export async function loadBandTemplates(): Promise<BandTemplateRenderer> {
  const render = await loadTemplateRenderer();
  return (template, data, { field }) => {
    try {
      return render(template, data, { field });
    } catch (error) {
      throw error instanceof ValidationError ? new OptionError(error.fields, { cause: error }) : error;
    }
  };
}

/** How many bands a render prints: a header, a footer or both. */
const bandCount = (bands: BandsPlan) => Number(bands.header != null) + Number(bands.footer != null);

/**
 * The render of a band document (lib/finishing/steps/bands/band-page.ts): like any page, through the renderer's egress
 * policy in its own context, printed once the bands are laid out, on band-sized paper without margins.
 */
function bandRenderInput(html: string, size: { width: number; height: number }, timeLeftMs: number): RenderInput {
  return {
    output: 'PDF',
    page: {
      html: Buffer.from(html).toString('base64'),
      waitUntil: 'load',
      adblock: false,
      waitForFunction: { pageFunction: BANDS_READY, options: { polling: 'raf', timeout: Math.max(0, Math.min(BAND_LAYOUT_WAIT_MS, timeLeftMs)) } },
    },
    pdf: {
      width: `${size.width / 72}in`,
      height: `${size.height / 72}in`,
      margin: { top: 0, bottom: 0, left: 0, right: 0 },
      printBackground: true,
      preferCSSPageSize: true,
    },
  };
}

/**
 * Runs `steps` over a printed result, spending from `budget`: the steps stop themselves once the deadline
 * has passed (their work is synchronous, so no timer could stop it), and that is the request's 504.
 */
export async function finishResult(result: RenderResult, steps: FinishingSteps, deadline: Deadline, budget: DocumentBudget, order?: readonly string[]): Promise<RenderResult> {
  const started = Date.now();
  const facts: { pageCount?: number } = {};
  const body = await withinDeadline(finishPdf(new Uint8Array(result.body.buffer, result.body.byteOffset, result.body.byteLength), steps, budget, order, facts), deadline).catch(
    (error: unknown) => {
      // Out of time once printed: the error says how far the document got, which a long one's caller needs to know.
      if (error instanceof RenderTimeoutError && error.pagesPrinted === undefined) {
        error.pagesPrinted = plainPageCount(result.body);
        error.message += error.pagesPrinted === undefined ? ', in the finishing of the printed document' : `, in the finishing of the ${error.pagesPrinted} printed pages`;
      }
      throw error;
    },
  );
  return {
    ...result,
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    timings: { ...result.timings, finish: (result.timings.finish ?? 0) + Date.now() - started },
    ...(facts.pageCount !== undefined ? { pageCount: facts.pageCount } : {}),
  };
}

/** Reports of the prints behind a document (its body, its parts, its bands): what they name, the document's scan may not. */
type GlyphNames = MissingGlyphReport[];

/** The stages after which a document is no longer readable by the scan (encrypted) or may not change (signed). */
const SEALING_STAGES: readonly string[] = ['protect', 'sign'];

/**
 * Finishes a printed result, checking it for characters no font draws (issue 46) once everything that
 * draws has run (bands, stamps, the merge) and before encryption and the signature: the finished pages are
 * scanned, the characters the file does not name are named by the prints' own reports, and with "fail"
 * the render is refused before anything is sealed or delivered.
 */
async function finishChecked(
  result: RenderResult,
  steps: FinishingSteps,
  deadline: Deadline,
  budget: DocumentBudget,
  check: { mode: MissingGlyphsMode; field: string; named: GlyphNames } | undefined,
): Promise<RenderResult> {
  if (!check) return finishResult(result, steps, deadline, budget);
  const drawn = await finishResult(result, steps, deadline, budget, FINISHING_ORDER.filter((stage) => !SEALING_STAGES.includes(stage)));
  const started = Date.now();
  const { scanBudget, scanMissingGlyphs } = await import('./render/output/missing-glyphs.js');
  const scan = scanMissingGlyphs(new Uint8Array(drawn.body.buffer, drawn.body.byteOffset, drawn.body.byteLength), scanBudget(deadline));
  const codePoints = [...scan.codePoints];
  if (scan.unnamed > 0) for (const report of check.named) for (const point of report.codePoints) if (!codePoints.includes(point)) codePoints.push(point);
  const report: MissingGlyphReport | undefined =
    scan.count > 0 || scan.partial ? { count: scan.count, codePoints: codePoints.slice(0, MAX_REPORT_POINTS), ...(scan.firstPage ? { firstPage: scan.firstPage } : {}), ...(scan.partial ? { partial: true as const } : {}) } : undefined;
  const checked: RenderResult = { ...drawn, timings: { ...drawn.timings, glyphs: (drawn.timings.glyphs ?? 0) + Date.now() - started } };
  delete checked.missingGlyphs;
  if (report) checked.missingGlyphs = report;
  refuseMissingGlyphs(checked, check.mode, check.field);
  if (!Object.keys(steps).some((stage) => SEALING_STAGES.includes(stage))) return checked;
  return finishResult(checked, steps, deadline, budget, SEALING_STAGES);
}

/** Most code points a report names (output/missing-glyphs.ts's, without loading it for a render that finds none). */
const MAX_REPORT_POINTS = 64;

/** `result` as it is, or MissingGlyphsError when it drew characters no font has and `mode` is "fail". */
function refuseMissingGlyphs(result: RenderResult, mode: MissingGlyphsMode | undefined, field: string): RenderResult {
  if (mode === 'fail' && result.missingGlyphs && result.missingGlyphs.count > 0) throw new MissingGlyphsError(result.missingGlyphs, field);
  return result;
}

/** `work`'s result, or RenderTimeoutError once the budget is spent (the work's late result is dropped). */
export function withinDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderTimeoutError(deadline.budgetMs)), deadline.remaining());
  });
  work.catch(() => undefined);
  return Promise.race([work, expired])
    .catch((error: unknown) => {
      throw error instanceof BudgetDeadlineError ? new RenderTimeoutError(deadline.budgetMs, { cause: error }) : error;
    })
    .finally(() => clearTimeout(timer));
}

/**
 * A process request's PDF given by URL. Its fetcher and the process schema's
 * bound load here, on first use: a renderer's cold start (INIT) never needs them.
 */
async function fetchProcessInput(url: string, deadline: Deadline): Promise<Buffer> {
  const [{ fetchDocument }, { MAX_PROCESS_URL_BYTES }] = await Promise.all([import('./delivery/fetch-document.js'), import('./schemas/process-requests.js')]);
  return fetchDocument(url, { maxBytes: MAX_PROCESS_URL_BYTES, timeoutMs: deadline.remaining() });
}

/** A page drawn for a document (a band, a stamp's text) with the document's account fonts. */
function withPageFonts<P extends { page: { fonts?: PageFontsPlan } }>(plan: P, fonts: PageFontsPlan | undefined): P {
  if (fonts) plan.page.fonts = fonts;
  return plan;
}
