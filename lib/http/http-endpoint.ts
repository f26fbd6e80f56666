import middy from '@middy/core';
import type { Logger } from '@aws-lambda-powertools/logger';
import type * as v from 'valibot';
import type { Config } from '../config.js';
import type { TokenStore } from '../tokens/token-store.js';
import { parseInput } from '../schemas/parse.js';
import { authenticate } from './auth.js';
import { bodyLimit } from './body-limit.js';
import { errorMapper } from './error-mapper.js';
import { parseJsonBody } from './json-body.js';
import { requestLog } from './request-log.js';
import type { Caller, CallerContext, HttpEvent, HttpRequest, HttpResult } from './types.js';

/** What every HTTP endpoint needs from the outside world. */
export type HttpDeps = {
  config: Pick<Config, 'maxBodyBytes'>;
  tokens: TokenStore;
  logger: Logger;
};

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export type EndpointSpec<S extends v.GenericSchema | undefined, L> = {
  /** Name used in logs, e.g. `render-pdf`. */
  name: string;
  /** Body schema, applied after `preload`. Omit for endpoints without a body. */
  schema?: S;
  /**
   * Work that must come before validation in the contract's order of checks,
   * e.g. loading a template (404 before 400). Receives the parsed-but-unvalidated body.
   */
  preload?: (req: HttpRequest<unknown>) => Promise<L>;
  /**
   * True for render endpoints: a request that passed every other check spends
   * one unit of the token's monthly quota (402 once spent) just before `handle`,
   * and gets it back when the service itself fails (5xx).
   */
  spendsQuota?: boolean;
  /** The endpoint's logic: receives the caller and the validated body. */
  handle: (req: HttpRequest<Output<S>>, loaded: L) => Promise<HttpResult>;
};

/**
 * Builds an HTTP Lambda handler with the one middleware stack every endpoint
 * shares: request log → error mapper → bearer auth (401/403) → body size (413)
 * → JSON parse → [preload] → valibot validation (400) → handler.
 */
export function httpEndpoint<S extends v.GenericSchema | undefined = undefined, L = undefined>(
  spec: EndpointSpec<S, L>,
  deps: HttpDeps,
) {
  return middy<HttpEvent, HttpResult, Error, CallerContext>()
    .use(requestLog({ logger: deps.logger, endpoint: spec.name }))
    .use(errorMapper({ logger: deps.logger }))
    .use({
      before: async (request) => {
        request.context.caller = await authenticate(request.event, deps.tokens);
      },
    })
    .use(bodyLimit({ maxBytes: deps.config.maxBodyBytes }))
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
      return spec.handle({ ...base, body }, loaded);
    });
}

function definedEntries(record: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) if (value !== undefined) out[key] = value;
  return out;
}
