import { RenderTimeoutError, ValidationError } from '../errors.js';
import type { JobError } from './job-store.js';

/** What a job says when its message was given up on after repeated failures on the service's side. */
export const GIVEN_UP: JobError = {
  code: 'render.failed',
  message: 'The job failed repeatedly for a reason on the service side (not the page); it was given up. Submit it again later.',
};

/**
 * The error to record when a render failed because of the request or the
 * page (invalid options, a page that does not load, a render that overran
 * its time budget): running it again would fail the same way. Undefined for
 * failures on the service's side, which are worth another attempt.
 */
export function permanentFailure(error: unknown): JobError | undefined {
  if (error instanceof ValidationError) {
    return { code: error.code, message: error.message, fields: error.fields };
  }
  if (error instanceof RenderTimeoutError) return { code: 'render.timeout', message: error.message };
  return undefined;
}
