/**
 * Typed errors raised where a failure arises. Each carries the HTTP status it
 * maps to and whether its message may be shown to the caller; the mapping to
 * an HTTP response happens once, in `lib/http/error-mapper.ts`. A library
 * that knows no HTTP (lib/signing) raises errors in its own terms; what they
 * are for a caller is decided here, once (`httpError`).
 */
import { SignerNotGrantedError, SignerUnavailableError, TimestampAuthorityError } from './signing/errors.js';
import { MissingGlyphsError } from './glyphs/glyph-report.js';

/** Map of dotted field paths (e.g. `page.url`) to a human-readable problem. */
export type FieldErrors = Record<string, string>;

/** Base class: every error the service raises on purpose. */
export class ServiceError extends Error {
  readonly statusCode: number;
  /** When false the caller only sees a generic message (5xx). */
  readonly expose: boolean;
  readonly headers: Record<string, string>;

  constructor(
    message: string,
    statusCode: number,
    options: { cause?: unknown; expose?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.expose = options.expose ?? statusCode < 500;
    this.headers = options.headers ?? {};
  }
}

/** 400 with the contract's `{message, code, fields}` body. */
export class ValidationError extends ServiceError {
  readonly code: string;
  readonly fields: FieldErrors;

  constructor(fields: FieldErrors, options: { message?: string; code?: string; cause?: unknown; statusCode?: 400 | 422 } = {}) {
    super(options.message ?? 'Validation failed', options.statusCode ?? 400, { cause: options.cause });
    this.code = options.code ?? 'api.validation';
    this.fields = fields;
  }
}

/**
 * The code of a merge that failed because of one of its parts (its fields
 * are the part's, under `parts.<index>.`): nothing of it is charged.
 */
export const MERGE_PART_CODE = 'merge.part';

/**
 * The code of a process request whose document could not be used (not a PDF,
 * damaged, encrypted without the right password, too large, not fetched):
 * a 400 naming `document`, `documentUrl` or `password`; nothing is charged.
 */
export const PROCESS_DOCUMENT_CODE = 'process.document';

/** The code of a 422: the document cannot be made to conform to what `pdf` asks (PDF/A); nothing is charged. */
export const CONFORMANCE_CODE = 'pdf.conformance';

/** The code of a 422: characters no font draws, with `missingGlyphs: "fail"` (issue 46); nothing is charged. */
export const MISSING_GLYPHS_CODE = 'render.missing_glyphs';

/** The page could not be loaded: DNS failure, refused, blocked, navigation timeout. */
export class NavigationError extends ValidationError {
  constructor(reason: string, options: { field?: string; cause?: unknown } = {}) {
    super({ [options.field ?? 'page.url']: reason }, {
      message: 'The page could not be loaded',
      code: 'render.navigation',
      cause: options.cause,
    });
  }
}

/**
 * 401. `challenge` is the RFC 6750 error code for the WWW-Authenticate
 * header: none when no credentials were sent, `invalid_request` for a
 * malformed header, `invalid_token` for an unknown token.
 */
export class UnauthorizedError extends ServiceError {
  constructor(message = 'Missing or invalid token', challenge?: 'invalid_request' | 'invalid_token') {
    // RFC 6750 §3: every 401 names the scheme the caller should use.
    const error = challenge ? `, error="${challenge}"` : '';
    super(message, 401, { headers: { 'www-authenticate': `Bearer realm="DocRender"${error}` } });
  }
}

export class SubscriptionInactiveError extends ServiceError {
  constructor(message = 'The token has no active subscription') {
    super(message, 403);
  }
}

export class QuotaExceededError extends ServiceError {
  constructor(message = 'Subscription limit reached') {
    super(message, 402);
  }
}

export class RateLimitedError extends ServiceError {
  constructor(retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super('Too many requests', 429, { headers: { ...headers, 'retry-after': String(retryAfterSeconds) } });
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(limitBytes: number) {
    super(`Request body too large (limit ${limitBytes} bytes)`, 413);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message = 'Not found') {
    super(message, 404);
  }
}

/**
 * The render did not finish inside its time budget. When the step that was
 * under way is known (session, setup, navigation, wait, capture, store,
 * upload) the message and the fields name it and how long it had run, for
 * the caller and for the request's log line.
 */
export class RenderTimeoutError extends ServiceError {
  readonly step: string | undefined;
  readonly stepElapsedMs: number | undefined;
  /** The phases the render had finished, for the request's log line (set by the renderer). */
  timings: Record<string, number> | undefined;
  /** The pages printed when the budget ran out in the finishing (issue 47): how far a long document got. */
  pagesPrinted: number | undefined;

  constructor(budgetMs: number, options: { cause?: unknown; step?: string; stepElapsedMs?: number; message?: string } = {}) {
    const under = options.step === undefined ? '' : ` (step "${options.step}" still running after ${options.stepElapsedMs ?? '?'} ms)`;
    super(options.message ?? `Rendering did not finish within ${budgetMs} ms${under}`, 504, { expose: true, cause: options.cause });
    this.step = options.step;
    this.stepElapsedMs = options.stepElapsedMs;
  }
}

/** One step of a render did not finish within its own bound, well before the whole budget would have run out. */
export class RenderStepTimeoutError extends RenderTimeoutError {
  readonly boundMs: number;

  constructor(step: string, elapsedMs: number, boundMs: number, options: { cause?: unknown } = {}) {
    super(boundMs, {
      cause: options.cause,
      step,
      stepElapsedMs: elapsedMs,
      message: `Rendering step "${step}" did not finish within its bound of ${boundMs} ms (${elapsedMs} ms elapsed)`,
    });
    this.boundMs = boundMs;
  }
}

/** Chromium failed for a reason that is ours, not the caller's. */
export class RenderError extends ServiceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, 500, { cause: options.cause });
  }
}

/** An error whose message a caller reads with a `code` beside it, saying which failure it is (a signer not granted, a signer or timestamp authority failing). */
export class CodedServiceError extends ServiceError {
  readonly code: string;
  constructor(message: string, statusCode: number, code: string, options: { cause?: unknown; expose?: boolean } = {}) {
    super(message, statusCode, options);
    this.code = code;
  }
}

/**
 * What an error raised in a library's own terms is for a caller: its status,
 * code and whether its message is shown, the error itself kept as the cause;
 * a ServiceError, or any other error, as it is. The error mapper, the quota's
 * refund, the metrics and a job's recorded failure all read a failure through
 * this, so a signing error answers the same wherever it ends.
 */
export function httpError(error: unknown): unknown {
  // The signer's key service failed or refused: the message names the signer and the service's error, never a key.
  if (error instanceof SignerUnavailableError) return new CodedServiceError(error.message, 502, 'render.signer_unavailable', { expose: true, cause: error });
  if (error instanceof TimestampAuthorityError) return new CodedServiceError(error.message, 503, 'render.timestamp_unavailable', { expose: true, cause: error });
  if (error instanceof SignerNotGrantedError) return new CodedServiceError(error.message, 403, 'render.signer_not_granted', { cause: error });
  // The render drew characters no font has and was asked to fail then: the field names them.
  if (error instanceof MissingGlyphsError) {
    return new ValidationError({ [error.field]: error.message }, { message: 'The document has characters no font draws', code: MISSING_GLYPHS_CODE, statusCode: 422, cause: error });
  }
  return error;
}
