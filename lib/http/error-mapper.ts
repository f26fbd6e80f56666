import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { httpError, ServiceError, ValidationError } from '../errors.js';
import { json } from './responses.js';
import type { HttpEvent, HttpResult } from './types.js';

/** What a caller reads for a 5xx whose own message stays in the logs. */
const GENERIC_MESSAGES: Record<number, string> = {
  503: 'The service is briefly unavailable; retry after the number of seconds in Retry-After',
};

/**
 * Turns any error into the contract's response shape: 400 carries
 * `{message, code, fields}`, every other status `{message}` (and `code` when
 * an exposed error has one). Errors not
 * raised on purpose, and every 5xx whose message is not meant for callers,
 * become a plain 500 so internals never leak. Register it first so its
 * `onError` runs last.
 */
export function errorMapper(opts: { logger: Logger }): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    onError: async (request) => {
      if (request.response && request.error === null) return;
      const error = request.error;
      request.response = toResponse(error, opts.logger);
    },
  };
}

/** The HTTP response for an error (exported for handlers that build responses outside middy). */
export function toResponse(raised: unknown, logger?: Logger): HttpResult {
  // A library's own error (lib/signing) answers with the status and code decided for it; its log line is the error as raised.
  const error = httpError(raised);
  if (error instanceof ValidationError) {
    return json(error.statusCode, { message: error.message, code: error.code, fields: error.fields }, error.headers);
  }
  if (error instanceof ServiceError) {
    if (error.statusCode >= 500) logger?.error('request failed', { error: raised as Error });
    const message = error.expose ? error.message : (GENERIC_MESSAGES[error.statusCode] ?? 'Internal server error');
    // An exposed error that carries a code (a signer not granted, a signer or timestamp authority failing) says it beside the message.
    const code = error.expose && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return json(error.statusCode, code ? { message, code } : { message }, error.headers);
  }
  logger?.error('unexpected error', { error: error as Error });
  return json(500, { message: 'Internal server error' });
}
