import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import type { Renderer } from '../../../lib/render/index.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { AD_SCRIPT_ROUTE, b64, pdfText } from './render-fixtures.js';

/** Text written by a script after `delayMs`, fetched from /late (which answers after 150 ms). */
const lateContent = (delayMs: number) => `<html><body><p>static</p><script>
  window.addEventListener('load', () => setTimeout(async () => {
    const text = await (await fetch('/late')).text();
    const p = document.createElement('p'); p.textContent = text; document.body.appendChild(p);
  }, ${delayMs}));
</script></body></html>`;

/** A banner in the markup of orestbida/cookieconsent v2, which autoconsent has a rule for; the choice is written into the page. */
const consentBanner = (showAfterMs: number | null) => `<!doctype html><html><head><title>Shop</title>
<style>#cm{position:fixed;bottom:0;left:0;right:0;padding:20px;background:#222;color:#fff}</style>
</head><body><main><h1>Welcome</h1><p id="choice">choice: none</p></main>
<template id="banner"><div id="cc--main"><div id="cm" role="dialog"><p>We use cookies.</p>
<button id="s-all-bn">Accept all</button><button id="s-rall-bn">Reject all</button></div></div></template>
<script>
  function show() {
    document.documentElement.classList.add('show--consent');
    document.body.append(document.getElementById('banner').content.cloneNode(true));
    const choose = (choice) => {
      document.getElementById('choice').textContent = 'choice: ' + choice;
      document.documentElement.classList.remove('show--consent');
      document.getElementById('cc--main').remove();
    };
    document.getElementById('s-all-bn').addEventListener('click', () => choose('accepted'));
    document.getElementById('s-rall-bn').addEventListener('click', () => choose('rejected'));
  }
  ${showAfterMs === null ? 'show();' : `window.addEventListener('load', () => setTimeout(show, ${showAfterMs}));`}
</script></body></html>`;
const CONSENT_PAGE = consentBanner(null);
/** The banner comes 300 ms after the load event, as a consent platform's script loaded late would show it. */
const LATE_CONSENT_PAGE = consentBanner(300);

/** A page whose script adds "#ready" with text after 500 ms. */
const readyLater = b64('<p>first</p><script>setTimeout(() => { const d = document.createElement("div"); d.id = "ready"; d.dataset.state = "done"; d.textContent = "ready arrived"; document.body.append(d) }, 500)</script>');

describe('renderer › page options', () => {
  let renderer: Renderer;
  let site: TestServer;
  before(async () => {
    site = await startTestServer({
      '/late-page': html(lateContent(300)),
      '/late': (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('fetched after load');
        }, 150);
      },
      '/late-image': (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'image/svg+xml' });
          res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
        }, 150);
      },
      '/echo': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<p>header=${req.headers['x-custom'] ?? 'none'}</p><p>cookie=${req.headers.cookie ?? 'none'}</p><p>ua=${req.headers['user-agent']}</p>`);
      },
      '/private': (req, res) => {
        if (req.headers.authorization !== 'Basic ' + Buffer.from('alice:s3cret').toString('base64')) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="test"', 'content-type': 'text/html' });
          res.end('<p>denied</p>');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>welcome alice</p>');
      },
      '/missing': (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Nothing here</h1>');
      },
      '/with-ads': html('<p>article</p><script src="/prebid.js"></script>'),
      // An OpenX iframe zone, inserted as ad tags do: the frame exists (about:blank) before it is sent to the ad.
      '/with-ad-frame': html(`<p>article</p><script>
        const frame = document.createElement('iframe');
        document.body.append(frame);
        frame.src = '/www/delivery/afr.php?zoneid=1';
      </script>`),
      '/www/delivery/afr.php': html('<p>advert frame</p>'),
      '/with-ad-slot': html('<article><p>story text</p></article><div class="in_article_ad">advert slot</div>'),
      '/with-banner': html(CONSENT_PAGE),
      '/with-late-banner': html(LATE_CONSENT_PAGE),
      '/prebid.js': AD_SCRIPT_ROUTE,
    });
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
    await site?.close();
  });

  describe('sources', () => {
    it('renders page.url, and a 4xx page like a browser shows it', async () => {
      // Act
      const missing = await pdfText(renderer, { url: `${site.url}/missing`, adblock: false });

      // Assess
      assert.match(missing, /Nothing here/);
    });

    it('fills page.htmlTemplate with templateData', async () => {
      // Act
      const text = await pdfText(renderer, { htmlTemplate: b64('<p>Invoice for {{customer.name}}: {{total}} EUR</p>'), templateData: { customer: { name: 'Ada' }, total: 42 } });

      // Assess
      assert.match(text, /Invoice for Ada: 42 EUR/);
    });

    it('keeps data: and blob: subresources working and refuses file:', async () => {
      // Prepare
      const page = b64(`<p id="o"></p><script>
        const out = (t) => document.getElementById('o').append(t + ' ');
        const img = (src, label) => { const i = new Image(); i.onload = () => out(label + ' loaded'); i.onerror = () => out(label + ' refused'); i.src = src; };
        img('data:image/svg+xml;base64,${b64('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')}', 'data');
        img(URL.createObjectURL(new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'], { type: 'image/svg+xml' })), 'blob');
        img('file:///etc/hostname', 'file');
      </script>`);

      // Act
      const text = await pdfText(renderer, { html: page, waitForFunction: { pageFunction: 'document.getElementById("o").textContent.split("ed").length > 3', options: { timeout: 3000 } } });

      // Assess
      assert.match(text, /data loaded/);
      assert.match(text, /blob loaded/);
      assert.match(text, /file refused/);
    });

    it('does not announce itself as HeadlessChrome', async () => {
      // Act
      const text = await pdfText(renderer, { url: `${site.url}/echo`, adblock: false });

      // Assess
      assert.match(text, /ua=Mozilla/);
      assert.doesNotMatch(text, /Headless/);
    });
  });

  describe('waitUntil', () => {
    it('auto (the default) catches content a script fetches 300 ms after the load event', async () => {
      // Act
      const byDefault = await pdfText(renderer, { url: `${site.url}/late-page` });
      const explicit = await pdfText(renderer, { url: `${site.url}/late-page`, waitUntil: 'auto', adblock: false });

      // Assess
      assert.match(byDefault, /fetched after load/);
      assert.match(explicit, /fetched after load/);
    });

    it('auto does not wait for a page that never goes quiet beyond its bound', async () => {
      // Prepare
      const busy = b64('<p>busy</p><script>setInterval(() => fetch("data:text/plain,x"), 20); (function again() { setTimeout(again, 100) })()</script>');

      // Act
      const started = Date.now();
      const text = await pdfText(renderer, { html: busy });

      // Assess
      assert.match(text, /busy/);
      assert.ok(Date.now() - started < 8_000, 'rendered within the settle bound, far from the 20 s budget');
    });

    it('load and domcontentloaded do not wait for the late fetch; networkidle0 and networkidle2 do', async () => {
      // Act
      const load = await pdfText(renderer, { url: `${site.url}/late-page`, waitUntil: 'load', adblock: false });
      const dom = await pdfText(renderer, { url: `${site.url}/late-page`, waitUntil: 'domcontentloaded', adblock: false });
      const idle0 = await pdfText(renderer, { url: `${site.url}/late-page`, waitUntil: 'networkidle0', adblock: false });
      const idle2 = await pdfText(renderer, { url: `${site.url}/late-page`, waitUntil: 'networkidle2', adblock: false });

      // Assess
      assert.match(load, /static/);
      assert.doesNotMatch(load, /fetched after load/);
      assert.match(dom, /static/);
      assert.doesNotMatch(dom, /fetched after load/);
      assert.match(idle0, /fetched after load/);
      assert.match(idle2, /static/);
    });

    it('networkidle0 also waits for HTML given inline', async () => {
      // Prepare: inline HTML has no origin to fetch from, so the late request is an image.
      const page = b64(`<p>inline</p><script>window.addEventListener('load', () => setTimeout(() => {
        const img = new Image(); img.onload = () => document.body.append('image arrived'); img.src = '${site.url}/late-image';
      }, 300))</script>`);

      // Act
      const text = await pdfText(renderer, { html: page, waitUntil: 'networkidle0' });

      // Assess
      assert.match(text, /image arrived/);
    });
  });

  describe('waits', () => {
    it('waits waitForMilliseconds', async () => {
      // Prepare
      const page = b64('<p>x</p><script>setTimeout(() => document.body.append("delayed text"), 400)</script>');

      // Act
      const without = await pdfText(renderer, { html: page, waitUntil: 'load' });
      const waited = await pdfText(renderer, { html: page, waitUntil: 'load', waitForMilliseconds: 1000 });

      // Assess
      assert.doesNotMatch(without, /delayed text/);
      assert.match(waited, /delayed text/);
    });

    it('waits for a selector, visible if asked, and continues when it never appears', async () => {
      // Prepare
      const revealed = b64('<div id="box" style="display:none">now visible</div><script>setTimeout(() => document.getElementById("box").style.display = "block", 500)</script>');

      // Act
      const found = await pdfText(renderer, { html: readyLater, waitUntil: 'load', waitForSelector: { selector: '#ready' } });
      const visible = await pdfText(renderer, { html: revealed, waitUntil: 'load', waitForSelector: { selector: '#box', options: { visible: true } } });
      const started = Date.now();
      const missing = await pdfText(renderer, { html: readyLater, waitUntil: 'load', waitForSelector: { selector: '#never', options: { timeout: 300 } } });

      // Assess
      assert.match(found, /ready arrived/);
      assert.match(visible, /now visible/);
      assert.match(missing, /first/);
      assert.ok(Date.now() - started < 5_000, 'continued after the selector timeout');
    });

    it('refuses a selector that is not CSS with a 400 on the field', async () => {
      // Act
      const attempt = pdfText(renderer, { html: readyLater, waitForSelector: { selector: '##nope' } });

      // Assess
      await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'page.waitForSelector.selector' in error.fields);
    });

    it('waits for a function, even one that throws until the page is ready, and continues on timeout', async () => {
      // Act
      const found = await pdfText(renderer, { html: readyLater, waitUntil: 'load', waitForFunction: { pageFunction: 'document.querySelector("#ready").dataset.state === "done"' } });
      const polled = await pdfText(renderer, { html: readyLater, waitUntil: 'load', waitForFunction: { pageFunction: '!!document.getElementById("ready");', options: { polling: 50 } } });
      const missing = await pdfText(renderer, { html: readyLater, waitUntil: 'load', waitForFunction: { pageFunction: 'window.never === 1', options: { timeout: 300, polling: 'mutation' } } });

      // Assess
      assert.match(found, /ready arrived/);
      assert.match(polled, /ready arrived/);
      assert.match(missing, /first/);
      assert.doesNotMatch(missing, /ready arrived/);
    });
  });

  describe('requests', () => {
    it('sends extra headers and cookies, the cookie url defaulting to the page', async () => {
      // Act
      const headers = await pdfText(renderer, { url: `${site.url}/echo`, headers: { 'X-Custom': 'hello-header' }, adblock: false });
      const cookies = await pdfText(renderer, { url: `${site.url}/echo`, cookies: [{ name: 'session', value: 'abc123' }], adblock: false });
      const byDomain = await pdfText(renderer, { url: `${site.url}/echo`, cookies: [{ name: 'd', value: '1', domain: '127.0.0.1', path: '/' }], adblock: false });
      const elsewhere = await pdfText(renderer, { url: `${site.url}/echo`, cookies: [{ name: 'other', value: '1', url: 'http://example.com/' }], adblock: false });

      // Assess
      assert.match(headers, /header=hello-header/);
      assert.match(cookies, /cookie=session=abc123/);
      assert.match(byDomain, /cookie=d=1/);
      assert.match(elsewhere, /cookie=none/);
    });

    it('turns a cookie header into cookies of the page', async () => {
      // Act
      const text = await pdfText(renderer, { url: `${site.url}/echo`, headers: { cookie: 'flavour=oat; size=large' }, adblock: false });

      // Assess
      assert.match(text, /cookie=flavour=oat; size=large/);
    });

    it('refuses a cookie without url or domain when the page is HTML', async () => {
      // Act
      const attempt = pdfText(renderer, { html: b64('<p>x</p>'), cookies: [{ name: 'a', value: 'b' }] });

      // Assess
      await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'page.cookies.0.url' in error.fields);
    });

    it('authenticates with HTTP credentials', async () => {
      // Act
      const anonymous = await pdfText(renderer, { url: `${site.url}/private`, adblock: false });
      const alice = await pdfText(renderer, { url: `${site.url}/private`, authentication: { username: 'alice', password: 's3cret' }, adblock: false });

      // Assess
      assert.match(anonymous, /denied/);
      assert.match(alice, /welcome alice/);
    });

    it('blocks ad scripts by default, and lets them run with adblock: false', async () => {
      // Act
      const blocked = await pdfText(renderer, { url: `${site.url}/with-ads` });
      const allowed = await pdfText(renderer, { url: `${site.url}/with-ads`, adblock: false });

      // Assess
      assert.match(blocked, /article/);
      assert.doesNotMatch(blocked, /ad script ran/);
      assert.match(allowed, /ad script ran/);
    });
  });

  describe('adblock', () => {
    it('blocks an ad iframe, not only ad scripts', async () => {
      // Act
      const blocked = await pdfText(renderer, { url: `${site.url}/with-ad-frame` });
      const blockedRequests = site.requests.filter((r) => r.url.startsWith('/www/delivery/')).length;
      const allowed = await pdfText(renderer, { url: `${site.url}/with-ad-frame`, adblock: false });

      // Assess
      assert.match(blocked, /article/);
      assert.doesNotMatch(blocked, /advert frame/);
      assert.equal(blockedRequests, 0);
      assert.match(allowed, /advert frame/);
    });

    it('hides elements matched by a generic element-hiding rule on a page.url page', async () => {
      // Prepare: loopback IPs are exempt from generic hiding in the lists; *.localhost is loopback too, without the exemption.
      const url = `${site.url.replace('127.0.0.1', 'news.localhost')}/with-ad-slot`;

      // Act
      const hidden = await pdfText(renderer, { url });
      const shown = await pdfText(renderer, { url, adblock: false });

      // Assess
      assert.match(hidden, /story text/);
      assert.doesNotMatch(hidden, /advert slot/);
      assert.match(shown, /advert slot/);
    });

    it('rejects a cookie banner, also one that appears after the load event', async () => {
      // Act
      const [present, late, kept] = [
        await pdfText(renderer, { url: `${site.url}/with-banner` }),
        await pdfText(renderer, { url: `${site.url}/with-late-banner` }),
        await pdfText(renderer, { url: `${site.url}/with-banner`, adblock: false }),
      ];

      // Assess
      for (const text of [present, late]) {
        assert.match(text, /choice: rejected/);
        assert.doesNotMatch(text, /We use cookies/);
      }
      assert.match(kept, /We use cookies/);
      assert.match(kept, /choice: none/);
    });
  });

  describe('emulation', () => {
    const probe = b64(`<p id="o"></p><p>static text</p><script>
      document.getElementById('o').textContent = [
        'script ran',
        'dark=' + matchMedia('(prefers-color-scheme: dark)').matches,
        'screen=' + matchMedia('screen').matches,
        'tz=' + Intl.DateTimeFormat().resolvedOptions().timeZone,
      ].join(' ');
    </script>`);

    it('turns JavaScript off with javascript: false', async () => {
      // Act
      const on = await pdfText(renderer, { html: probe });
      const off = await pdfText(renderer, { html: probe, javascript: false });

      // Assess
      assert.match(on, /script ran/);
      assert.match(off, /static text/);
      assert.doesNotMatch(off, /script ran/);
    });

    it('emulates colorScheme, mediaType and timezone', async () => {
      // Act
      const dark = await pdfText(renderer, { html: probe, colorScheme: 'dark', mediaType: 'screen', timezone: 'Asia/Tokyo' });
      const light = await pdfText(renderer, { html: probe, colorScheme: 'light', mediaType: 'print', timezone: 'America/New_York' });

      // Assess
      assert.match(dark, /dark=true screen=true tz=Asia\/Tokyo/);
      assert.match(light, /dark=false screen=false tz=America\/New_York/);
    });
  });
});
