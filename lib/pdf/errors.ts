/** Errors of reading a caller's PDF, whichever step or library reads it (lib/finishing, lib/signing). */

/**
 * A caller's PDF to process that cannot be used: not a PDF, damaged beyond
 * what the reader recovers, past the input bounds, or encrypted without the
 * right password (`password`). The message is the problem, phrased for the field.
 */
export class InputPdfError extends Error {
  readonly password: boolean;
  constructor(problem: string, options: { password?: boolean; cause?: unknown } = {}) {
    super(problem, { cause: options.cause });
    this.name = 'InputPdfError';
    this.password = options.password ?? false;
  }
}

/**
 * What a document makes of an option the caller gave (a page past its end,
 * a form field it does not have, a first signature already there): each
 * problem named by its path inside the `pdf` options (`signature.certify`,
 * `form.fields.total`). The edge names where the options came from
 * (`pdf.`, `parts.3.pdf.`) and answers the 400; a step knows neither.
 */
export class OptionError extends Error {
  readonly fields: Readonly<Record<string, string>>;
  constructor(fields: Record<string, string>, options: { cause?: unknown } = {}) {
    super(Object.values(fields)[0] ?? 'An option cannot be applied to this document', { cause: options.cause });
    this.name = 'OptionError';
    this.fields = fields;
  }
}
