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
