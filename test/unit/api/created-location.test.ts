/**
 * A 201 names what it created (RFC 9110 §15.3.2): `Location` is the path to
 * read it back, `/v1/jobs/{id}` for a queued render and `/v1/templates/{id}`
 * for a new template, relative to the API's base URL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildFuzzStack } from '../fuzz/fuzz-stack.js';

const html = Buffer.from('<h1>x</h1>').toString('base64');

describe('201 answers carry Location', () => {
  it('points a queued render at its job', async () => {
    // Prepare
    const { call } = buildFuzzStack();
    const body = JSON.stringify({ page: { html }, webhook: { url: 'https://example.com/hook' } });

    for (const endpoint of ['pdf/async', 'screenshot/async', 'template/async'] as const) {
      // Act
      const res = await call(endpoint, endpoint === 'template/async' ? JSON.stringify({ webhook: { url: 'https://example.com/hook' } }) : body);

      // Assess
      assert.equal(res.statusCode, 201, `${endpoint}: ${String(res.body)}`);
      const { id } = JSON.parse(String(res.body)) as { id: string };
      assert.equal(res.headers?.location, `/v1/jobs/${id}`, endpoint);
    }
  });

  it('points a created template at itself', async () => {
    // Prepare
    const { call } = buildFuzzStack();

    // Act
    const res = await call('templates', JSON.stringify({ name: 'Letter' }));

    // Assess
    assert.equal(res.statusCode, 201);
    const { id } = JSON.parse(String(res.body)) as { id: string };
    assert.equal(res.headers?.location, `/v1/templates/${id}`);
  });
});
