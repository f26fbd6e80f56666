import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';

describe('the HTTP API (local service)', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await service?.stop();
  });

  const pdfBody = { page: { html: b64('<p>hello</p>') } };

  describe('authentication', () => {
    for (const [label, token] of [
      ['no Authorization header', null],
      ['an unknown token', 'dr_this-token-does-not-exist-000000000000'],
      ['a malformed header', 'x'],
    ] as const) {
      it(`answers 401 {message} for ${label}`, async () => {
        const res = await service.request('/v1/pdf', { json: pdfBody, token });
        assert.equal(res.status, 401);
        assert.match(res.headers.get('content-type') ?? '', /application\/json/);
        const body = (await res.json()) as Record<string, unknown>;
        assert.deepEqual(Object.keys(body), ['message']);
        assert.equal(typeof body.message, 'string');
      });
    }

    it('checks the token before validating the body (401 before 400)', async () => {
      const res = await service.request('/v1/pdf', { json: { nonsense: true }, token: null });
      assert.equal(res.status, 401);
    });

    it('protects GET /v1/devices too', async () => {
      const res = await service.request('/v1/devices', { token: null });
      assert.equal(res.status, 401);
    });
  });

  describe('errors in the contract shape', () => {
    it('answers 404 {message} for an unknown route', async () => {
      const res = await service.request('/v1/nope', { json: {} });
      assert.equal(res.status, 404);
      const body = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['message']);
    });

    it('answers 400 api.validation for malformed JSON', async () => {
      const res = await service.request('/v1/pdf', {
        method: 'POST',
        body: '{"page": {',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { message: string; code: string; fields: Record<string, string> };
      assert.equal(body.code, 'api.validation');
      assert.equal(typeof body.message, 'string');
      assert.ok(body.fields.body);
    });

    it('rejects unknown fields by name', async () => {
      const res = await service.request('/v1/screenshot', {
        json: { page: { html: b64('<p>x</p>') }, screenshot: { fullpage: true } },
      });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { fields: Record<string, string> };
      assert.equal(body.fields['screenshot.fullpage'], 'Unknown field');
    });

    it('answers 413 {message} for a body over 5 MiB, after auth', async () => {
      const big = { page: { html: 'A'.repeat(5 * 1024 * 1024 + 10) } };
      const res = await service.request('/v1/pdf', { json: big });
      assert.equal(res.status, 413);
      const body = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['message']);
      const anonymous = await service.request('/v1/pdf', { json: big, token: null });
      assert.equal(anonymous.status, 401);
    });

    it('answers 400 render.navigation naming page.url when the page cannot be loaded', async () => {
      const res = await service.request('/v1/pdf', { json: { page: { url: 'http://127.0.0.1:1/' } } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { code: string; fields: Record<string, string> };
      assert.equal(body.code, 'render.navigation');
      assert.ok(body.fields['page.url']);
    });
  });

  describe('GET /v1/devices', () => {
    it('lists every preset with its viewport, the desktop ones included', async () => {
      const res = await service.request('/v1/devices');
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: Array<{ name: string; viewport: Record<string, unknown> }> };
      const names = body.data.map((d) => d.name);
      for (const name of ['Macbook Pro 16', 'iMac 27 5K', 'iPhone 15 Pro', 'iPhone 15 Pro landscape']) {
        assert.ok(names.includes(name), `${name} is listed`);
      }
      const mbp = body.data.find((d) => d.name === 'Macbook Pro 16');
      assert.deepEqual(mbp?.viewport, {
        width: 1536, height: 960, deviceScaleFactor: 2, isMobile: false, hasTouch: false, isLandscape: true,
      });
    });
  });
});
