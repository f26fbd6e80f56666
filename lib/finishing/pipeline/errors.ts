/**
 * A PDF the finishing stage could not read or rewrite for a reason of its
 * own: the service's fault, which the edge answers as any unexpected error
 * (a 500; the cause keeps the PDF library's reason for the log). What a
 * caller's PDF makes impossible (a structure the steps cannot use, a bound it
 * breaks) is an `InputPdfError` or a `DocumentBudgetError` instead, a 400
 * naming the document or the parts.
 */
export class FinishingError extends Error {
  constructor(step: string, options: { cause?: unknown } = {}) {
    super(`Finishing the PDF failed (${step})`, { cause: options.cause });
    this.name = 'FinishingError';
  }
}

/** An existing PDF that the archive step cannot make conform to the PDF/A level asked for: each reason named. */
export class PdfaConformanceError extends Error {
  readonly reasons: string[];
  constructor(reasons: string[]) {
    super(`Cannot be made PDF/A: ${reasons.join('; ')}`);
    this.name = 'PdfaConformanceError';
    this.reasons = reasons;
  }
}

/** Page images past a bound (pages, pixels): the field named and why, a 400. */
export class PageImageLimitError extends Error {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(problem);
    this.name = 'PageImageLimitError';
    this.field = field;
  }
}

/**
 * A band document (a running header or footer) that the printer refused
 * because of the caller's own HTML (a script that fails the layout, a page
 * that navigates away or loads what it may not): `reason` says why. The
 * bands step names the band's option with it; a printer that failed for a
 * reason of its own (a timeout, a busy or broken browser) throws that instead.
 */
export class BandPrintRefusedError extends Error {
  readonly reason: string;
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, { cause: options.cause });
    this.name = 'BandPrintRefusedError';
    this.reason = reason;
  }
}
