import { after, afterEach, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { MAX_RESPONSE_BYTES, OUTBOUND_TIMEOUT_MS, sendOutbound } from '../../../lib/delivery/outbound-http.js';
import { createEgressPolicy, useEgressPolicy } from '../../../lib/net/index.js';
import { buildFuzzStack } from '../../unit/fuzz/fuzz-stack.js';

/**
 * Webhook receivers and upload targets that misbehave, as real local servers:
 * every call to them must settle, read a bounded number of bytes, make one
 * attempt (no redirect is followed), and leave other calls unaffected.
 */

type Hostile = { url: string; server: Server; requests: string[]; bytesSent: () => number; close: () => Promise<void> };

/** An HTTP server whose every route misbehaves in its own way; counts what it sent. */
async function hostileServer(): Promise<Hostile> {
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  const timers: NodeJS.Timeout[] = [];
  let bytesSent = 0;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    req.resume();
    const path = (req.url ?? '/').split('?')[0];
    switch (path) {
      case '/ok':
        res.writeHead(204).end();
        return;
      case '/never':
        held.push(res);
        return;
      case '/after-30s':
        timers.push(setTimeout(() => res.writeHead(204).end(), 30_000));
        held.push(res);
        return;
      case '/endless': {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) bytesSent += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
        return;
      }
      case '/trickle': {
        // Headers at once, then one byte now and then, forever: never ends, never grows large.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('.')), 20);
        timers.push(drip);
        return;
      }
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    bytesSent: () => bytesSent,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// A guard that stops working shows as a call that never settles: the timeout turns that into a failure.
describe('outbound calls to hostile receivers', { timeout: 60_000 }, () => {
  let hostile: Hostile;

  before(async () => {
    // The receivers live on loopback, which the network rules allow only when named.
    useEgressPolicy(createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] }));
    hostile = await hostileServer();
  });
  after(async () => {
    await hostile.close();
  });
  afterEach(() => mock.timers.reset());

  const call = (path: string, options: { timeoutMs?: number; body?: Buffer } = {}) =>
    sendOutbound({ url: `${hostile.url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: options.body ?? '{}', timeoutMs: options.timeoutMs });

  it('settles a call to a receiver that never answers, with a reason and no status', async () => {
    // Act
    const result = await call('/never', { timeoutMs: 300 });

    // Assess
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, undefined);
    assert.match(result.error ?? '', /no answer within 0\.3 s/);
  });

  it('never waits longer than the 10 s limit, even for a receiver that would answer after 30 s and a caller asking for a minute', async () => {
    // Prepare: Node's timers stand still until the test moves them, so nothing here waits for real.
    mock.timers.enable({ apis: ['setTimeout'] });
    const received = hostile.requests.length;
    const pending = call('/after-30s', { timeoutMs: 60_000 });
    while (hostile.requests.length === received) await new Promise((resolve) => setImmediate(resolve));

    // Act: the receiver got the request; move the clock to the limit.
    mock.timers.tick(OUTBOUND_TIMEOUT_MS);
    const result = await pending;

    // Assess
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /no answer within 10 s/);
  });

  it('reads a bounded amount of an endless body and drops the connection', async () => {
    // Act
    const result = await call('/endless');
    // The server notices the dropped connection on its next write.
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Assess: what the server managed to send is what it fits into the socket buffers, not "everything".
    assert.equal(result.statusCode, 200);
    const sent = hostile.bytesSent();
    assert.ok(sent < 32 * 1024 * 1024, `the server sent ${sent} bytes before the connection was dropped`);
    assert.ok(MAX_RESPONSE_BYTES <= 64 * 1024);
  });

  it('settles a call whose answer trickles forever, within its timeout', async () => {
    // Act
    const result = await call('/trickle', { timeoutMs: 400 });

    // Assess
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /no answer within 0\.4 s/);
  });

  it('makes exactly one request to a receiver that redirects in a loop', async () => {
    // Prepare
    const before = hostile.requests.length;

    // Act
    const result = await call('/loop');

    // Assess
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 302);
    assert.match(result.error ?? '', /redirects are not followed/);
    assert.deepEqual(hostile.requests.slice(before), ['/loop']);
  });

  it('settles an upload to a receiver that accepts the connection but never reads the body', async () => {
    // Prepare: a TCP server that takes connections and does nothing else; the body is larger than socket buffers.
    const sockets: Socket[] = [];
    const mute = createTcpServer((socket) => {
      sockets.push(socket);
      socket.pause();
    });
    mute.listen(0, '127.0.0.1');
    await once(mute, 'listening');
    const { port } = mute.address() as AddressInfo;
    try {
      // Act
      const result = await sendOutbound({ url: `http://127.0.0.1:${port}/upload`, method: 'PUT', headers: {}, body: Buffer.alloc(32 * 1024 * 1024), timeoutMs: 500 });

      // Assess
      assert.equal(result.ok, false);
      assert.match(result.error ?? '', /no answer within 0\.5 s/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    }
  });

  it('answers a sync render whose upload target never answers: the file is kept, signedUrlStatus FAILED', async () => {
    // Prepare: the real HTTP stack of /v1/pdf/sync with a renderer that needs no browser.
    const { call: callApi } = buildFuzzStack();
    const body = JSON.stringify({ page: { html: Buffer.from('<p>x</p>').toString('base64') }, storage: { preSignedUrl: `${hostile.url}/never?X-Amz-Signature=1` } });

    // Act
    const result = await callApi('pdf/sync', body);

    // Assess
    assert.equal(result.statusCode, 200, String(result.body));
    const answer = JSON.parse(String(result.body)) as { status: string; signedUrlStatus: string; fileUrl: string };
    assert.equal(answer.status, 'COMPLETED');
    assert.equal(answer.signedUrlStatus, 'FAILED');
    assert.ok(answer.fileUrl);
  });

  it('answers other calls while twenty calls hang on hostile receivers', async () => {
    // Prepare: twenty calls that will only settle at their timeout.
    const hanging = Array.from({ length: 20 }, (_, i) => call(i % 2 ? '/never' : '/trickle', { timeoutMs: 2_000 }));
    let hangingSettled = 0;
    for (const pending of hanging) void pending.then(() => (hangingSettled += 1));

    // Act
    const normal = await call('/ok');

    // Assess: the normal call went through while every hostile one was still pending.
    assert.equal(normal.ok, true);
    assert.equal(hangingSettled, 0);
    const results = await Promise.all(hanging);
    assert.ok(results.every((r) => !r.ok));
  });
});
