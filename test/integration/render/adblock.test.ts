import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { loadAdblockEngine, readPageTokens, type AdblockEngine } from '../../../lib/render/page/adblock.js';
import { DISMISS_BUDGET_MS, dismissCookieBanners, prepareCookieConsent } from '../../../lib/render/page/cookie-consent.js';
import { tempDir } from '../../helpers/temp-dir.js';

const UNSAFE_FLAGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);

/** Chromium as the renderer launches it, with every host name (port 80) sent to the local test server. */
async function launchBrowser(port: number): Promise<Browser> {
  const args = chromium.args.filter((arg) => {
    const name = arg.split('=')[0] ?? arg;
    return !UNSAFE_FLAGS.has(name) && name !== '--headless';
  });
  return await puppeteer.launch({
    // Chromium's own temporary files go in a folder removed at exit (a browser closed at once can leave one behind).
    env: { ...process.env, TMPDIR: tempDir('docrender-chromium-test-') },
    executablePath: await chromium.executablePath(),
    headless: 'shell',
    args: [...args, '--disable-background-networking', '--no-first-run', `--host-resolver-rules=MAP * 127.0.0.1:${port}`],
  });
}

type Served = { server: Server; port: number; hits: string[] };

/** One local server for every host name (see --host-resolver-rules): routes by host + path. */
async function serve(routes: Record<string, { type: string; body: string }>): Promise<Served> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0] ?? '';
    const key = `${host}${(req.url ?? '/').split('?')[0]}`;
    hits.push(key);
    const route = routes[key];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': route.type, 'cache-control': 'no-store' }).end(route.body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

const SITE = 'www.example-news.com';

const ARTICLE = `<!doctype html><html><head><title>News</title>
<script src="http://securepubads.g.doubleclick.net/tag/js/gpt.js"></script>
<script src="http://www.googletagmanager.com/gtag/js?id=G-TEST"></script>
<script src="/static/app.js"></script>
</head><body>
<article id="story"><h1>Headline</h1><p>Story text.</p></article>
<div class="in_article_ad" id="slot1">ADVERT</div>
<iframe id="leaderboard" width="728" height="90" srcdoc="ad"></iframe>
</body></html>`;

/** A banner in the markup of orestbida/cookieconsent v2, which autoconsent has a rule for. */
const CONSENT_PAGE = `<!doctype html><html class="show--consent"><head><title>Shop</title>
<style>#cm{position:fixed;bottom:0;left:0;right:0;padding:20px;background:#222;color:#fff}</style>
</head><body><main><h1>Welcome</h1></main>
<div id="cc--main"><div id="cm" role="dialog"><p>We use cookies.</p>
<button id="s-all-bn">Accept all</button><button id="s-rall-bn">Reject all</button></div></div>
<script>
  function choose(choice) {
    window.__consentChoice = choice;
    document.documentElement.classList.remove('show--consent');
    document.getElementById('cc--main').remove();
    try { document.cookie = 'cc_cookie=' + choice; } catch (e) { /* about:blank has no cookies */ }
  }
  document.getElementById('s-all-bn').addEventListener('click', function () { choose('accepted'); });
  document.getElementById('s-rall-bn').addEventListener('click', function () { choose('rejected'); });
</script></body></html>`;

/** The reject button abetterrouteplanner.com shows, which one of autoconsent's site-specific rules (not a generic one) clicks. */
const SITE_RULE_PAGE = `<!doctype html><html><head><title>Route planner</title></head><body><main><h1>Plan a trip</h1></main>
<div id="notice"><p>Cookies?</p><button data-testid="cookies_reject">Nope</button></div>
<script>
  document.querySelector('[data-testid=cookies_reject]').addEventListener('click', function () {
    window.__consentChoice = 'rejected';
    document.getElementById('notice').remove();
  });
</script></body></html>`;

/** Request interception the way the renderer wires it: the main document always passes. */
async function blockWith(page: Page, engine: AdblockEngine, pageUrl: string): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const mainDocument = request.isNavigationRequest() && request.frame() === page.mainFrame();
    if (!mainDocument && engine.shouldBlock({ url: request.url(), type: request.resourceType(), sourceUrl: pageUrl })) {
      void request.abort('blockedbyclient').catch(() => undefined);
    } else {
      void request.continue().catch(() => undefined);
    }
  });
}

describe('ad blocking in Chromium', () => {
  let browser: Browser;
  let served: Served;
  let engine: AdblockEngine;

  before(async () => {
    served = await serve({
      [`${SITE}/article`]: { type: 'text/html', body: ARTICLE },
      [`${SITE}/static/app.js`]: { type: 'text/javascript', body: 'window.__app = true;' },
      ['securepubads.g.doubleclick.net/tag/js/gpt.js']: { type: 'text/javascript', body: 'window.__ads = true;' },
      ['www.googletagmanager.com/gtag/js']: { type: 'text/javascript', body: 'window.__gtag = true;' },
    });
    [browser, engine] = await Promise.all([launchBrowser(served.port), loadAdblockEngine()]);
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => served?.server.close(resolve));
  });

  it('keeps ad and tracker scripts from loading while the page own script runs', async () => {
    // Prepare
    const page = await browser.newPage();
    const url = `http://${SITE}/article`;
    await blockWith(page, engine, url);

    // Act
    await page.goto(url, { waitUntil: 'load' });
    const globals = await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      return { app: w.__app === true, ads: w.__ads === true, gtag: w.__gtag === true };
    });
    await page.close();

    // Assess
    assert.deepEqual(globals, { app: true, ads: false, gtag: false });
    assert.ok(served.hits.includes(`${SITE}/static/app.js`));
    assert.ok(!served.hits.includes('securepubads.g.doubleclick.net/tag/js/gpt.js'));
    assert.ok(!served.hits.includes('www.googletagmanager.com/gtag/js'));
  });

  it('hides ad slots with the cosmetic CSS and leaves the content visible', async () => {
    // Prepare
    const page = await browser.newPage();
    const url = `http://${SITE}/article`;
    await blockWith(page, engine, url);
    await page.goto(url, { waitUntil: 'load' });

    // Act
    const css = engine.cosmeticCss(page.url(), await readPageTokens(page));
    await page.addStyleTag({ content: css });
    const display = await page.evaluate(() =>
      Object.fromEntries(['story', 'slot1', 'leaderboard'].map((id) => [id, getComputedStyle(document.getElementById(id)!).display])),
    );
    await page.close();

    // Assess
    assert.deepEqual(display, { story: 'block', slot1: 'none', leaderboard: 'none' });
  });
});

describe('dismissCookieBanners', () => {
  let browser: Browser;
  let served: Served;

  before(async () => {
    served = await serve({
      ['shop.example.org/']: { type: 'text/html', body: CONSENT_PAGE },
      ['www.abetterrouteplanner.com/']: { type: 'text/html', body: SITE_RULE_PAGE },
      ['shop.example.org/planner']: { type: 'text/html', body: SITE_RULE_PAGE },
      ['shop.example.org/plain']: { type: 'text/html', body: '<!doctype html><p>No banner here. <button>Reject all the bad ideas.</button></p>' },
    });
    browser = await launchBrowser(served.port);
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => served?.server.close(resolve));
  });

  it('rejects the cookie banner of a known consent platform and it is gone from the page', async () => {
    // Prepare
    const page = await browser.newPage();
    await prepareCookieConsent(page);
    await page.goto('http://shop.example.org/', { waitUntil: 'load' });

    // Act
    await dismissCookieBanners(page);
    const result = await page.evaluate(() => ({
      banner: document.querySelector('#cm') !== null,
      choice: (window as unknown as { __consentChoice?: string }).__consentChoice ?? null,
      heading: document.querySelector('h1')?.textContent ?? null,
    }));
    await page.close();

    // Assess
    assert.deepEqual(result, { banner: false, choice: 'rejected', heading: 'Welcome' });
  });

  it('applies a site-specific rule on its own site, and not elsewhere', async () => {
    // Prepare
    const choiceAt = async (url: string) => {
      const page = await browser.newPage();
      await prepareCookieConsent(page);
      await page.goto(url, { waitUntil: 'load' });
      await dismissCookieBanners(page);
      const choice = await page.evaluate(() => (window as unknown as { __consentChoice?: string }).__consentChoice ?? null);
      await page.close();
      return choice;
    };

    // Act
    const onSite = await choiceAt('http://www.abetterrouteplanner.com/');
    const elsewhere = await choiceAt('http://shop.example.org/planner');

    // Assess
    assert.deepEqual({ onSite, elsewhere }, { onSite: 'rejected', elsewhere: null });
  });

  it('dismisses a banner in HTML set without navigation', async () => {
    // Prepare
    const page = await browser.newPage();
    await prepareCookieConsent(page);
    await page.setContent(CONSENT_PAGE, { waitUntil: 'load' });

    // Act
    await dismissCookieBanners(page);
    const result = await page.evaluate(() => ({
      banner: document.querySelector('#cm') !== null,
      choice: (window as unknown as { __consentChoice?: string }).__consentChoice ?? null,
    }));
    await page.close();

    // Assess
    assert.deepEqual(result, { banner: false, choice: 'rejected' });
  });

  it('leaves a page without a banner as it was, and never throws on a closed page', async (t) => {
    // Prepare
    const page = await browser.newPage();
    await prepareCookieConsent(page);
    await page.goto('http://shop.example.org/plain', { waitUntil: 'load' });

    // Act
    const started = Date.now();
    await dismissCookieBanners(page);
    t.diagnostic(`page without a banner: ${Date.now() - started} ms (budget ${DISMISS_BUDGET_MS} ms)`);
    const text = await page.evaluate(() => document.body.innerText.trim());
    await page.close();

    // Assess
    assert.equal(text, 'No banner here. Reject all the bad ideas.');
    await assert.doesNotReject(dismissCookieBanners(page));
  });
});
