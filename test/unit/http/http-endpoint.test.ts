import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { httpEndpoint } from '../../../lib/http/http-endpoint.js';
import { json } from '../../../lib/http/responses.js';
import { NotFoundError, RenderError } from '../../../lib/errors.js';
import { hashToken } from '../../../lib/tokens/tokens.js';
import type { TokenRecord, TokenStore } from '../../../lib/tokens/token-store.js';
import type { HttpEvent } from '../../../lib/http/types.js';
import { memoryUsageStore } from '../quota/memory-usage-store.js';

const ACTIVE = 'dr_active_token_0123456789abcdef';
const INACTIVE = 'dr_inactive_token_0123456789abcdef';

function fakeTokens(): TokenStore {
  const records = new Map<string, TokenRecord>();
  const add = (token: string, active: boolean) =>
    records.set(hashToken(token), {
      tokenHash: hashToken(token), accountId: `acc-${active}`, active, monthlyLimit: null,
      ratePerSecond: 10, webhookSecret: 'whsec_x', createdAt: new Date().toISOString(),
    });
  add(ACTIVE, true);
  add(INACTIVE, false);
  return {
    findByHash: async (hash) => records.get(hash),
    create: async () => undefined,
    setActive: async () => true,
  };
}

/** A logger that keeps its lines for the test to read. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = new Logger({ serviceName: 'test', logLevel: 'INFO' });
  // Powertools writes through its own Console instance; swap it for a recorder.
  const record = (line: string) => void lines.push(line);
  (logger as unknown as { console: Partial<Console> }).console = { info: record, warn: record, error: record, debug: record };
  return { logger, lines };
}

const event = (opts: { token?: string | null; body?: string; path?: string } = {}): HttpEvent => ({
  version: '2.0',
  routeKey: 'POST /v1/thing',
  rawPath: opts.path ?? '/v1/thing',
  rawQueryString: '',
  headers: opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? ACTIVE}` },
  body: opts.body,
  isBase64Encoded: false,
  requestContext: {
    accountId: '1', apiId: 'a', domainName: 'd', domainPrefix: 'd', requestId: 'req-1', routeKey: 'POST /v1/thing',
    stage: '$default', time: '', timeEpoch: 0,
    http: { method: 'POST', path: '/v1/thing', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
  },
});
const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

const Body = v.strictObject({ name: v.pipe(v.string(), v.maxLength(5)) });

describe('httpEndpoint (the shared middleware stack)', () => {
  const build = (handle = async () => json(200, { ok: true }), preload?: () => Promise<unknown>) => {
    const { logger, lines } = capturingLogger();
    const handler = httpEndpoint(
      { name: 'thing', schema: Body, preload, handle },
      { config: { maxBodyBytes: 100 }, tokens: fakeTokens(), logger, usage: memoryUsageStore().store },
    );
    return { handler, lines };
  };
  const call = async (h: ReturnType<typeof build>['handler'], e: HttpEvent) => {
    const res = await h(e, context);
    return { status: res.statusCode, body: JSON.parse(String(res.body)) as Record<string, unknown> };
  };

  it('answers 401 {message} without a token, with a malformed header and with an unknown token', async () => {
    const { handler } = build();
    for (const token of [null, 'x', 'dr_unknown_token_000000000000']) {
      const res = await call(handler, event({ token, body: '{"name":"a"}' }));
      assert.equal(res.status, 401);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
  });

  it('answers 403 for an inactive subscription', async () => {
    const res = await call(build().handler, event({ token: INACTIVE, body: '{"name":"a"}' }));
    assert.equal(res.status, 403);
  });

  it('answers 413 for a body over the limit, but only after auth', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(200) });
    assert.equal((await call(build().handler, event({ body: big }))).status, 413);
    assert.equal((await call(build().handler, event({ body: big, token: null }))).status, 401);
  });

  it('answers 400 {message, code, fields} for malformed JSON and schema failures', async () => {
    const malformed = await call(build().handler, event({ body: '{"name":' }));
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'api.validation');
    assert.ok((malformed.body.fields as Record<string, string>).body);
    const invalid = await call(build().handler, event({ body: '{"name":"toolong","x":1}' }));
    assert.equal(invalid.status, 400);
    assert.deepEqual(Object.keys(invalid.body.fields as object).sort(), ['name', 'x']);
  });

  it('lets a preload 404 win over a malformed body (404 before 400)', async () => {
    const { handler } = build(undefined, async () => {
      throw new NotFoundError('Template not found');
    });
    const res = await call(handler, event({ body: '{"name":' }));
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Template not found' });
  });

  it('never leaks the message of an unexpected error or an unexposed 5xx', async () => {
    for (const error of [new Error('secret db password'), new RenderError('chromium crashed at /tmp/x')]) {
      const { handler } = build(async () => {
        throw error;
      });
      const res = await call(handler, event({ body: '{"name":"a"}' }));
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { message: 'Internal server error' });
    }
  });

  it('writes one log line per request with the outcome and never the token', async () => {
    const { handler, lines } = build();
    await handler(event({ body: '{"name":"a"}' }), context);
    const requestLines = lines.filter((l) => l.includes('"request"'));
    assert.equal(requestLines.length, 1);
    const entry = JSON.parse(requestLines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(entry.status, 200);
    assert.equal(entry.accountId, 'acc-true');
    assert.ok(!lines.join('\n').includes(ACTIVE));
  });
});
