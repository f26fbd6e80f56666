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
import { parseInput } from '../validation/parse.js';
import { admitRequest, type Admitted } from '../quota/admission.js';
import type { TokenRecord } from '../tokens/token-store.js';
import { bearerTokenHash } from './auth.js';
import { bodyBytes, bodyLimit } from './body-limit.js';
import { errorMapper } from './error-mapper.js';
import { parseJsonBody } from './json-body.js';
import { withQuotaSpend } from './quota-spend.js';
import { rateLimitHeadersMiddleware } from './rate-limit.js';
import { requestLog } from './request-log.js';
import { PayloadTooLargeError } from '../errors.js';
import type { Caller, CallerContext, HttpEvent, HttpRequest, HttpResult } from './types.js';

/** What every HTTP endpoint needs from the outside world. */
export type HttpDeps = {
  config: Pick<Config, 'maxBodyBytes'>;
  logger: Logger;
  /** Quota and rate counters, kept with the tokens: every admission is one write there. */
  usage: UsageStore;
  /**
   * Runs `task` after this invocation's answer, in the post-response phase
   * (a rendering function's, lib/bootstrap/renderer-init.ts); absent where there is none,
   * and such work is then done before the answer.
   */
  afterAnswer?: (task: () => Promise<void>) => void;
};

/** Tokens an endpoint keeps for its template loads, at most (beyond, it forgets them all: they only save a round trip). */
const KNOWN_TOKENS_KEPT = 10_000;

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
   * True when `preload` or `prepare` of a render reads the caller's account
   * (template loads), which then must be known before its admission.
   */
  readsAccount?: boolean;
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
 *
 * Auth, rate and quota are one atomic write to the token's counters
 * (`admitRequest`). An endpoint that renders runs its own checks (413, 404,
 * 400) first and then admits the request, spending its unit in that same
 * write, so a render waits on one DynamoDB round trip; a request those
 * checks refuse is admitted without spending (its 401, 403 or 429 outranks
 * their answer). A template render needs the caller's account to load the
 * template (404 before 400), as does a merge with template parts: the first one a token
 * makes on an instance is admitted first and spends in a second write.
 */
export function httpEndpoint<S extends v.GenericSchema | undefined = undefined, L = undefined, P = undefined>(
  spec: EndpointSpec<S, L, P>,
  deps: HttpDeps,
) {
  const usage = deps.usage;
  const begin = spec.begin;
  // Tokens this instance admitted, by hash: whose account a template load reads. An account never changes,
  // and every request is still decided by its own admission.
  const knownTokens = new Map<string, TokenRecord>();
  const admitted = (context: CallerContext, admission: Admitted): Admitted => {
    context.caller = callerOf(admission.token);
    if (knownTokens.size >= KNOWN_TOKENS_KEPT) knownTokens.clear();
    knownTokens.set(admission.token.tokenHash, admission.token);
    return admission;
  };
  return middy<HttpEvent, HttpResult, Error, CallerContext>()
    .use(begin ? [{ before: () => void startQuietly(begin) }] : [])
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(serviceMetrics()))
    .use(requestLog({ logger: deps.logger, endpoint: spec.name }))
    .use(rateLimitHeadersMiddleware())
    .use(errorMapper({ logger: deps.logger }))
    .use({
      before: async (request) => {
        const tokenHash = bearerTokenHash(request.event);
        // A render is admitted once its own checks passed (see the handler).
        if (!spec.spendsQuota) admitted(request.context, await admitRequest(usage, tokenHash, { countRate: true, onRate: rateOf(request.context) }));
      },
    })
    // Only a body the endpoint reads can be too large: GET and DELETE never answer 413 (interface.md).
    .use(spec.schema && !spec.spendsQuota ? [bodyLimit({ maxBytes: deps.config.maxBodyBytes })] : [])
    .handler(async (event, context) => {
      const tokenHash = bearerTokenHash(event);
      const admit = (options: { countRate: boolean; spendId?: string; units?: number }) =>
        admitRequest(usage, tokenHash, { ...options, onRate: rateOf(context) }).then((admission) => admitted(context, admission));
      // The rate was counted (a render's first admission, below), so the spend must not count it again.
      let counted = !spec.spendsQuota;
      if (spec.spendsQuota && spec.readsAccount && !knownTokens.has(tokenHash)) {
        await admit({ countRate: true });
        counted = true;
      }
      // Before a render's admission, only a template load reads the caller (its account), from a token known here.
      const known = knownTokens.get(tokenHash);
      const caller = (context.caller ?? (known ? callerOf(known) : undefined)) as Caller;
      const base = {
        event,
        context,
        caller,
        params: definedEntries(event.pathParameters),
        query: definedEntries(event.queryStringParameters),
      };
      let body: Output<S>;
      let loaded: L;
      let prepared: P;
      try {
        if (spec.spendsQuota && spec.schema && bodyBytes(event) > deps.config.maxBodyBytes) throw new PayloadTooLargeError(deps.config.maxBodyBytes);
        // A malformed body is a 400, which the contract ranks after the preload's 404.
        let raw: unknown;
        let parseError: unknown;
        try {
          raw = spec.schema ? parseJsonBody(event) : undefined;
        } catch (error) {
          parseError = error;
        }
        loaded = spec.preload ? await spec.preload({ ...base, body: raw }) : (undefined as L);
        if (parseError) throw parseError;
        body = (spec.schema ? parseInput(spec.schema, raw) : undefined) as Output<S>;
        prepared = spec.prepare ? await spec.prepare({ ...base, body }, loaded) : (undefined as P);
      } catch (error) {
        // 401, 403 and 429 outrank 413, 404 and 400: a render refused here is admitted (never spending) first.
        if (!counted) await admit({ countRate: true });
        throw error;
      }
      if (!spec.spendsQuota) return spec.handle({ ...base, body }, loaded, prepared);
      const units = typeof spec.spendsQuota === 'function' ? spec.spendsQuota(prepared) : 1;
      // Nothing to render (a merge of existing PDFs only): nothing to spend, and no 402; admitted all the same.
      const admission =
        units === 0 ? (counted ? undefined : await admit({ countRate: true })) : await admit({ countRate: !counted, spendId: requestIdOf(event, context), units });
      return withQuotaSpend({ usage, logger: deps.logger, ...(deps.afterAnswer ? { afterAnswer: deps.afterAnswer } : {}) }, { spend: admission?.spend, context }, (spend) =>
        spec.handle({ ...base, caller: context.caller as Caller, body, ...(spend ? { spend } : {}) }, loaded, prepared),
      );
    });
}

function callerOf(token: TokenRecord): Caller {
  return { accountId: token.accountId, token };
}

/** Keeps where the caller stands against its rate for the headers of whatever answer follows. */
function rateOf(context: CallerContext) {
  return (state: CallerContext['rateLimit']) => {
    context.rateLimit = state;
  };
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
