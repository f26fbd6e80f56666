import { RenderError } from '../errors.js';

/**
 * A finishing step could not read or write the PDF the service printed: the
 * service's failure (500, refunded), never the caller's. Its message names
 * the step only: the options (passwords) stay out of it.
 */
export class FinishingError extends RenderError {
  constructor(step: string, options: { cause?: unknown } = {}) {
    super(`Finishing the PDF failed at the ${step} step`, options);
  }
}
