import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { RenderTimeoutError } from '../errors.js';
import { recordRender, renderEndpoint, renderOutcomeOfResponse } from '../observability/metrics.js';
import type { CallerContext, HttpEvent, HttpResult } from './types.js';

/**
 * One structured log line per request: route, status, duration, account,
 * what happened to its quota and the phase timings the endpoint reported.
 * Never the token, body or headers. A request that rendered (its quota was
 * spent) is counted in the render metrics.
 */
export function requestLog(opts: { logger: Logger; endpoint: string }): MiddlewareObj<HttpEvent, HttpResult, Error, CallerContext> {
  const started = new WeakMap<object, number>();
  const write = (request: { event: HttpEvent; context: CallerContext; response: HttpResult | null | undefined; error: Error | null | undefined }) => {
    const start = started.get(request.event) ?? performance.now();
    const status = request.response?.statusCode ?? 500;
    const entry = {
      endpoint: opts.endpoint,
      method: request.event.requestContext?.http?.method,
      path: request.event.rawPath,
      status,
      durationMs: Math.round(performance.now() - start),
      accountId: request.context.caller?.accountId,
      requestId: request.event.requestContext?.requestId,
      timings: request.context.timings ?? (request.error instanceof RenderTimeoutError ? request.error.timings : undefined),
      quota: request.context.quota,
      ...(request.error && status >= 400 ? { error: request.error.name } : {}),
      // A render that ran out of time: the step it was in and how long that step had run (issue 25).
      ...(request.error instanceof RenderTimeoutError ? { step: request.error.step, stepElapsedMs: request.error.stepElapsedMs } : {}),
    };
    if (status >= 500) opts.logger.error('request', entry);
    else opts.logger.info('request', entry);
    const rendering = renderEndpoint(opts.endpoint);
    if (rendering && request.context.quota) {
      recordRender({ ...rendering, outcome: renderOutcomeOfResponse(status, request.error), durationMs: entry.durationMs });
    }
  };
  return {
    before: async (request) => {
      started.set(request.event, performance.now());
    },
    after: async (request) => write(request),
    onError: async (request) => write(request),
  };
}
