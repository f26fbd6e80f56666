import type { MiddlewareObj } from '@middy/core';
import { RateLimitedError } from '../errors.js';
import { countRequest, rateLimitHeaders } from '../quota/rate-limit.js';
import type { UsageStore } from '../quota/usage-store.js';
import type { TokenRecord } from '../tokens/token-store.js';
import type { CallerContext, HttpEvent, HttpResult } from './types.js';

/**
 * Counts the request against the token's rate (one write to the shared
 * window counter) and records where the caller stands for the headers.
 * Throws RateLimitedError (429 with Retry-After) past the rate.
 */
export async function enforceRateLimit(context: CallerContext, token: TokenRecord, usage: UsageStore): Promise<void> {
  const state = await countRequest(usage, token);
  context.rateLimit = state;
  if (state.exceeded) throw new RateLimitedError(state.resetSeconds, rateLimitHeaders(state));
}

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
