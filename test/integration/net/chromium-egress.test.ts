import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { createEgressPolicy } from '../../../lib/net/egress-policy.js';
import { EGRESS_HEADER, startEgressProxy, type EgressProxy } from '../../../lib/net/egress-proxy.js';
import { chromiumArgs } from '../../../lib/render/browser/launch-args.js';
import { tempDir } from '../../helpers/temp-dir.js';

type Seen = { paths: string[]; upgrades: string[] };

/** An HTTP server that records every request and every WebSocket upgrade it is asked for. */
async function recordingServer(host: string, routes: Record<string, (url: string) => { type: string; body: string } | { status: number; location: string }> = {}) {
  const seen: Seen = { paths: [], upgrades: [] };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.paths.push(path);
    const route = routes[path.split('?')[0] ?? '/'];
    const answer = route?.(path);
    if (answer && 'location' in answer) {
      res.writeHead(answer.status, { location: answer.location });
      res.end();
    } else if (answer) {
      res.writeHead(200, { 'content-type': answer.type });
      res.end(answer.body);
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('internal secret');
    }
  });
  server.on('upgrade', (req, socket) => {
    seen.upgrades.push(req.url ?? '');
    socket.destroy();
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('Chromium behind the egress proxy', () => {
  let proxy: EgressProxy;
  let browser: Browser;
  let publicSite: Awaited<ReturnType<typeof recordingServer>>;
  let internal: Awaited<ReturnType<typeof recordingServer>>;

  before(async () => {
    internal = await recordingServer('127.0.0.2');
    const target = internal.url;
    const attackPage = `<!doctype html><html><head>
      <link rel="stylesheet" href="${target}/css">
      <style>@import url("${target}/import"); @font-face { font-family: f; src: url("${target}/font"); } body { font-family: f; background: url("${target}/bg"); }</style>
      </head><body><p>attack</p>
      <img src="${target}/img"><img src="http://2130706434:${internal.port}/decimal"><img src="http://0x7f.2:${internal.port}/hex">
      <iframe src="${target}/frame"></iframe>
      <img src="/public-img">
      <script>
        fetch('${target}/fetch').catch(() => {});
        const x = new XMLHttpRequest(); x.open('GET', '${target}/xhr'); x.send();
        navigator.sendBeacon('${target}/beacon', 'x');
        try { new WebSocket('ws://127.0.0.2:${internal.port}/ws'); } catch {}
        try { new EventSource('${target}/sse'); } catch {}
        new Worker('/worker.js');
        fetch('/redirect').catch(() => {});
        setTimeout(() => { document.title = 'done'; }, 1500);
      </script></body></html>`;
    const worker = `fetch('${target}/worker-fetch').catch(() => {}); try { new WebSocket('ws://127.0.0.2:${internal.port}/worker-ws'); } catch {}`;
    publicSite = await recordingServer('127.0.0.1', {
      '/attack': () => ({ type: 'text/html', body: attackPage }),
      '/worker.js': () => ({ type: 'text/javascript', body: worker }),
      '/public-img': () => ({ type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' }),
      '/redirect': () => ({ status: 302, location: `${target}/redirected` }),
      '/refresh': () => ({ type: 'text/html', body: `<meta http-equiv="refresh" content="0;url=${target}/refreshed"><p>refreshing</p>` }),
    });
    proxy = await startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] }) });
    browser = await puppeteer.launch({
    // Chromium's own temporary files go in a folder removed at exit (a browser closed at once can leave one behind).
    env: { ...process.env, TMPDIR: tempDir('docrender-chromium-test-') },
      executablePath: await chromium.executablePath(),
      headless: 'shell',
      args: [...chromiumArgs(chromium.args, 'multi-process'), ...proxy.chromiumArgs],
      pipe: true,
    });
  });

  after(async () => {
    await browser?.close();
    await proxy?.close();
    await publicSite?.close();
    await internal?.close();
  });

  beforeEach(() => {
    internal.seen.paths.length = 0;
    internal.seen.upgrades.length = 0;
  });

  it('lets a page reach an allowed host, and nothing of it reaches the internal host', async () => {
    // Prepare
    const page = await browser.newPage();

    try {
      // Act
      await page.goto(`${publicSite.url}/attack`, { waitUntil: 'load' });
      await page.waitForFunction(() => document.title === 'done', { timeout: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 500));

      // Assess: every kind of request went through the proxy and was refused there.
      assert.deepEqual(internal.seen.paths, []);
      assert.deepEqual(internal.seen.upgrades, []);
      assert.ok(publicSite.seen.paths.includes('/public-img'), 'allowed subresources still load through the proxy');
      assert.ok(publicSite.seen.paths.includes('/worker.js'));
      assert.ok(proxy.stats().refused >= 10, `refusals: ${proxy.stats().refused}`);
    } finally {
      await page.close();
    }
  });

  it('answers a navigation to the internal host with the proxy refusal', async () => {
    // Prepare
    const page = await browser.newPage();

    try {
      // Act
      const response = await page.goto(`${internal.url}/`, { waitUntil: 'load' });

      // Assess
      assert.equal(response?.status(), 403);
      assert.equal(response?.headers()[EGRESS_HEADER], 'refused');
      assert.deepEqual(internal.seen.paths, []);
    } finally {
      await page.close();
    }
  });

  it('fails an https navigation to the internal host at the tunnel, and the proxy can say why', async () => {
    // Prepare
    const page = await browser.newPage();

    try {
      // Act
      const attempt = page.goto(`https://127.0.0.2:${internal.port}/`, { waitUntil: 'load' });

      // Assess
      await assert.rejects(attempt, /ERR_TUNNEL_CONNECTION_FAILED/);
      assert.match(proxy.failureFor(`https://127.0.0.2:${internal.port}/`)?.reason ?? '', /loopback address/);
      assert.deepEqual(internal.seen.paths, []);
    } finally {
      await page.close();
    }
  });

  it('does not follow a meta refresh to the internal host', async () => {
    // Prepare
    const page = await browser.newPage();

    try {
      // Act
      await page.goto(`${publicSite.url}/refresh`, { waitUntil: 'load' });
      await new Promise((resolve) => setTimeout(resolve, 1000));

      // Assess
      assert.deepEqual(internal.seen.paths, []);
    } finally {
      await page.close();
    }
  });
});
