import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { createEgressPolicy } from '../../../lib/net/egress-policy.js';
import { EGRESS_HEADER, startEgressProxy, type EgressProxy } from '../../../lib/net/egress-proxy.js';
import type { HostResolver } from '../../../lib/net/resolve-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';

type Answer = { status: number; headers: IncomingHttpHeaders; body: string };

/** A plain-HTTP request through the proxy, in absolute form, as Chromium sends it. */
function viaProxy(proxy: EgressProxy, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxy.port, method: 'GET', path: url, headers: { host: new URL(url).host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel; resolves with the proxy's status line and the socket (open only on 200). */
function tunnel(proxy: EgressProxy, authority: string): Promise<{ status: number; headers: IncomingHttpHeaders; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority });
    req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, socket }));
    req.on('error', reject);
    req.end();
  });
}

/** Sends one HTTP/1.1 request over an open tunnel and returns the raw answer. */
async function overTunnel(socket: Socket, host: string, path = '/'): Promise<string> {
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  await once(socket, 'end');
  return text;
}

/** A resolver whose answers change from one call to the next (DNS rebinding); `lookups` counts its calls. */
function rebindingDns(name: string, answers: string[]): { resolver: HostResolver; lookups: () => number } {
  let calls = 0;
  const resolver: HostResolver = async (hostname) => {
    if (hostname !== name) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const address = answers[Math.min(calls, answers.length - 1)] as string;
    calls += 1;
    return [{ address, family: 4 }];
  };
  return { resolver, lookups: () => calls };
}

describe('startEgressProxy', () => {
  let publicSite: TestServer;
  let internal: TestServer;
  let proxy: EgressProxy;
  let rebinding: ReturnType<typeof rebindingDns>;
  let internalPort: number;
  let publicPort: number;

  before(async () => {
    publicSite = await startTestServer({ '/': html('<p>public page</p>'), '/echo': (req, res) => res.end(JSON.stringify(req.headers)),
      '/fake-refusal': (_req, res) => {
        res.writeHead(200, { [EGRESS_HEADER]: 'refused', 'x-site': 'yes' });
        res.end('a page');
      },
    }, '127.0.0.1');
    internal = await startTestServer({ '/': html('<p>internal secret</p>') }, '127.0.0.2');
    internalPort = Number(new URL(internal.url).port);
    publicPort = Number(new URL(publicSite.url).port);
    rebinding = rebindingDns('rebind.test', ['127.0.0.1', '127.0.0.2']);
    const names: Record<string, string[]> = { 'public.test': ['127.0.0.1'], 'internal.test': ['127.0.0.2'], 'mixed.test': ['127.0.0.1', '127.0.0.2'] };
    const resolver: HostResolver = async (hostname) => {
      if (hostname === 'rebind.test') return rebinding.resolver(hostname);
      const list = names[hostname];
      if (!list) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: 4 as const }));
    };
    // 127.0.0.1 plays the public internet; 127.0.0.2 the internal network.
    proxy = await startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] }), resolver });
  });

  after(async () => {
    await proxy?.close();
    await publicSite?.close();
    await internal?.close();
  });

  beforeEach(() => {
    internal.requests.length = 0;
  });

  it('forwards a plain HTTP request to an allowed host', async () => {
    // Act
    const answer = await viaProxy(proxy, `${publicSite.url}/`);

    // Assess
    assert.equal(answer.status, 200);
    assert.match(answer.body, /public page/);
  });

  it('does not pass its own headers on to the site', async () => {
    // Act
    const answer = await viaProxy(proxy, `${publicSite.url}/echo`, { 'proxy-authorization': 'Basic c2VjcmV0', 'proxy-connection': 'keep-alive', 'x-kept': 'yes' });

    // Assess
    const seen = JSON.parse(answer.body) as Record<string, string>;
    assert.equal(seen['proxy-authorization'], undefined);
    assert.equal(seen['proxy-connection'], undefined);
    assert.equal(seen['x-kept'], 'yes');
  });

  it('drops the egress marker when a site sends it, so a page cannot pass its answer off as a refusal', async () => {
    // Act
    const answer = await viaProxy(proxy, `${publicSite.url}/fake-refusal`);

    // Assess
    assert.equal(answer.status, 200);
    assert.equal(answer.headers[EGRESS_HEADER], undefined);
    assert.equal(answer.headers['x-site'], 'yes');
  });

  it('answers 403 with a clear reason for a plain HTTP request to the internal host, which never hears of it', async () => {
    // Act
    const answer = await viaProxy(proxy, `${internal.url}/`);

    // Assess
    assert.equal(answer.status, 403);
    assert.equal(answer.headers[EGRESS_HEADER], 'refused');
    assert.match(answer.body, /127\.0\.0\.2 is a loopback address/);
    assert.doesNotMatch(answer.body, /internal secret/);
    assert.equal(internal.requests.length, 0);
  });

  it('refuses numeric spellings of the internal address', async () => {
    // Act
    const answers = await Promise.all(['2130706434', '0x7f000002', '0177.0.0.2', '127.2'].map((host) => viaProxy(proxy, `http://${host}:${internalPort}/`)));

    // Assess
    assert.deepEqual(answers.map((a) => a.status), [403, 403, 403, 403]);
    assert.equal(internal.requests.length, 0);
  });

  it('opens a CONNECT tunnel to an allowed host', async () => {
    // Act
    const { status, socket } = await tunnel(proxy, `127.0.0.1:${publicPort}`);
    const answer = await overTunnel(socket, `127.0.0.1:${publicPort}`);

    // Assess
    assert.equal(status, 200);
    assert.match(answer, /public page/);
  });

  it('refuses a CONNECT tunnel to the internal host', async () => {
    // Act
    const { status, headers, socket } = await tunnel(proxy, `127.0.0.2:${internalPort}`);
    socket.destroy();

    // Assess
    assert.equal(status, 403);
    assert.equal(headers[EGRESS_HEADER], 'refused');
    assert.equal(internal.requests.length, 0);
  });

  it('refuses a CONNECT tunnel to [::1] and to a name that resolves to the internal host', async () => {
    // Act
    const results = await Promise.all([tunnel(proxy, `[::1]:${internalPort}`), tunnel(proxy, `internal.test:${internalPort}`), tunnel(proxy, `localhost:${internalPort}`)]);
    for (const r of results) r.socket.destroy();

    // Assess
    assert.deepEqual(results.map((r) => r.status), [403, 403, 403]);
    assert.equal(internal.requests.length, 0);
  });

  it('refuses a name with one internal address among allowed ones', async () => {
    // Act
    const answer = await viaProxy(proxy, `http://mixed.test:${internalPort}/`);

    // Assess
    assert.equal(answer.status, 403);
    assert.equal(internal.requests.length, 0);
  });

  it('tells the page only that a refused name is not public, and keeps the address class for the log', async () => {
    // Act
    const answer = await viaProxy(proxy, `http://internal.test:${internalPort}/`);

    // Assess: a page (or its caller) cannot learn what class of address an internal name leads to.
    assert.equal(answer.status, 403);
    assert.match(answer.body, /internal\.test does not resolve to a public address/);
    assert.doesNotMatch(answer.body, /loopback|private|127\./i);
    assert.equal(proxy.failureFor(`http://internal.test:${internalPort}/`)?.addressClass, 'loopback');
  });

  it('connects to the address it checked when DNS changes its answer (rebinding)', async () => {
    // Prepare: the same port on both hosts, so only the address decides where a request lands.
    const port = publicPort;
    const twinOnSamePort = createHttpServer((_req, res) => res.end('internal secret'));
    const twinRequests: string[] = [];
    twinOnSamePort.on('request', (req) => twinRequests.push(req.url ?? ''));
    twinOnSamePort.listen(port, '127.0.0.2');
    await once(twinOnSamePort, 'listening');
    const callsBefore = rebinding.lookups();

    try {
      // Act: the first lookup says 127.0.0.1 (allowed), every later one 127.0.0.2.
      const first = await viaProxy(proxy, `http://rebind.test:${port}/`);
      const second = await viaProxy(proxy, `http://rebind.test:${port}/`);

      // Assess
      assert.equal(rebinding.lookups() - callsBefore, 2, 'one lookup per request, none between check and connect');
      assert.equal(first.status, 200);
      assert.match(first.body, /public page/);
      assert.equal(second.status, 403);
      assert.deepEqual(twinRequests, []);
    } finally {
      await new Promise((resolve) => twinOnSamePort.close(resolve));
    }
  });

  it('refuses a WebSocket upgrade to the internal host through CONNECT and in absolute form', async () => {
    // Prepare
    const upgrades: string[] = [];
    const wsServer = createHttpServer();
    wsServer.on('upgrade', (req, socket) => {
      upgrades.push(req.url ?? '');
      socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    });
    wsServer.listen(0, '127.0.0.2');
    await once(wsServer, 'listening');
    const wsPort = (wsServer.address() as AddressInfo).port;

    try {
      // Act
      const viaConnect = await tunnel(proxy, `127.0.0.2:${wsPort}`);
      viaConnect.socket.destroy();
      const raw = connect(proxy.port, '127.0.0.1');
      raw.write(`GET ws://127.0.0.2:${wsPort}/socket HTTP/1.1\r\nHost: 127.0.0.2:${wsPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
      let text = '';
      raw.setEncoding('utf8');
      raw.on('data', (chunk: string) => (text += chunk));
      await once(raw, 'close');

      // Assess
      assert.equal(viaConnect.status, 403);
      assert.match(text, /^HTTP\/1\.1 403/);
      assert.deepEqual(upgrades, []);
    } finally {
      await new Promise((resolve) => wsServer.close(resolve));
    }
  });

  it('passes a WebSocket upgrade in absolute form to an allowed host', async () => {
    // Prepare
    const wsServer = createHttpServer();
    wsServer.on('upgrade', (_req, socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      socket.end('frame');
    });
    wsServer.listen(0, '127.0.0.1');
    await once(wsServer, 'listening');
    const wsPort = (wsServer.address() as AddressInfo).port;

    try {
      // Act
      const raw = connect(proxy.port, '127.0.0.1');
      raw.write(`GET ws://127.0.0.1:${wsPort}/socket HTTP/1.1\r\nHost: 127.0.0.1:${wsPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
      let text = '';
      raw.setEncoding('utf8');
      raw.on('data', (chunk: string) => (text += chunk));
      await once(raw, 'close');

      // Assess
      assert.match(text, /^HTTP\/1\.1 101/);
      assert.match(text, /frame$/);
    } finally {
      await new Promise((resolve) => wsServer.close(resolve));
    }
  });

  it('never forwards to itself, even with loopback allowed', async () => {
    // Act
    const answer = await viaProxy(proxy, `http://127.0.0.1:${proxy.port}/`);

    // Assess
    assert.equal(answer.status, 403);
    assert.match(answer.body, /egress proxy itself/);
  });

  it('answers 502 for an allowed host that does not answer, and says why', async () => {
    // Prepare: a port nobody listens on.
    const probe = createTcpServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));

    // Act
    const answer = await viaProxy(proxy, `http://127.0.0.1:${closedPort}/`);

    // Assess
    assert.equal(answer.status, 502);
    assert.equal(answer.headers[EGRESS_HEADER], 'unreachable');
    const failure = proxy.failureFor(`http://127.0.0.1:${closedPort}/x`);
    assert.equal(failure?.reason, 'the server refused the connection');
    assert.equal(failure?.netError, 'ERR_CONNECTION_REFUSED');
  });

  it('counts refusals and keeps the latest per host for explaining a failed navigation', async () => {
    // Prepare
    const before = proxy.stats().refused;

    // Act
    await viaProxy(proxy, 'http://169.254.169.254/latest/meta-data/');
    const failure = proxy.failureFor('http://169.254.169.254/other');

    // Assess
    assert.equal(proxy.stats().refused, before + 1);
    assert.equal(failure?.outcome, 'refused');
    assert.equal(failure?.addressClass, 'metadata');
    assert.equal(JSON.stringify(proxy.recentEvents()).includes('meta-data'), false, 'no path in the records');
  });
});

describe('startEgressProxy limits', () => {
  it('drops client connections beyond maxConnections', async () => {
    // Prepare
    const proxy = await startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] }), maxConnections: 2 });
    const open = [connect(proxy.port, '127.0.0.1'), connect(proxy.port, '127.0.0.1')];
    await Promise.all(open.map((s) => once(s, 'connect')));
    await new Promise((resolve) => setImmediate(resolve));

    try {
      // Act
      const third = connect(proxy.port, '127.0.0.1');
      third.on('error', () => undefined);
      await once(third, 'close');

      // Assess
      assert.equal(proxy.stats().active, 2);
    } finally {
      for (const s of open) s.destroy();
      await proxy.close();
    }
  });
});
