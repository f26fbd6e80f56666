import { CodedServiceError, httpError, RenderTimeoutError, ValidationError } from '../errors.js';
import type { JobError } from '../jobs/job-store.js';
import { SignerUnavailableError, TimestampAuthorityError } from '../signing/errors.js';
import { MissingGlyphsError } from '../glyphs/glyph-report.js';

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
  // `missingGlyphs: "fail"` refused the document: the same page would be refused again, so the job says why (the
  // 422's code, and the field naming the characters) instead of being retried as the service's own failure.
  if (error instanceof MissingGlyphsError) return permanentFailure(httpError(error));
  if (error instanceof ValidationError) {
    return { code: error.code, message: error.message, fields: error.fields };
  }
  if (error instanceof RenderTimeoutError) return { code: 'render.timeout', message: error.message };
  // The signer's key service or the timestamp authority refused or failed: the job says which and why (their
  // messages name the signer and the service's error, never a key, chain or password) rather than retrying blind.
  if (error instanceof SignerUnavailableError || error instanceof TimestampAuthorityError) {
    const answered = httpError(error);
    if (answered instanceof CodedServiceError) return { code: answered.code, message: answered.message };
  }
  if (isDeterministicRejection(error)) {
    // Logged in full by the consumer; the job record keeps only the kind, never the URL or value refused.
    return { code: 'job.invalid', message: `The job's options were refused by the service's HTTP client (${rejectionKind(error)}); submitting it again as it is would fail the same way.` };
  }
  return undefined;
}

/**
 * Node refusing a value outright: `URIError` (a malformed percent escape it
 * had to decode) or an `ERR_INVALID_*` argument error (a header value outside
 * Latin-1, an unusable URL). The same input is refused the same way on every
 * attempt, so such a job fails once instead of waiting out every redelivery.
 */
function isDeterministicRejection(error: unknown): error is Error {
  if (error instanceof URIError) return true;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_INVALID_');
}

function rejectionKind(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? error.name;
}
