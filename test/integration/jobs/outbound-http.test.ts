import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { sendOutbound } from '../../../lib/delivery/outbound-http.js';
import { createEgressPolicy, useEgressPolicy } from '../../../lib/net/egress-policy.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

describe('sendOutbound', () => {
  let server: TestServer;
  const hanging: ServerResponse[] = [];

  before(async () => {
    // The test receivers live on loopback, which the network rules allow only when named.
    useEgressPolicy(createEgressPolicy({ allowPrivateHosts: ['127.0.0.1', 'localhost'] }));
    server = await startTestServer({
      '/ok': (_req, res) => res.writeHead(204).end(),
      '/fail': (_req, res) => res.writeHead(500).end('boom'),
      '/redirect': (_req, res) => res.writeHead(302, { location: '/ok' }).end(),
      '/silent': (_req, res) => {
        hanging.push(res);
      },
      '/endless': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
    });
  });
  after(async () => {
    for (const res of hanging) res.destroy();
    await server.close();
  });

  it('sends the method, headers and body, and reports a 2xx as delivered', async () => {
    // Act
    const result = await sendOutbound({
      url: `${server.url}/ok`,
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf', 'X-Trace': 'abc' },
      body: Buffer.from('%PDF'),
    });

    // Assess
    assert.equal(result.ok, true);
    assert.equal(result.statusCode, 204);
    const request = server.requests.at(-1)!;
    assert.equal(request.method, 'PUT');
    assert.equal(request.headers['content-type'], 'application/pdf');
    assert.equal(request.headers['x-trace'], 'abc');
    assert.equal(request.headers['content-length'], '4');
    assert.equal(request.body, '%PDF');
  });

  it('sends the last of two headers that differ only in case, so a caller header cannot replace ours', async () => {
    await sendOutbound({
      url: `${server.url}/ok`,
      method: 'POST',
      headers: { 'Webhook-Signature': 'forged', 'webhook-signature': 'v1,real', 'Content-Length': '999' },
      body: '{}',
    });
    const request = server.requests.at(-1)!;
    assert.equal(request.headers['webhook-signature'], 'v1,real');
    assert.equal(request.headers['content-length'], '2');
  });

  it('reports a non-2xx answer as failed with its status', async () => {
    const result = await sendOutbound({ url: `${server.url}/fail`, method: 'POST', headers: {}, body: '{}' });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 500);
    assert.equal(result.error, 'answered 500');
  });

  it('does not follow a redirect: a 3xx is a failure and its target is never called', async () => {
    // Prepare
    const before = server.requests.length;

    // Act
    const result = await sendOutbound({ url: `${server.url}/redirect`, method: 'POST', headers: {}, body: '{}' });

    // Assess
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 302);
    assert.match(result.error ?? '', /redirects are not followed/);
    assert.deepEqual(server.requests.slice(before).map((r) => r.url), ['/redirect']);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const result = await sendOutbound({ url: `${server.url}/silent`, method: 'POST', headers: {}, body: '{}', timeoutMs: 300 });
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, undefined);
    assert.match(result.error ?? '', /no answer within 0\.3 s/);
  });

  it('reads only the start of an endless answer and returns', async () => {
    const result = await sendOutbound({ url: `${server.url}/endless`, method: 'POST', headers: {}, body: '{}' });
    assert.equal(result.ok, true);
    assert.equal(result.statusCode, 200);
  });

  it('reports a refused connection without naming the URL', async () => {
    // Prepare: a port that was free a moment ago.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    // Act
    const result = await sendOutbound({ url: `http://127.0.0.1:${port}/hook?token=secret`, method: 'POST', headers: {}, body: '{}' });

    // Assess
    assert.equal(result.ok, false);
    assert.equal(result.error, 'connection refused');
  });
});

describe('sendOutbound under the egress policy', () => {
  it('refuses a host outside ALLOW_PRIVATE_HOSTS at connect time, before any byte is sent', async () => {
    // Prepare: an "internal" receiver on a loopback address the policy does not list.
    useEgressPolicy(createEgressPolicy({ allowPrivateHosts: ['127.0.0.1', 'localhost'] }));
    const internal = await startTestServer({ '/hook': (_req, res) => res.writeHead(204).end() }, '127.0.0.2');
    try {
      // Act
      const result = await sendOutbound({ url: `${internal.url}/hook`, method: 'POST', headers: {}, body: '{}' });

      // Assess
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /refused by the network rules/);
      assert.equal(internal.requests.length, 0);
    } finally {
      await internal.close();
    }
  });
});
