import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { Config } from '../config.js';
import { serviceMetrics } from '../observability/metrics.js';
import type { UsageStore } from '../quota/usage-store.js';
import type { TokenStore } from '../tokens/token-store.js';
import { parseInput } from '../schemas/parse.js';
import { authenticate } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { errorMapper } from './error-mapper.js';
import { parseJsonBody } from './json-body.js';
import { withQuotaSpend } from './quota-spend.js';
import { enforceRateLimit, rateLimitHeadersMiddleware } from './rate-limit.js';
import { requestLog } from './request-log.js';
import type { Caller, CallerContext, HttpEvent, HttpRequest, HttpResult } from './types.js';

/** What every HTTP endpoint needs from the outside world. */
export type HttpDeps = {
  config: Pick<Config, 'maxBodyBytes'>;
  tokens: TokenStore;
  logger: Logger;
  /** Quota and rate counters. */
  usage: UsageStore;
};

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export type EndpointSpec<S extends v.GenericSchema | undefined, L, P = undefined> = {
  /** Name used in logs, e.g. `render-pdf`. */
  name: string;
  /**
   * Work to start as the invocation begins, before any check, that neither
   * delays nor fails it (a render endpoint has its browser start opening the
   * next isolated session while auth, rate and quota wait on DynamoDB).
   */
  begin?: () => void;
  /** Body schema, applied after `preload`. Omit for endpoints without a body. */
  schema?: S;
  /**
   * Work that must come before validation in the contract's order of checks,
   * e.g. loading a template (404 before 400). Receives the parsed-but-unvalidated body.
   */
  preload?: (req: HttpRequest<unknown>) => Promise<L>;
  /**
   * Checks that need the validated body and what `preload` loaded (e.g. the
   * template's stored options merged with the request's), run before any quota
   * is spent so that their 400 wins over a 402. Its result goes to `handle`.
   */
  prepare?: (req: HttpRequest<Output<S>>, loaded: L) => Promise<P> | P;
  /**
   * True for render endpoints: a request that passed every other check spends
   * one unit of the token's monthly quota (402 once spent) just before `handle`,
   * and gets it back when the service itself fails (5xx). A function tells how
   * many units the prepared request takes (a merge: one per rendered part).
   */
  spendsQuota?: boolean | ((prepared: P) => number);
  /** The endpoint's logic: receives the caller, the validated body and what preload and prepare gave. */
  handle: (req: HttpRequest<Output<S>>, loaded: L, prepared: P) => Promise<HttpResult>;
};

/**
 * Builds an HTTP Lambda handler with the one middleware stack every endpoint
 * shares, in the contract's order of checks: bearer auth (401, 403) → rate
 * limit (429) → body size (413) → JSON parse → [preload: 404] → valibot
 * validation and [prepare] (400) → [quota: 402] → handler. Around them: the
 * Lambda context on every log line, the metrics flushed at the end of the
 * invocation, one log line per request, the error mapper, and the rate-limit
 * headers on every answer given after the rate was counted.
 */
export function httpEndpoint<S extends v.GenericSchema | undefined = undefined, L = undefined, P = undefined>(
  spec: EndpointSpec<S, L, P>,
  deps: HttpDeps,
) {
  const usage = deps.usage;
  const begin = spec.begin;
  return middy<HttpEvent, HttpResult, Error, CallerContext>()
    .use(begin ? [{ before: () => void startQuietly(begin) }] : [])
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(serviceMetrics()))
    .use(requestLog({ logger: deps.logger, endpoint: spec.name }))
    .use(rateLimitHeadersMiddleware())
    .use(errorMapper({ logger: deps.logger }))
    .use({
      before: async (request) => {
        const caller = await authenticate(request.event, deps.tokens);
        request.context.caller = caller;
        await enforceRateLimit(request.context, caller.token, usage);
      },
    })
    // Only a body the endpoint reads can be too large: GET and DELETE never answer 413 (interface.md).
    .use(spec.schema ? [bodyLimit({ maxBytes: deps.config.maxBodyBytes })] : [])
    .handler(async (event, context) => {
      const base = {
        event,
        context,
        caller: context.caller as Caller,
        params: definedEntries(event.pathParameters),
        query: definedEntries(event.queryStringParameters),
      };
      // A malformed body is a 400, which the contract ranks after the preload's 404.
      let raw: unknown;
      let parseError: unknown;
      try {
        raw = spec.schema ? parseJsonBody(event) : undefined;
      } catch (error) {
        parseError = error;
      }
      const loaded = spec.preload ? await spec.preload({ ...base, body: raw }) : (undefined as L);
      if (parseError) throw parseError;
      const body = (spec.schema ? parseInput(spec.schema, raw) : undefined) as Output<S>;
      const prepared = spec.prepare ? await spec.prepare({ ...base, body }, loaded) : (undefined as P);
      if (!spec.spendsQuota) return spec.handle({ ...base, body }, loaded, prepared);
      return withQuotaSpend(
        { usage, logger: deps.logger },
        {
          token: base.caller.token,
          spendId: requestIdOf(event, context),
          context,
          units: typeof spec.spendsQuota === 'function' ? spec.spendsQuota(prepared) : 1,
        },
        (spend) => spec.handle(spend ? { ...base, body, spend } : { ...base, body }, loaded, prepared),
      );
    });
}

/** Runs early work whose failure is not the request's: it is only ever a head start. */
function startQuietly(work: () => void): void {
  try {
    work();
  } catch {
    // The work it would have saved is done in its normal place.
  }
}

/** API Gateway's id of the request (unique per request), else Lambda's, else a fresh one. */
function requestIdOf(event: HttpEvent, context: Context): string {
  return event.requestContext?.requestId || context.awsRequestId || randomUUID();
}

function definedEntries(record: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) if (value !== undefined) out[key] = value;
  return out;
}
