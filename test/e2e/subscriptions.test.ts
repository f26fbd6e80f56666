import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { b64, startService, type RunningService } from '../helpers/service.js';

type Usage = {
  plan: string;
  quota: { limit: number | null; used: number; remaining: number | null; period: { start: string; end: string } };
  rate: { perSecond: number };
};

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;
const pdfBody = { page: { html: b64('<p>quota</p>') } };
/** Over the service's body limit (MAX_BODY_BYTES below). */
const bigBody = { page: { html: b64('x'.repeat(60_000)) } };

describe('subscriptions: monthly quota (402), rate limit (429), usage', () => {
  let service: RunningService;
  before(async () => {
    // A small body limit keeps the 413 cases light; a short render budget makes the 5xx case quick.
    service = await startService({ MAX_BODY_BYTES: '50000', RENDER_TIMEOUT_MS: '4000' });
    // The first render pays for the browser launch; later ones are quick.
    await (await service.request('/v1/pdf', { json: pdfBody })).arrayBuffer();
  });
  after(async () => {
    await service?.stop();
  });

  const newToken = async (...args: string[]) => (await service.tokens('create', ...args)).stdout.trim();
  const usageOf = async (token: string) => {
    const res = await service.request('/v1/usage', { token });
    assert.equal(res.status, 200);
    return (await res.json()) as Usage;
  };
  const render = async (token: string, path = '/v1/pdf', body: unknown = pdfBody) => {
    const res = await service.request(path, { json: body, token });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, bytes };
  };
  const createTemplate = async (token: string) => {
    const res = await service.request('/v1/templates', { token, json: { name: 'Quota', variables: { page: { html: b64('<p>t</p>') } } } });
    assert.equal(res.status, 201);
    return ((await res.json()) as { id: string }).id;
  };

  it('answers GET /v1/usage with the plan, this month and the rate', async () => {
    // Prepare
    const token = await newToken('--plan', 'free');
    const now = new Date();

    // Act
    const usage = await usageOf(token);

    // Assess
    assert.deepEqual(usage, {
      plan: 'free',
      quota: {
        limit: 100,
        used: 0,
        remaining: 100,
        period: {
          start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
          end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
        },
      },
      rate: { perSecond: 2 },
    });
  });

  it('counts one unit per render (pdf, screenshot, template), then answers 402 {message} on every render endpoint', async () => {
    // Prepare
    const token = await newToken('--limit', '3');
    const templateId = await createTemplate(token);

    // Act
    const rendered = [
      (await render(token, '/v1/pdf')).status,
      (await render(token, '/v1/screenshot')).status,
      (await render(token, `/v1/template/${templateId}`, {})).status,
    ];
    const afterQuota = await Promise.all(
      [['/v1/pdf', pdfBody], ['/v1/screenshot', pdfBody], [`/v1/template/${templateId}`, {}]].map(async ([path, body]) => {
        const res = await service.request(path as string, { json: body, token });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    );
    const usage = await usageOf(token);

    // Assess
    assert.deepEqual(rendered, [200, 200, 200]);
    for (const res of afterQuota) {
      assert.equal(res.status, 402);
      assert.deepEqual(Object.keys(res.body), ['message']);
      assert.equal(typeof res.body.message, 'string');
    }
    assert.equal(usage.quota.used, 3);
    assert.equal(usage.quota.remaining, 0);
    assert.equal(usage.plan, 'custom');
  });

  it('renders again once the admin raises the quota with `tokens set`, and `tokens usage` shows it', async () => {
    // Prepare
    const token = await newToken('--limit', '1');
    assert.equal((await render(token)).status, 200);
    assert.equal((await render(token)).status, 402);

    // Act
    await service.tokens('set', '--limit', '2', token);
    const again = await render(token);
    const cli = JSON.parse((await service.tokens('usage', '--json', token)).stdout) as Usage & { active: boolean };

    // Assess
    assert.equal(again.status, 200);
    assert.equal(again.bytes.subarray(0, 5).toString(), '%PDF-');
    assert.equal(cli.quota.used, 2);
    assert.equal(cli.quota.limit, 2);
    assert.equal(cli.active, true);
  });

  it('answers 429 {message} with Retry-After past the rate', async () => {
    // Prepare
    const token = await newToken('--rate', '1');

    // Act: ten in quick succession (one instance, warm after the first) span at most two
    // one-second windows, so at most two pass. Not all at once: locally as on Lambda,
    // ten at once would wait for ten cold starts, spread over more windows.
    const answers: Response[] = [];
    for (let i = 0; i < 10; i += 1) answers.push(await service.request('/v1/usage', { token }));

    // Assess
    const limited = answers.filter((res) => res.status === 429);
    assert.ok(limited.length >= 8, `${limited.length} of 10 answered 429`);
    const res = limited[0] as Response;
    assert.deepEqual(Object.keys((await res.json()) as object), ['message']);
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(res.headers.get('x-ratelimit-limit'), '1');
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    await sleep(1100);
    assert.equal((await service.request('/v1/usage', { token })).status, 200, 'allowed again in the next window');
  });

  it('puts x-ratelimit-limit, -remaining and -reset on successes and errors after auth, not on 401', async () => {
    // Prepare
    const token = await newToken('--limit', '0', '--rate', '50');
    const calls: Array<[string, Promise<Response>]> = [
      ['200 usage', service.request('/v1/usage', { token })],
      ['200 devices', service.request('/v1/devices', { token })],
      ['400', service.request('/v1/pdf', { token, json: { page: {} } })],
      ['402', service.request('/v1/pdf', { token, json: pdfBody })],
      ['404', service.request('/v1/templates/tpl_00000000000000000000000000', { token })],
      ['413', service.request('/v1/pdf', { token, json: bigBody })],
    ];

    // Act
    const answers = await Promise.all(calls.map(async ([label, pending]) => [label, await pending] as const));
    const anonymous = await service.request('/v1/usage', { token: null });

    // Assess
    for (const [label, res] of answers) {
      assert.equal(String(res.status), label.split(' ')[0], label);
      for (const name of RATE_HEADERS) assert.match(res.headers.get(name) ?? '', /^\d+$/, `${label} carries ${name}`);
      assert.equal(res.headers.get('x-ratelimit-limit'), '50');
    }
    assert.equal(anonymous.status, 401);
    for (const name of RATE_HEADERS) assert.equal(anonymous.headers.get(name), null);
  });

  it('spends nothing on requests answered 403, 413, 404 or 400, nor on the 429s of a burst', async () => {
    // Prepare
    const token = await newToken('--limit', '10');
    const unknownTemplate = '/v1/template/tpl_00000000000000000000000000';

    // Act
    await service.tokens('deactivate', token);
    const inactive = (await render(token)).status;
    await service.tokens('activate', token);
    const rejected = [
      inactive,
      (await render(token, '/v1/pdf', bigBody)).status,
      (await render(token, unknownTemplate, {})).status,
      (await render(token, '/v1/pdf', { page: { html: b64('x') }, extra: 1 })).status,
      (await render(token, '/v1/screenshot', { page: { url: 'not a url' } })).status,
    ];
    const afterRejected = await usageOf(token);
    await service.tokens('set', '--rate', '1', token);
    await sleep(1100);
    const burst = await Promise.all(Array.from({ length: 6 }, () => render(token)));
    await sleep(1100);
    const afterBurst = await usageOf(token);

    // Assess
    assert.deepEqual(rejected, [403, 413, 404, 400, 400]);
    assert.equal(afterRejected.quota.used, 0);
    const statuses = burst.map((r) => r.status);
    const rendered = statuses.filter((s) => s === 200).length;
    assert.ok(statuses.includes(429), `statuses ${statuses.join(',')}`);
    assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 429), []);
    assert.equal(afterBurst.quota.used, rendered);
  });

  it('checks in the contract order: 429 over 413, and 413, 404 and 400 over a spent quota (402)', async () => {
    // Prepare
    const hammered = await newToken('--rate', '1');
    const spent = await newToken('--limit', '1');
    const templateId = await createTemplate(spent);
    assert.equal((await render(spent)).status, 200);

    // Act
    const burst = await Promise.all(Array.from({ length: 6 }, () => render(hammered, '/v1/pdf', bigBody)));
    const tooBig = (await render(spent, '/v1/pdf', bigBody)).status;
    const unknownTemplate = (await render(spent, '/v1/template/tpl_00000000000000000000000000', { bogus: 1 })).status;
    const invalid = (await render(spent, '/v1/pdf', { page: { html: b64('x'), waitForMilliseconds: 9000 } })).status;
    const invalidForTemplate = (await render(spent, `/v1/template/${templateId}`, { pdf: { scale: 9 } })).status;
    const valid = (await render(spent)).status;

    // Assess
    const statuses = burst.map((r) => r.status);
    assert.ok(statuses.filter((s) => s === 429).length >= 4, `statuses ${statuses.join(',')}`);
    assert.deepEqual(statuses.filter((s) => s !== 429 && s !== 413), []);
    assert.deepEqual([tooBig, unknownTemplate, invalid, invalidForTemplate, valid], [413, 404, 400, 400, 402]);
  });

  it('gives the unit back when the render fails on the service side (504 past the time budget)', async () => {
    // Prepare: a page whose script never yields stops Chromium from ever producing the PDF.
    const token = await newToken('--limit', '1');
    const hang = { page: { html: b64('<p>busy</p><script>for(;;){}</script>'), waitUntil: 'domcontentloaded' } };

    // Act
    const failed = await render(token, '/v1/pdf', hang);
    const afterFailure = await usageOf(token);
    const next = await render(token);

    // Assess
    assert.equal(failed.status, 504);
    assert.equal(afterFailure.quota.used, 0);
    assert.equal(next.status, 200, 'the unit given back pays for the next render');
  });
});
