/**
 * The headers the OpenAPI document declares on each answer are the ones the
 * service sends (decisions.md "Rate-limit headers", docs/api.md "Errors"): the
 * x-ratelimit-* headers on every answer given after authentication, errors
 * included; Retry-After on 429 and 503; WWW-Authenticate on 401.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';

type Response = { headers?: Record<string, unknown> };
type Operation = { security?: unknown[]; responses: Record<string, Response> };

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function authenticatedOperations(): [string, Operation][] {
  const doc = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

describe('OpenAPI document: headers of the answers', () => {
  it('declares x-ratelimit-* on every answer after authentication, errors included, and not on 401 or 403', () => {
    for (const [name, op] of authenticatedOperations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const declared = Object.keys(response.headers ?? {});
        for (const header of RATE_HEADERS) {
          if (status === '401' || status === '403') assert.ok(!declared.includes(header), `${name} ${status} does not declare ${header}`);
          else assert.ok(declared.includes(header), `${name} ${status} declares ${header}`);
        }
      }
    }
  });

  it('declares Retry-After on 429 and on the 503 every authenticated route may answer, WWW-Authenticate on 401', () => {
    for (const [name, op] of authenticatedOperations()) {
      assert.ok(op.responses['503'], `${name} declares 503`);
      for (const status of ['429', '503']) {
        assert.ok(Object.keys(op.responses[status]?.headers ?? {}).includes('retry-after'), `${name} ${status} declares retry-after`);
      }
      assert.ok(Object.keys(op.responses['401']?.headers ?? {}).includes('www-authenticate'), `${name} 401 declares www-authenticate`);
    }
  });

  it('declares Location on every 201', () => {
    for (const [name, op] of authenticatedOperations()) {
      if (op.responses['201']) assert.ok(Object.keys(op.responses['201'].headers ?? {}).includes('location'), `${name} 201 declares location`);
    }
  });

  it('declares X-Missing-Glyphs on every file answered as it is (200 and 303), and missingGlyphs in the sync answer, the job and the webhook', () => {
    // Prepare
    const doc = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

    // Act
    const raw = ['/v1/pdf', '/v1/screenshot', '/v1/template/{id}', '/v1/pdf/merge'].map((path) => doc.paths[path]!.post!);

    // Assess
    for (const op of raw) for (const status of ['200', '303']) assert.ok(Object.keys(op.responses[status]?.headers ?? {}).includes('x-missing-glyphs'), status);
    for (const op of raw) assert.ok(op.responses['422'], 'a refusal with "fail" is a 422');
    for (const schema of ['SyncResult', 'Job', 'WebhookEvent']) assert.ok(doc.components.schemas[schema]?.properties?.missingGlyphs, schema);
  });
});
