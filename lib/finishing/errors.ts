import { RenderError } from '../errors.js';

/**
 * A printed PDF the finishing stage could not read or rewrite: Chromium's
 * output is the input, so this is the service's fault (a 500), never the
 * caller's; the cause keeps the PDF library's reason for the log.
 */
export class FinishingError extends RenderError {
  constructor(step: string, options: { cause?: unknown } = {}) {
    super(`Finishing the PDF failed (${step})`, options);
    this.name = 'FinishingError';
  }
}
