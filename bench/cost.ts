/**
 * What a render costs on AWS, from what the bench measured: the billed
 * duration of its invocation (handler and post-response phase), INIT spread
 * over the renders that share one cold start, and the mode's requests to
 * API Gateway, Lambda, DynamoDB, S3 and SQS. Pure arithmetic, no I/O.
 */

/** x86_64 prices in us-east-1 the cost figures use (Lambda, HTTP API, DynamoDB on-demand, S3 standard, SQS standard). */
export const PRICES = {
  gbSecond: 0.0000166667,
  perRequest: 0.2 / 1e6,
  httpApiPerRequest: 1.0 / 1e6,
  dynamoRead: 0.125 / 1e6,
  dynamoWrite: 0.625 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  sqsRequest: 0.4 / 1e6,
};

/** Memory of the rendering functions in serverless.yml. */
export const CONFIGURED_MEMORY_MB = 1536;

/**
 * Cold starts per 1,000 renders the cost table assumes (1%: traffic that
 * keeps a few environments warm). Each one bills its INIT (Lambda bills INIT
 * since August 2025).
 */
export const COLD_STARTS_PER_1000 = 10;

/**
 * The AWS calls one render makes besides its own invocation, per mode: every
 * request is admitted in one conditional write to the token's item (token,
 * rate window and quota together; docs/settings-and-tokens.md "Tokens"); sync
 * stores the file (and the client fetches it); async also writes the job
 * three times, goes through the jobs queue and the webhooks queue (send,
 * receive, delete each), and invokes the webhook sender.
 */
export const CALLS_PER_RENDER = {
  raw: { httpApi: 1, lambda: 1, dynamoRead: 0, dynamoWrite: 1, s3Put: 0, s3Get: 0, sqs: 0 },
  sync: { httpApi: 1, lambda: 1, dynamoRead: 0, dynamoWrite: 1, s3Put: 1, s3Get: 1, sqs: 0 },
  async: { httpApi: 1, lambda: 3, dynamoRead: 1, dynamoWrite: 4, s3Put: 1, s3Get: 1, sqs: 6 },
} as const;
export type Mode = keyof typeof CALLS_PER_RENDER;
export const MODES = Object.keys(CALLS_PER_RENDER) as Mode[];

/**
 * The duration one render's invocation is billed, ms: the handler's time to
 * its answer plus the post-response phase after it (Lambda bills until every
 * extension asks for the next event), rounded up to the millisecond.
 * Undefined parts (a run without a REPORT line) count as NaN, not as zero.
 */
export function billedMs(handlerMs: number, postResponseMs: number): number {
  return Math.ceil(handlerMs + postResponseMs);
}

/** INIT billed per render, ms, when `coldStartsPer1000` of every 1,000 renders start a new environment. */
export function initShareMs(initMs: number, coldStartsPer1000 = COLD_STARTS_PER_1000): number {
  return (Math.ceil(initMs) * coldStartsPer1000) / 1000;
}

export type CostAssumptions = {
  memoryMb: number;
  /** INIT of one cold start, ms (fresh /tmp: every new environment has one); NaN or 0: not billed. */
  initMs: number;
  coldStartsPer1000?: number;
};

/**
 * Dollars per 1,000 renders billed `billed` ms each in `mode`: Lambda compute
 * (with INIT billed for each cold start of the assumed rate) and requests,
 * HTTP API requests and the mode's DynamoDB, S3 and SQS calls. The async
 * mode's consumer is billed the same duration. Rounded to 1/10,000 $.
 */
export function costPer1000(billed: number, mode: Mode, assumptions: CostAssumptions): number {
  const calls = CALLS_PER_RENDER[mode];
  const gb = assumptions.memoryMb / 1024;
  const init = Number.isFinite(assumptions.initMs) ? initShareMs(assumptions.initMs, assumptions.coldStartsPer1000) : 0;
  // 1,000 renders × (ms ÷ 1,000) seconds each: the milliseconds are the GB-seconds of 1,000 renders.
  const compute = (Math.ceil(billed) + init) * gb * PRICES.gbSecond;
  const perRender =
    calls.httpApi * PRICES.httpApiPerRequest +
    calls.lambda * PRICES.perRequest +
    calls.dynamoRead * PRICES.dynamoRead +
    calls.dynamoWrite * PRICES.dynamoWrite +
    calls.s3Put * PRICES.s3Put +
    calls.s3Get * PRICES.s3Get +
    calls.sqs * PRICES.sqsRequest;
  return Math.round((compute + perRender * 1000) * 10000) / 10000;
}

/** One row of the cost table: a render, its billed duration and its cost per 1,000 in each mode. */
export type CostRow = { id: string; billedMs: number; initShareMs: number; dollars: Record<Mode, number> };

/** The cost table: each render's billed duration priced in every mode under the same assumptions. */
export function costTable(renders: Array<{ id: string; billedMs: number }>, assumptions: CostAssumptions): CostRow[] {
  const init = Number.isFinite(assumptions.initMs) ? initShareMs(assumptions.initMs, assumptions.coldStartsPer1000) : 0;
  return renders
    .filter((render) => Number.isFinite(render.billedMs))
    .map((render) => ({
      id: render.id,
      billedMs: render.billedMs,
      initShareMs: init,
      dollars: Object.fromEntries(MODES.map((mode) => [mode, costPer1000(render.billedMs, mode, assumptions)])) as Record<Mode, number>,
    }));
}
