/**
 * `npx tsx bench/auth-overhead.ts [--requests N]`: what bearer auth, the rate
 * limit and the monthly quota add to one request. Runs the real HTTP stack
 * (`httpEndpoint`) in this process against the embedded DynamoDB emulator,
 * provisioned from serverless.yml as `npm start` does, in three variants:
 *
 *   none                   the admission in memory (the stack's own cost)
 *   auth+rate              an endpoint that does not render: one conditional UpdateItem on the token's item
 *   auth+rate+quota        a render's admission: the same single UpdateItem, also spending a unit
 *   before: three calls    the same render admission the way it was before, for comparison in the same run:
 *                          GetItem of the token, UpdateItem of the rate window's counter, conditional
 *                          UpdateItem of the month's counter, one after another (as lib/ did until issue 24 §2)
 *
 * Requests are sequential and the variants interleaved round by round, so
 * drift of the shared machine hits all alike. Prints median and p90 per
 * request and the median added over `none`. The emulator is not DynamoDB:
 * its round trips are local, so the figures show the code path's cost and the
 * number of round trips, not AWS network latency (add ~3–8 ms per round trip
 * in-region).
 */
import { parseArgs } from 'node:util';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { createAwsClients } from '../lib/aws/clients.js';
import { createDynamoTokenStore } from '../lib/aws/dynamo-token-store.js';
import { createDynamoUsageStore } from '../lib/aws/dynamo-usage-store.js';
import { loadConfig } from '../lib/config.js';
import { httpEndpoint } from '../lib/http/http-endpoint.js';
import { json } from '../lib/http/responses.js';
import type { HttpEvent } from '../lib/http/types.js';
import { startLocalAws } from '../scripts/local-runtime/local-aws.js';
import type { UsageStore } from '../lib/quota/usage-store.js';
import type { TokenRecord } from '../lib/tokens/token-store.js';
import { createToken, hashToken } from '../lib/tokens/tokens.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '400' } } });
const REQUESTS = Number(values.requests);
const WARMUP = 30;
const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const local = await startLocalAws();
// This process plays an instance of a function without layers: its environment, its configuration.
const played = local.service.functions.find((fn) => fn.layerDirs.length === 0);
if (played) Object.assign(process.env, local.environmentOf(played));
const config = loadConfig();
const clients = createAwsClients(config);
try {
  const dynamoTokens = createDynamoTokenStore(clients.dynamo, config.tables.tokens);
  const dynamoUsage = createDynamoUsageStore(clients.dynamo, { tokens: config.tables.tokens, usage: config.tables.usage });
  // Unlimited quota and a rate no benchmark reaches: every request takes the full accepted path.
  const { token } = await createToken(dynamoTokens, { limit: null, rate: 1_000_000 });
  const record = (await dynamoTokens.findByHash(hashToken(token))) as TokenRecord;

  const memoryUsage: UsageStore = {
    admit: async ({ nowMs }) => ({
      admitted: true,
      token: record,
      rate: { window: { seconds: 1, allowed: 1_000_000 }, windowStart: Math.floor(nowMs / 1000), count: 1 },
    }),
    refund: async () => true,
    confirm: async () => true,
    release: async () => true,
    used: async () => 0,
  };
  const logger = new Logger({ serviceName: 'bench', logLevel: 'SILENT' });
  const endpoint = (usage: UsageStore, spendsQuota: boolean) =>
    httpEndpoint({ name: 'bench', spendsQuota, handle: async () => json(200, { ok: true }) }, { config: { maxBodyBytes: 1024 }, usage, logger });
  // Auth, rate and quota are one conditional write to the token's item (lib/aws/dynamo-usage-store.ts).
  const variants = [
    { name: 'none', handler: endpoint(memoryUsage, true), roundTrips: 0 },
    { name: 'auth+rate', handler: endpoint(dynamoUsage, false), roundTrips: 1 },
    { name: 'auth+rate+quota', handler: endpoint(dynamoUsage, true), roundTrips: 1 },
    { name: 'before: three calls', handler: endpoint(threeCallAdmission(clients.dynamo, config.tables), true), roundTrips: 3 },
  ];

  let sequence = 0;
  const call = async (handler: (typeof variants)[number]['handler']) => {
    const started = performance.now();
    const res = await handler(event(token, `bench-${++sequence}`), context);
    const elapsed = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`unexpected ${res.statusCode}: ${String(res.body)}`);
    return elapsed;
  };

  for (const v of variants) for (let i = 0; i < WARMUP; i++) await call(v.handler);
  const timings = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < REQUESTS; round++) {
    // Rotate the order each round so that no variant always runs first.
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(round + k) % variants.length] as (typeof variants)[number];
      timings.get(v.name)?.push(await call(v.handler));
    }
  }

  const base = median(timings.get('none') ?? []);
  console.log(`auth, rate and quota overhead: ${REQUESTS} sequential requests per variant, embedded DynamoDB emulator (dynalite)`);
  console.log('variant                round trips   median ms   p90 ms   added (median)');
  for (const v of variants) {
    const series = timings.get(v.name) ?? [];
    const m = median(series);
    console.log(
      `${v.name.padEnd(23)}${String(v.roundTrips).padStart(11)}${m.toFixed(2).padStart(12)}${quantile(series, 0.9).toFixed(2).padStart(9)}` +
        `${(v.name === 'none' ? '-' : `+${(m - base).toFixed(2)}`).padStart(17)}`,
    );
  }
} finally {
  clients.dynamo.destroy();
  clients.s3.destroy();
  clients.sqs.destroy();
  await local.stop();
}

/**
 * A render's admission as it was before one write did it: the token read, the
 * rate window's counter and the month's counter in the usage table, in turn.
 */
function threeCallAdmission(dynamo: DynamoDBDocumentClient, tables: { tokens: string; usage: string }): UsageStore {
  return {
    async admit({ tokenHash, nowMs, spendPeriod }) {
      const { Item } = await dynamo.send(new GetCommand({ TableName: tables.tokens, Key: { tokenHash } }));
      if (!Item) return { admitted: false, refusal: 'unknown-token' };
      const windowStart = Math.floor(nowMs / 1000);
      const { Attributes: rate } = await dynamo.send(
        new UpdateCommand({
          TableName: tables.usage,
          Key: { pk: `rate#${tokenHash}#${windowStart}` },
          UpdateExpression: 'ADD #n :one SET #expiresAt = :expiresAt',
          ExpressionAttributeNames: { '#n': 'n', '#expiresAt': 'expiresAt' },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': windowStart + 61 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      if (spendPeriod !== undefined) {
        await dynamo.send(
          new UpdateCommand({
            TableName: tables.usage,
            Key: { pk: `quota#${tokenHash}#${spendPeriod}` },
            UpdateExpression: 'ADD #used :one SET #expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(#used) OR #used < :limit',
            ExpressionAttributeNames: { '#used': 'used', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':one': 1, ':expiresAt': windowStart + 400 * 86_400, ':limit': 1_000_000_000 },
          }),
        );
      }
      const token = Item as TokenRecord;
      return { admitted: true, token, rate: { window: { seconds: 1, allowed: 1_000_000 }, windowStart, count: Number(rate?.n ?? 1) } };
    },
    refund: async () => true,
    confirm: async () => true,
    release: async () => true,
    used: async () => 0,
  };
}

function event(bearer: string, requestId: string): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'POST /bench',
    rawPath: '/bench',
    rawQueryString: '',
    headers: { authorization: `Bearer ${bearer}` },
    isBase64Encoded: false,
    requestContext: {
      accountId: '1', apiId: 'a', domainName: 'd', domainPrefix: 'd', requestId, routeKey: 'POST /bench',
      stage: '$default', time: '', timeEpoch: 0,
      http: { method: 'POST', path: '/bench', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
    },
  };
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = sorted[Math.floor(at)] as number;
  const hi = sorted[Math.ceil(at)] as number;
  return lo + (hi - lo) * (at - Math.floor(at));
}
