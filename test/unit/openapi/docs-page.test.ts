import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { docsPage, docsScript } from '../../../lib/openapi/docs-page.js';
import { openApiResponse } from '../../../lib/openapi/openapi-endpoint.js';

describe('docsScript', () => {
  it('sends the Scalar bundle gzipped (base64 body) to a client that takes gzip, plain to one that does not', async () => {
    // Act
    const gzipped = await docsScript({ headers: { 'accept-encoding': 'gzip, deflate, br' } });
    const plain = await docsScript({ headers: {} });

    // Assess
    assert.equal(gzipped.headers?.['content-encoding'], 'gzip');
    assert.equal(gzipped.isBase64Encoded, true);
    assert.equal(gunzipSync(Buffer.from(String(gzipped.body), 'base64')).toString('utf8'), plain.body);
    assert.equal(plain.headers?.['content-encoding'], undefined);
    assert.match(String(plain.body), /createApiReference/);
    // Inside a Lambda answer (6 MB) either way
    assert.ok(String(gzipped.body).length < 6 * 1024 * 1024);
    assert.ok(JSON.stringify(plain.body).length < 6 * 1024 * 1024);
  });
});

describe('docsPage', () => {
  it('loads the script and the document from this origin, by relative URLs, under a CSP that allows nothing else', () => {
    // Act
    const page = docsPage();

    // Assess
    const csp = page.headers?.['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /connect-src 'self';/);
    assert.match(String(page.body), /<script src="docs\/api-reference\.js"><\/script>/);
    assert.match(String(page.body), /data-url="v1\/openapi\.json"/);
    assert.doesNotMatch(String(page.body), /https?:\/\//);
  });
});

describe('openApiResponse', () => {
  it('answers the same cached document every time', () => {
    // Act
    const first = openApiResponse();
    const second = openApiResponse();

    // Assess
    assert.equal(first.statusCode, 200);
    assert.equal(first.body, second.body);
    assert.equal((JSON.parse(String(first.body)) as { openapi: string }).openapi, '3.1.0');
  });
});
