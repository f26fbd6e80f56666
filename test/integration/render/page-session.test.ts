import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AdblockEngine } from '../../../lib/render/page/adblock.js';
import { launchBrowser, type LaunchedBrowser } from '../../../lib/render/browser/launch-browser.js';
import { createSessionFactory, type SessionFactory } from '../../../lib/render/browser/browser-session.js';
import { preparePage } from '../../../lib/render/page/prepare-page.js';
import { localEgress } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';

/** An engine that blocks every URL containing "/ads/". */
const fakeEngine: AdblockEngine = {
  shouldBlock: ({ url }) => url.includes('/ads/'),
  cosmeticCss: () => '',
};

describe('createSessionFactory › ad blocker still loading (right after a cold start)', () => {
  let launched: LaunchedBrowser;
  let sessions: SessionFactory;
  let site: TestServer;
  before(async () => {
    site = await startTestServer({
      '/article': html('<p>article</p><img src="/ads/banner.png"><img src="/images/photo.png">'),
      '/ads/banner.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(),
      '/images/photo.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(),
    });
    launched = await launchBrowser({ mode: 'multi-process', egress: await localEgress() });
    sessions = createSessionFactory(launched, preparePage);
  });
  after(async () => {
    launched?.kill();
    await launched?.gone;
    await site?.close();
  });

  it('holds the requests of a page until the engine has loaded, then blocks what it must', async () => {
    // Prepare
    const session = await sessions.open();
    let loaded: (engine: AdblockEngine) => void = () => undefined;
    const loading = new Promise<AdblockEngine>((resolve) => (loaded = resolve));
    session.policy.filter = { shouldBlock: (query) => loading.then((engine) => engine.shouldBlock({ ...query, sourceUrl: `${site.url}/article` })) };
    setTimeout(() => loaded(fakeEngine), 300);

    // Act
    await session.page.goto(`${site.url}/article`, { waitUntil: 'load' });
    await session.dispose();

    // Assess
    const paths = site.requests.map((r) => r.url);
    assert.ok(paths.includes('/images/photo.png'));
    assert.ok(!paths.includes('/ads/banner.png'), 'the ad went out before the engine had loaded');
    assert.equal(session.policy.filterFailed, false);
  });

  it('refuses the requests and flags the render when the engine cannot be loaded', async () => {
    // Prepare
    const session = await sessions.open();
    const before = site.requests.length;
    const failing = Promise.reject(new Error('engine file missing'));
    failing.catch(() => undefined);
    session.policy.filter = { shouldBlock: () => failing.then(() => false) };

    // Act
    await session.page.goto(`${site.url}/article`, { waitUntil: 'load' });
    await session.dispose();

    // Assess: the page itself loads, none of its subresources do, and the render knows why
    assert.deepEqual(site.requests.slice(before).map((r) => r.url), ['/article']);
    assert.equal(session.policy.filterFailed, true);
  });
});
