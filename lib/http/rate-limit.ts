import type { MiddlewareObj } from '@middy/core';
import { rateLimitHeaders } from '../quota/rate-limit.js';
import type { CallerContext, HttpEvent, HttpResult } from './types.js';

/**
 * Adds `x-ratelimit-limit`, `-remaining` and `-reset` to every answer given
 * after the rate was counted, errors included. Register it before the error
 * mapper so that its `onError` runs after the error response exists.
 */
export function rateLimitHeadersMiddleware(): MiddlewareObj<HttpEvent, HttpResult, Error, CallerContext> {
  const addHeaders = async (request: { context: CallerContext; response: HttpResult | null | undefined }) => {
    const state = request.context.rateLimit;
    if (!state || !request.response) return;
    request.response.headers = { ...request.response.headers, ...rateLimitHeaders(state) };
  };
  return { after: addHeaders, onError: addHeaders };
}
