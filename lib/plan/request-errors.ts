/**
 * The edge's half of the layers' errors: a layer says which step of the plan
 * failed (lib/render/errors.ts); here, where the plan's origin in the request
 * is known, that becomes the contract's 400 naming the request's fields.
 */
import { CONFORMANCE_CODE, NavigationError, PROCESS_DOCUMENT_CODE, ValidationError } from '../errors.js';
import { DocumentFetchError } from '../delivery/errors.js';
import { DocumentBudgetError } from '../budget/document-budget.js';
import { PageImageLimitError, PdfaConformanceError } from '../finishing/pipeline/errors.js';
import { InputPdfError, OptionError } from '../pdf/errors.js';
import { PageLoadError, PlanStepError, type PlanStep } from '../render/errors.js';
import type { DocumentPlan, ProcessPlan, RenderPlan } from '../render/render-plan.js';
import type { DocumentRenderer, RenderResult } from '../render/types.js';

/** The request field each step of the plan was built from. */
const STEP_FIELDS: Record<PlanStep, (plan: RenderPlan) => string[]> = {
  cookies: () => ['page.cookies'],
  timezone: () => ['page.timezone'],
  sectionHeadings: () => ['pdf.sectionHeadings'],
  waitForSelector: () => ['page.waitForSelector.selector'],
  waitForFunction: () => ['page.waitForFunction.pageFunction'],
  element: () => ['screenshot.element'],
  pageRanges: () => ['pdf.pageRanges'],
  overlayBackground: () => ['screenshot.overlay.background'],
  overlayFilter: () => ['screenshot.overlay.filter'],
  overlayMargin: () => ['screenshot.overlay.margin'],
  headerFooter: (plan) =>
    plan.output === 'PDF'
      ? [...(plan.headerFooter.header ? ['pdf.headerHtml'] : []), ...(plan.headerFooter.footer ? ['pdf.footerHtml'] : [])]
      : [],
};

/** The request field the page came from: `page.url`, `page.html` or `page.htmlTemplate`. */
export function sourceField(plan: RenderPlan): string {
  const { source } = plan.page;
  if (source.kind === 'url') return 'page.url';
  return source.fromTemplate ? 'page.htmlTemplate' : 'page.html';
}

/**
 * An option the document made impossible (lib/pdf/errors.ts), named under
 * the object its options came from: `pdf.` for a render's, a merge's or a
 * process request's own (a merge part's error gets `parts.N.` in front of
 * that, as any error of the part does).
 */
export function optionFailure(error: OptionError, prefix = 'pdf.'): ValidationError {
  const fields = Object.fromEntries(Object.entries(error.fields).map(([path, problem]) => [`${prefix}${path}`, problem]));
  return new ValidationError(fields, { cause: error });
}

/** A layer's error as the caller sees it: steps and load failures named by the request's fields; anything else as it is. */
export function toRequestError(error: unknown, plan: RenderPlan): unknown {
  if (error instanceof OptionError) return optionFailure(error);
  if (error instanceof PageLoadError) return new NavigationError(error.reason, { field: sourceField(plan), cause: error });
  // The printed document needs more than a document may spend (budget.ts): the page made it so.
  if (error instanceof DocumentBudgetError) return new ValidationError({ [sourceField(plan)]: error.message }, { message: 'The document is too large to finish', cause: error });
  if (error instanceof PlanStepError) {
    const fields = STEP_FIELDS[error.step](plan);
    return new ValidationError(Object.fromEntries(fields.map((field) => [field, error.message])), { cause: error });
  }
  return error;
}

/**
 * What failed in processing an existing PDF, in the request's terms: the
 * document (or the password that should open it) named with a 400, a PDF/A
 * it cannot reach a 422 naming `pdf.pdfa` with each reason.
 */
export function processFailure(error: unknown, plan: ProcessPlan): unknown {
  const field = plan.source.kind === 'bytes' ? 'document' : 'documentUrl';
  if (error instanceof OptionError) return optionFailure(error);
  if (error instanceof DocumentFetchError) {
    return new ValidationError({ documentUrl: error.message }, { message: 'The document could not be fetched', code: PROCESS_DOCUMENT_CODE, cause: error });
  }
  if (error instanceof DocumentBudgetError) {
    return new ValidationError({ [field]: error.message }, { message: 'The document cannot be used', code: PROCESS_DOCUMENT_CODE, cause: error });
  }
  if (error instanceof InputPdfError) {
    return new ValidationError({ [error.password ? 'password' : field]: error.message }, { message: 'The document cannot be used', code: PROCESS_DOCUMENT_CODE, cause: error });
  }
  if (error instanceof PageImageLimitError) {
    return new ValidationError({ [error.field]: error.message }, { message: 'The page images are out of bounds', cause: error });
  }
  if (error instanceof PdfaConformanceError) {
    return new ValidationError(
      { 'pdf.pdfa': error.reasons.join('; ') },
      { message: 'The document cannot be made PDF/A', code: CONFORMANCE_CODE, statusCode: 422, cause: error },
    );
  }
  return error;
}

/**
 * Renders a plan built from a request; what the layers throw comes back in
 * the request's terms (a merge names its parts' fields itself: lib/document-renderer.ts).
 */
export async function renderForRequest(
  renderer: Pick<DocumentRenderer, 'render'>,
  plan: DocumentPlan,
  options?: { timeoutMs?: number },
): Promise<RenderResult> {
  try {
    return await renderer.render(plan, options);
  } catch (error) {
    // A merge's own options (its top-level pdf) are named here; its parts' errors are named by the merge itself.
    if ('merge' in plan) throw error instanceof OptionError ? optionFailure(error) : error;
    throw 'process' in plan ? error : toRequestError(error, plan);
  }
}
