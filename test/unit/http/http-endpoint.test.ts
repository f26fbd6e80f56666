import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { httpEndpoint, type EndpointSpec } from '../../../lib/http/http-endpoint.js';
import { json } from '../../../lib/http/responses.js';
import {
  NavigationError,
  NotFoundError,
  RenderError,
  RenderStepTimeoutError,
  RenderTimeoutError,
  ValidationError,
} from '../../../lib/errors.js';
import { billingPeriod } from '../../../lib/quota/quota.js';
import { hashToken } from '../../../lib/tokens/tokens.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import type { AdmissionRequest } from '../../../lib/quota/usage-store.js';
import type { HttpEvent, HttpRequest, HttpResult } from '../../../lib/http/types.js';
import { memoryUsageStore } from '../quota/memory-usage-store.js';
import { SignerNotGrantedError, SignerUnavailableError, TimestampAuthorityError } from '../../../lib/signing/errors.js';

const ACTIVE = 'dr_active_token_0123456789abcdef';
const INACTIVE = 'dr_inactive_token_0123456789abcdef';
/** Quota of 1 render a month. */
const LIMITED = 'dr_limited_token_0123456789abcdef';
/** Past its rate in every window (see `saturate`). */
const HAMMERED = 'dr_hammered_token_0123456789abcdef';

/** The token records the in-memory counters admit against, by hash. */
function fakeTokens(): (tokenHash: string) => TokenRecord | undefined {
  const records = new Map<string, TokenRecord>();
  const add = (token: string, active: boolean, monthlyLimit: number | null = null) =>
    records.set(hashToken(token), {
      tokenHash: hashToken(token), accountId: `acc-${token.split('_')[1]}`, active, monthlyLimit,
      ratePerSecond: 10, webhookSecret: 'whsec_x', createdAt: new Date().toISOString(),
    });
  add(ACTIVE, true);
  add(INACTIVE, false);
  add(LIMITED, true, 1);
  add(HAMMERED, true, 1);
  return (hash) => records.get(hash);
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

let requestCounter = 0;
const event = (opts: { token?: string | null; body?: string; path?: string } = {}): HttpEvent => {
  const requestId = `req-${++requestCounter}`;
  return {
    version: '2.0',
    routeKey: 'POST /v1/thing',
    rawPath: opts.path ?? '/v1/thing',
    rawQueryString: '',
    headers: opts.token === null ? {} : { authorization: `Bearer ${opts.token ?? ACTIVE}` },
    body: opts.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '1', apiId: 'a', domainName: 'd', domainPrefix: 'd', requestId, routeKey: 'POST /v1/thing',
      stage: '$default', time: '', timeEpoch: 0,
      http: { method: 'POST', path: '/v1/thing', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    },
  };
};
const context = () => ({ awsRequestId: 'lambda-req', getRemainingTimeInMillis: () => 30_000 }) as unknown as Context;

const Body = v.strictObject({ name: v.pipe(v.string(), v.maxLength(5)) });
type BodyOutput = v.InferOutput<typeof Body>;
const VALID = '{"name":"a"}';

type Options = {
  handle?: (req: HttpRequest<BodyOutput>) => Promise<HttpResult>;
  preload?: () => Promise<unknown>;
  prepare?: EndpointSpec<typeof Body, unknown, unknown>['prepare'];
  spendsQuota?: EndpointSpec<typeof Body, unknown, unknown>['spendsQuota'];
  begin?: () => void;
};

/** A real middy pipeline around a fake endpoint, with in-memory tokens and usage counters. */
function build(opts: Options = {}) {
  const { logger, lines } = capturingLogger();
  const tokens = fakeTokens();
  const usage = memoryUsageStore(tokens);
  usage.saturate(hashToken(HAMMERED));
  let handled = 0;
  const handler = httpEndpoint(
    {
      name: 'thing',
      schema: Body,
      preload: opts.preload,
      // A preload here stands for a template load: it reads the caller's account.
      readsAccount: opts.preload !== undefined,
      prepare: opts.prepare,
      spendsQuota: opts.spendsQuota,
      begin: opts.begin,
      handle: async (req) => {
        handled += 1;
        return opts.handle ? opts.handle(req) : json(200, { ok: true });
      },
    },
    { config: { maxBodyBytes: 100 }, logger, usage: usage.store },
  );
  const call = async (e: HttpEvent) => {
    const res = await handler(e, context());
    return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(String(res.body)) as Record<string, unknown> };
  };
  const usedBy = (token: string) => usage.usedBy(hashToken(token), billingPeriod(new Date()).key);
  /** Spends the LIMITED token's only unit, as an earlier request would have. */
  const spendLimited = async () => assert.equal((await call(event({ token: LIMITED, body: VALID }))).status, 200);
  /** Deactivates a token in the store the admissions read, as `tokens deactivate` does. */
  const deactivate = (token: string) => {
    const record = tokens(hashToken(token));
    if (record) record.active = false;
  };
  return { call, lines, usage, usedBy, spendLimited, deactivate, handled: () => handled };
}

describe('httpEndpoint (the shared middleware stack)', () => {
  it('answers 401 {message} without a token, with a malformed header and with an unknown token', async () => {
    // Prepare
    const { call } = build();

    for (const token of [null, 'x', 'dr_unknown_token_000000000000']) {
      // Act
      const res = await call(event({ token, body: VALID }));

      // Assess
      assert.equal(res.status, 401);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
  });

  it('takes the Bearer scheme in any case, as HTTP auth schemes are case-insensitive (RFC 9110 §11.1)', async () => {
    // Prepare
    const { call } = build();

    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      // Act
      const res = await call({ ...event({ body: VALID }), headers: { authorization: `${scheme} ${ACTIVE}` } });

      // Assess
      assert.equal(res.status, 200, scheme);
    }
  });

  it('names the Bearer scheme in WWW-Authenticate on every 401 (RFC 6750 §3)', async () => {
    // Prepare
    const { call } = build();
    const cases: [string | null, string][] = [
      [null, 'Bearer realm="DocRender"'],
      ['x', 'Bearer realm="DocRender", error="invalid_request"'],
      ['dr_unknown_token_000000000000', 'Bearer realm="DocRender", error="invalid_token"'],
    ];

    for (const [token, challenge] of cases) {
      // Act
      const res = await call(event({ token, body: VALID }));

      // Assess
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], challenge);
    }
  });

  it('answers 403 for an inactive subscription', async () => {
    // Act
    const res = await build().call(event({ token: INACTIVE, body: VALID }));

    // Assess
    assert.equal(res.status, 403);
  });

  it('answers 413 for a body over the limit, but only after auth', async () => {
    // Prepare
    const big = JSON.stringify({ name: 'x'.repeat(200) });

    // Act
    const authenticated = await build().call(event({ body: big }));
    const anonymous = await build().call(event({ body: big, token: null }));

    // Assess
    assert.equal(authenticated.status, 413);
    assert.equal(anonymous.status, 401);
  });

  it('never answers 413 on an endpoint that takes no body (interface.md lists 413 only for bodies it reads)', async () => {
    // Prepare: a GET or DELETE endpoint; whatever body comes along is ignored, as it would be unread.
    const { logger } = capturingLogger();
    const usage = memoryUsageStore(fakeTokens());
    const handler = httpEndpoint(
      { name: 'no-body', handle: async () => json(200, { ok: true }) },
      { config: { maxBodyBytes: 100 }, logger, usage: usage.store },
    );

    // Act
    const res = await handler(event({ body: 'x'.repeat(500) }), context());

    // Assess
    assert.equal(res.statusCode, 200);
  });

  it('answers 400 {message, code, fields} for malformed JSON and schema failures', async () => {
    // Act
    const malformed = await build().call(event({ body: '{"name":' }));
    const invalid = await build().call(event({ body: '{"name":"toolong","x":1}' }));

    // Assess
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'api.validation');
    assert.ok((malformed.body.fields as Record<string, string>).body);
    assert.equal(invalid.status, 400);
    assert.deepEqual(Object.keys(invalid.body.fields as object).sort(), ['name', 'x']);
  });

  it('lets a preload 404 win over a malformed body (404 before 400)', async () => {
    // Prepare
    const { call } = build({ preload: async () => { throw new NotFoundError('Template not found'); } });

    // Act
    const res = await call(event({ body: '{"name":' }));

    // Assess
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Template not found' });
  });

  it('never leaks the message of an unexpected error or an unexposed 5xx', async () => {
    for (const error of [new Error('secret db password'), new RenderError('chromium crashed at /tmp/x')]) {
      // Prepare
      const { call } = build({ handle: async () => { throw error; } });

      // Act
      const res = await call(event({ body: VALID }));

      // Assess
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { message: 'Internal server error' });
    }
  });

  it('writes one log line per request with the outcome and never the token', async () => {
    // Prepare
    const { call, lines } = build({ spendsQuota: true });

    // Act
    await call(event({ body: VALID }));

    // Assess
    const requestLines = lines.filter((l) => l.includes('"request"'));
    assert.equal(requestLines.length, 1);
    const entry = JSON.parse(requestLines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(entry.status, 200);
    assert.equal(entry.accountId, 'acc-active');
    assert.equal(entry.quota, 'spent');
    assert.ok(!lines.join('\n').includes(ACTIVE));
  });
});

describe('httpEndpoint begin', () => {
  it('starts the endpoint\'s early work before any check, without waiting for it or failing with it', async () => {
    // Prepare: begin records when it ran, relative to the token lookup
    const order: string[] = [];
    const { call } = build({
      begin: () => {
        order.push('begin');
        throw new Error('must not reach the caller');
      },
      handle: async () => {
        order.push('handle');
        return json(200, { ok: true });
      },
    });

    // Act
    const unauthorized = await call(event({ token: null, body: VALID }));
    const ok = await call(event({ body: VALID }));

    // Assess
    assert.equal(unauthorized.status, 401);
    assert.equal(ok.status, 200);
    assert.deepEqual(order, ['begin', 'begin', 'handle']);
  });
});

describe('httpEndpoint rate limit', () => {
  it('answers 429 {message} with Retry-After and the rate-limit headers past the rate', async () => {
    // Prepare
    const { call } = build();

    // Act
    const res = await call(event({ token: HAMMERED, body: VALID }));

    // Assess
    assert.equal(res.status, 429);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.match(res.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    assert.equal(res.headers['x-ratelimit-limit'], '10');
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    assert.match(res.headers['x-ratelimit-reset'] ?? '', /^[1-9]\d*$/);
  });

  it('counts every authenticated request, whatever its answer, in the same window', async () => {
    // Prepare
    const { call } = build();

    // Act
    const first = await call(event({ body: VALID }));
    const second = await call(event({ body: '{"bad":1}' }));

    // Assess
    const remaining = [first, second].map((r) => Number(r.headers['x-ratelimit-remaining']));
    assert.equal(remaining[0], 9);
    // Both fall in one window unless a second boundary passed in between.
    assert.ok(remaining[1] === 8 || remaining[1] === 9, `remaining ${remaining[1]}`);
  });

  it('puts the rate-limit headers on successes and on every error after auth, not on 401 or 403', async () => {
    // Prepare
    const cases: Array<[string, Options, HttpEvent, number]> = [
      ['200', {}, event({ body: VALID }), 200],
      ['400', {}, event({ body: '{"x":1}' }), 400],
      ['413', {}, event({ body: JSON.stringify({ name: 'x'.repeat(200) }) }), 413],
      ['404', { preload: async () => { throw new NotFoundError(); } }, event({ body: VALID }), 404],
      ['500', { handle: async () => { throw new Error('boom'); } }, event({ body: VALID }), 500],
    ];

    for (const [label, opts, e, status] of cases) {
      // Act
      const res = await build(opts).call(e);

      // Assess
      assert.equal(res.status, status, label);
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        assert.match(res.headers[name] ?? '', /^\d+$/, `${label} carries ${name}`);
      }
    }
    for (const token of [null, INACTIVE]) {
      const res = await build().call(event({ token, body: VALID }));
      assert.equal(res.headers['x-ratelimit-limit'], undefined, `${res.status} carries no rate headers`);
    }
  });
});

describe('httpEndpoint quota', () => {
  it('answers 402 {message} once the monthly quota is spent, without running the handler', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true });
    await endpoint.spendLimited();

    // Act
    const res = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(res.status, 402);
    assert.deepEqual(Object.keys(res.body), ['message']);
    assert.equal(endpoint.handled(), 1);
    assert.match(res.headers['x-ratelimit-remaining'] ?? '', /^\d+$/);
  });

  it('checks in the contract order: 429 before 413, then 413, 404 and 400 before 402', async () => {
    // Prepare
    const big = JSON.stringify({ name: 'x'.repeat(200) });
    const spent = async (opts: Options = {}) => {
      const endpoint = build({ spendsQuota: true, ...opts });
      await endpoint.spendLimited();
      return endpoint;
    };

    // Act
    const rateOverSize = await build({ spendsQuota: true }).call(event({ token: HAMMERED, body: big }));
    const sizeOverQuota = await (await spent()).call(event({ token: LIMITED, body: big }));
    let templateDeleted = false;
    const notFoundEndpoint = await spent({ preload: async () => { if (templateDeleted) throw new NotFoundError(); } });
    templateDeleted = true;
    const notFoundOverQuota = await notFoundEndpoint.call(event({ token: LIMITED, body: VALID }));
    const invalidOverQuota = await (await spent()).call(event({ token: LIMITED, body: '{"name":"toolong"}' }));
    const malformedOverQuota = await (await spent()).call(event({ token: LIMITED, body: '{' }));
    let mergedInvalid = false;
    const unpreparedEndpoint = await spent({
      prepare: () => { if (mergedInvalid) throw new ValidationError({ 'page.url': 'merged options name no page' }); },
    });
    mergedInvalid = true;
    const unpreparedOverQuota = await unpreparedEndpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(rateOverSize.status, 429);
    assert.equal(sizeOverQuota.status, 413);
    assert.equal(notFoundOverQuota.status, 404);
    assert.equal(invalidOverQuota.status, 400);
    assert.equal(malformedOverQuota.status, 400);
    assert.equal(unpreparedOverQuota.status, 400);
  });

  it('spends nothing for requests answered 401, 403, 429, 413, 404 or 400', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true, preload: async () => undefined });
    const notFound = build({ spendsQuota: true, preload: async () => { throw new NotFoundError(); } });
    const unprepared = build({ spendsQuota: true, prepare: () => { throw new ValidationError({ x: 'bad' }); } });

    // Act
    const statuses = [
      (await endpoint.call(event({ token: null, body: VALID }))).status,
      (await endpoint.call(event({ token: INACTIVE, body: VALID }))).status,
      (await endpoint.call(event({ token: HAMMERED, body: VALID }))).status,
      (await endpoint.call(event({ token: LIMITED, body: JSON.stringify({ name: 'x'.repeat(200) }) }))).status,
      (await notFound.call(event({ token: LIMITED, body: VALID }))).status,
      (await endpoint.call(event({ token: LIMITED, body: '{"x":1}' }))).status,
      (await unprepared.call(event({ token: LIMITED, body: VALID }))).status,
    ];

    // Assess
    assert.deepEqual(statuses, [401, 403, 429, 413, 404, 400, 400]);
    for (const e of [endpoint, notFound, unprepared]) {
      assert.equal(e.usage.calls.filter((c) => (c.args[0] as AdmissionRequest).spendPeriod !== undefined).length, 0);
    }
  });

  it('never spends on endpoints that do not render', async () => {
    // Prepare
    const endpoint = build();

    // Act
    await endpoint.call(event({ token: LIMITED, body: VALID }));
    const again = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(again.status, 200);
    assert.equal(endpoint.usedBy(LIMITED), 0);
  });

  it('admits a valid render in one call to the counters, rate and quota together, before the render starts', async () => {
    // Prepare
    let callsBeforeRender = -1;
    const endpoint = build({ spendsQuota: true, handle: async () => { callsBeforeRender = endpoint.usage.calls.length; return json(200, {}); } });

    // Act
    const res = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(res.status, 200);
    assert.equal(callsBeforeRender, 1);
    const [admission] = endpoint.usage.calls.map((c) => c.args[0] as AdmissionRequest);
    assert.equal(admission?.countRate, true);
    assert.equal(admission?.spendPeriod, billingPeriod(new Date()).key);
  });

  it('admits a template render once its token is known here in one call too (the first one takes two)', async () => {
    // Prepare
    const counts: number[] = [];
    const endpoint = build({ spendsQuota: true, preload: async () => 'template', handle: async () => { counts.push(endpoint.usage.calls.length); return json(200, {}); } });

    // Act
    await endpoint.call(event({ body: VALID }));
    await endpoint.call(event({ body: VALID }));

    // Assess: calls before each render, cumulated: 2 for the first, then the first one's confirmation and 1 more
    assert.deepEqual(counts, [2, 4]);
  });

  it('refuses a deactivated token at its next request, although this instance knows its account for template loads', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true, preload: async () => 'template' });
    const first = await endpoint.call(event({ token: LIMITED, body: VALID }));
    endpoint.deactivate(LIMITED);

    // Act
    const next = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(first.status, 200);
    assert.equal(next.status, 403);
    assert.equal(endpoint.handled(), 1, 'the second request rendered nothing');
  });

  it('hands the handler its spend, keyed by the API Gateway request id', async () => {
    // Prepare
    let seen: HttpRequest<BodyOutput>['spend'];
    const endpoint = build({ spendsQuota: true, handle: async (req) => { seen = req.spend; return json(201, {}); } });
    const e = event({ body: VALID });

    // Act
    await endpoint.call(e);

    // Assess
    assert.equal(seen?.spendId, e.requestContext.requestId);
    assert.equal(seen?.tokenHash, hashToken(ACTIVE));
    assert.equal(seen?.period, billingPeriod(new Date()).key);
  });

  it('gives the unit back when the render fails on the service side (5xx)', async () => {
    for (const error of [new RenderError('chromium crashed'), new RenderTimeoutError(25_000), new Error('bug')]) {
      // Prepare
      const endpoint = build({ spendsQuota: true, handle: async () => { throw error; } });

      // Act
      const res = await endpoint.call(event({ token: LIMITED, body: VALID }));

      // Assess
      assert.ok(res.status >= 500, `${error.name} answers ${res.status}`);
      assert.equal(endpoint.usedBy(LIMITED), 0, `${error.name} gives the unit back`);
    }
  });

  it('answers a signer or timestamp authority failing with 502 and 503 {message, code} and a signer not granted with 403, each unit given back', async () => {
    const cases = [
      { error: new SignerUnavailableError('legal', 'AccessDeniedException'), status: 502, code: 'render.signer_unavailable' },
      { error: new TimestampAuthorityError('unreachable', { cause: new Error('connect ECONNREFUSED') }), status: 503, code: 'render.timestamp_unavailable' },
      { error: new SignerNotGrantedError('legal'), status: 403, code: 'render.signer_not_granted' },
    ];
    for (const { error, status, code } of cases) {
      // Prepare
      const endpoint = build({ spendsQuota: true, handle: async () => { throw error; } });

      // Act
      const res = await endpoint.call(event({ token: LIMITED, body: VALID }));

      // Assess
      assert.equal(res.status, status, error.name);
      assert.deepEqual(res.body, { message: error.message, code });
      assert.equal(endpoint.usedBy(LIMITED), 0, `${error.name} gives the unit back`);
      const logged = endpoint.lines.map((l) => JSON.parse(l) as { message: string; error?: { name?: string; cause?: unknown } }).find((entry) => entry.message === 'request failed');
      if (status >= 500) assert.equal(logged?.error?.name, error.name, 'the 5xx is logged as raised');
    }
    // The signer's key service's messages name the key: none is kept for the log to print.
    const endpoint = build({ handle: async () => { throw new SignerUnavailableError('legal', 'AccessDeniedException'); } });
    await endpoint.call(event({ body: VALID }));
    const logged = endpoint.lines.map((l) => JSON.parse(l) as { message: string; error?: { cause?: unknown } }).find((entry) => entry.message === 'request failed');
    assert.ok(logged?.error, 'logged');
    assert.equal(logged.error.cause, undefined);
  });

  it("names the step that ran out of time, its elapsed time and the render's timings so far in the request's log line", async () => {
    // Prepare
    const error = new RenderStepTimeoutError('session', 5_004, 5_000);
    error.timings = { spareLate: 1_500, total: 5_010 };
    const endpoint = build({ spendsQuota: true, handle: async () => { throw error; } });

    // Act
    const res = await endpoint.call(event({ body: VALID }));

    // Assess
    assert.equal(res.status, 504);
    assert.match(String(res.body.message), /step "session" did not finish within its bound of 5000 ms \(5004 ms elapsed\)/);
    const line = endpoint.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((entry) => entry.message === 'request');
    assert.equal(line?.step, 'session');
    assert.equal(line?.stepElapsedMs, 5_004);
    assert.equal(line?.error, 'RenderStepTimeoutError');
    assert.deepEqual(line?.timings, { spareLate: 1_500, total: 5_010 });
  });

  it("spends a merge's units in its one admission, all or none, and gives them all back when the service fails", async () => {
    // Prepare
    let calls = -1;
    const threeParts = build({ spendsQuota: () => 3, handle: async () => { calls = threeParts.usage.calls.length; return json(502, { message: 'upstream' }); } });
    const twoParts = build({ spendsQuota: () => 2 });
    const noParts = build({ spendsQuota: () => 0 });

    // Act
    const failed = await threeParts.call(event({ token: ACTIVE, body: VALID }));
    const overQuota = await twoParts.call(event({ token: LIMITED, body: VALID }));
    await noParts.usage.store.admit({ tokenHash: hashToken(LIMITED), nowMs: Date.now(), countRate: false, spendPeriod: billingPeriod(new Date()).key });
    const nothingToRender = await noParts.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(failed.status, 502);
    assert.equal(calls, 1, 'one admission before the render');
    assert.equal((threeParts.usage.calls[0]?.args[0] as AdmissionRequest).units, 3);
    assert.equal(threeParts.usedBy(ACTIVE), 0, 'the three units came back');
    assert.equal(threeParts.usage.calls.filter((c) => c.method === 'release').length, 1, 'all three in one write');
    assert.equal(overQuota.status, 402);
    assert.equal(twoParts.usedBy(LIMITED), 0, 'a merge that does not fit spends nothing');
    assert.equal(nothingToRender.status, 200, 'nothing to render: no 402 with the quota spent');
    assert.equal(noParts.usedBy(LIMITED), 1);
  });

  it('gives the unit back when the handler answers a 5xx without throwing', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true, handle: async () => json(502, { message: 'upstream' }) });

    // Act
    await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(endpoint.usedBy(LIMITED), 0);
  });

  it('gives the unit back for a request found invalid in the handler, but not for a page that failed to load', async () => {
    // Prepare
    const invalid = build({ spendsQuota: true, handle: async () => { throw new ValidationError({ 'page.url': 'private address' }); } });
    const unreachable = build({ spendsQuota: true, handle: async () => { throw new NavigationError('net::ERR_NAME_NOT_RESOLVED'); } });

    // Act
    const refused = await invalid.call(event({ token: LIMITED, body: VALID }));
    const failedLoad = await unreachable.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(refused.status, 400);
    assert.equal(invalid.usedBy(LIMITED), 0);
    assert.equal(failedLoad.status, 400);
    assert.equal(failedLoad.body.code, 'render.navigation');
    assert.equal(unreachable.usedBy(LIMITED), 1, 'the browser did the work: the unit stays spent');
  });

  it('keeps the unit spent after a successful render, so the next request is a 402', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true });

    // Act
    const first = await endpoint.call(event({ token: LIMITED, body: VALID }));
    const second = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.deepEqual([first.status, second.status], [200, 402]);
    assert.equal(endpoint.usedBy(LIMITED), 1);
  });

  it("answers the render's own error when giving the unit back fails, and logs the failed refund", async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true, handle: async () => { throw new RenderError('chromium crashed'); } });
    endpoint.usage.fail('release');

    // Act
    const res = await endpoint.call(event({ token: LIMITED, body: VALID }));

    // Assess
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { message: 'Internal server error' });
    assert.ok(endpoint.lines.some((l) => l.includes('quota refund failed')));
    const entry = JSON.parse(endpoint.lines.find((l) => l.includes('"request"')) ?? '{}') as Record<string, unknown>;
    assert.equal(entry.quota, 'refund-failed');
  });

  it('answers 500 without rendering when the quota cannot be checked', async () => {
    // Prepare
    const endpoint = build({ spendsQuota: true });
    endpoint.usage.fail('admit');

    // Act
    const res = await endpoint.call(event({ body: VALID }));

    // Assess
    assert.equal(res.status, 500);
    assert.equal(endpoint.handled(), 0);
  });
});
