import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { QuotaSpend } from '../quota/quota.js';
import type { RateLimitState } from '../quota/rate-limit.js';
import type { TokenRecord } from '../tokens/token-store.js';

/** API Gateway HTTP API (payload 2.0) request, as every HTTP handler receives it. */
export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers?: Record<string, string> };

/** Who is calling: set by the auth middleware before any handler logic runs. */
export type Caller = {
  accountId: string;
  token: TokenRecord;
};

/**
 * Lambda context as the stack enriches it: the caller, where it stands
 * against its rate (for the headers), what happened to its quota and the
 * render's phase timings (for the log line).
 */
export type CallerContext = Context & {
  caller?: Caller;
  rateLimit?: RateLimitState;
  quota?: 'spent' | 'refunded' | 'refund-failed';
  timings?: Record<string, number>;
};

/** What the stack hands to an endpoint's logic once auth, size and validation passed. */
export type HttpRequest<Body> = {
  event: HttpEvent;
  context: CallerContext;
  caller: Caller;
  body: Body;
  params: Record<string, string>;
  query: Record<string, string>;
  /**
   * Set on endpoints that spend quota: the unit this request spent. Whatever
   * finishes the render elsewhere (an async job) keeps it to give the unit back
   * with `refundQuota` if the service fails.
   */
  spend?: QuotaSpend;
};
