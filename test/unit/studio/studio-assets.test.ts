import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { studioResponse } from '../../../lib/studio/studio-assets.js';

const get = (rawPath: string, acceptEncoding?: string) =>
  studioResponse({ rawPath, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

describe('studioResponse', () => {
  it('serves the page at / with a fresh CSP nonce each time, the same one in the page, never cached', async () => {
    // Act
    const first = await get('/');
    const second = await get('/');

    // Assess
    assert.equal(first.statusCode, 200);
    const headers = first.headers as Record<string, string>;
    assert.equal(headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(headers['cache-control'], 'no-store');
    const nonce = /'nonce-([^']+)'/.exec(headers['content-security-policy'] ?? '')?.[1];
    assert.ok(nonce);
    assert.ok(String(first.body).includes(`<meta name="csp-nonce" content="${nonce}">`));
    assert.ok(!String(first.body).includes('{{CSP_NONCE}}'));
    assert.ok(!String(second.body).includes(nonce), 'another answer, another nonce');
  });

  it('serves the script, styles and pdf.js worker under /studio/, gzipped only for clients that take it', async () => {
    // Act
    const plain = await get('/studio/studio.js');
    const gzipped = await get('/studio/studio.js', 'gzip, br');
    const css = await get('/studio/studio.css');
    const worker = await get('/studio/pdf.worker.mjs', 'gzip');

    // Assess
    assert.equal((plain.headers as Record<string, string>)['content-encoding'], undefined);
    assert.equal((gzipped.headers as Record<string, string>)['content-encoding'], 'gzip');
    assert.equal(gzipped.isBase64Encoded, true);
    assert.equal(gunzipSync(Buffer.from(String(gzipped.body), 'base64')).toString('utf8'), plain.body);
    assert.equal((css.headers as Record<string, string>)['content-type'], 'text/css; charset=utf-8');
    assert.equal((worker.headers as Record<string, string>)['content-type'], 'text/javascript; charset=utf-8');
    // A Lambda answer carries at most 6 MB.
    for (const answer of [gzipped, worker]) assert.ok(String(answer.body).length < 6_000_000);
  });

  it('answers 404 for any other file, including paths that climb out', async () => {
    for (const path of ['/studio/nope.js', '/studio/../package.json', '/studio/', '/index.html', '/studio/build.ts']) {
      assert.equal((await get(path)).statusCode, 404, path);
    }
  });
});
