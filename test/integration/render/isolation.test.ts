import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RenderTimeoutError } from '../../../lib/errors.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';
import type { ChromiumMode } from '../../../lib/render/types.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { b64, pdfText, renderRequest } from './render-fixtures.js';

/** Leaves a cookie (from the server and from script), localStorage and IndexedDB behind. */
const writer = `<p>written</p><script>
  document.cookie = 'script_cookie=left-behind; max-age=3600; path=/';
  localStorage.setItem('stored', 'left-behind');
  const open = indexedDB.open('db', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  open.onsuccess = () => { const tx = open.result.transaction('s', 'readwrite'); tx.objectStore('s').put('left-behind', 'k'); tx.oncomplete = () => document.body.append(' idb written'); };
</script>`;

/** Prints what a previous render could have left. */
const reader = `<p id="o">reading</p><script>
  const out = (t) => document.getElementById('o').append(' ' + t);
  out('cookie=[' + document.cookie + ']');
  out('stored=[' + localStorage.getItem('stored') + ']');
  const open = indexedDB.open('db', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  open.onsuccess = () => {
    const get = open.result.transaction('s').objectStore('s').get('k');
    get.onsuccess = () => out('idb=[' + get.result + '] done');
  };
</script>`;

/**
 * Leaves what a reused context would carry over beyond cookies and storage: a Cache Storage entry,
 * a registered service worker, a cached image (HTTP cache) and history entries.
 */
const keeper = `<p id="o">keeping</p><img src="/cached.svg"><script>
  const out = (t) => document.getElementById('o').append(' ' + t);
  history.pushState({}, '', '#one');
  history.pushState({}, '', '#two');
  Promise.all([
    caches.open('c').then((c) => c.put('/entry', new Response('left-behind'))).then(() => 'cache'),
    navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => 'worker'),
  ]).then((kept) => out(kept.join(' ') + ' kept history=' + history.length), (error) => out('failed ' + error));
</script>`;

/** Prints the Cache Storage, service workers, permissions and history a render starts with. */
const looker = `<p id="o">looking</p><img src="/cached.svg"><script>
  const out = (t) => document.getElementById('o').append(' ' + t);
  out('history=[' + history.length + ']');
  Promise.all([
    caches.keys().then((keys) => 'caches=[' + keys.join(',') + ']'),
    navigator.serviceWorker.getRegistrations().then((list) => 'workers=[' + list.length + ']'),
    navigator.permissions.query({ name: 'notifications' }).then((p) => 'notifications=[' + p.state + ']'),
    navigator.permissions.query({ name: 'geolocation' }).then((p) => 'geolocation=[' + p.state + ']'),
  ]).then((seen) => out(seen.join(' ') + ' done'), (error) => out('failed ' + error));
</script>`;

for (const mode of ['multi-process', 'single-process'] as ChromiumMode[]) {
  describe(`renderer › isolation between renders (${mode})`, () => {
    let renderer: Renderer;
    let site: TestServer;
    let cachedFetches = 0;
    before(async () => {
      site = await startTestServer({
        '/write': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'server_cookie=left-behind; Max-Age=3600; Path=/' });
          res.end(writer);
        },
        '/read': (req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<p>server saw cookie=[${req.headers.cookie ?? ''}]</p>${reader}`);
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
        '/keep': html(keeper),
        '/look': html(looker),
        '/sw.js': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/javascript' });
          res.end("self.addEventListener('install', () => self.skipWaiting()); self.addEventListener('fetch', () => undefined);");
        },
        '/cached.svg': (_req, res) => {
          cachedFetches += 1;
          res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600' });
          res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
        },
        '/spin': html('<p>spinning</p><script>window.addEventListener("load", () => setTimeout(() => { for (;;) {} }, 50))</script>'),
      });
      renderer = createRenderer({ mode, timeoutMs: 20_000, egress: localEgress });
      await renderer.warm();
    });
    after(async () => {
      await renderer?.close();
      await site?.close();
    });

    it('does not let cookies, localStorage or IndexedDB of one render reach the next', async () => {
      // Prepare
      const written = await pdfText(renderer, { url: `${site.url}/write`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("idb written")' } });
      assert.match(written, /idb written/, 'the first render did store everything');

      // Act
      const read = await pdfText(renderer, { url: `${site.url}/read`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("done")' } });

      // Assess
      assert.match(read, /server saw cookie=\[\]/);
      assert.match(read, /cookie=\[\]/);
      assert.match(read, /stored=\[null\]/);
      assert.match(read, /idb=\[undefined\] done/);
    });

    it('does not let Cache Storage, service workers, the HTTP cache, permissions or history of one render reach the next', async () => {
      // Prepare: what a render sees in a context nobody used, then a render that leaves everything it can.
      const look = { url: `${site.url}/look`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("done")' } } as const;
      const before = await pdfText(renderer, look);
      const kept = await pdfText(renderer, { url: `${site.url}/keep`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("kept")' } });
      assert.match(kept, /cache worker kept history=4/, 'the first render did keep everything (about:blank, the page, two pushed entries)');
      const fetchesBefore = cachedFetches;

      // Act
      const after = await pdfText(renderer, look);

      // Assess
      const history = (text: string) => /history=\[\d+\]/.exec(text)?.[0];
      assert.equal(history(after), history(before));
      assert.equal(history(after), 'history=[2]');
      assert.match(after, /caches=\[\]/);
      assert.match(after, /workers=\[0\] /);
      const permissions = (text: string) => /notifications=\[\w+\] geolocation=\[\w+\]/.exec(text)?.[0];
      assert.ok(permissions(after));
      assert.equal(permissions(after), permissions(before));
      assert.equal(cachedFetches, fetchesBefore + 1, 'the cached image was fetched again');
    });

    it('does not let HTTP credentials of one render reach the next', async () => {
      // Prepare
      const alice = await pdfText(renderer, { url: `${site.url}/private`, authentication: { username: 'alice', password: 's3cret' }, adblock: false });
      assert.match(alice, /welcome alice/);

      // Act
      const anonymous = await pdfText(renderer, { url: `${site.url}/private`, adblock: false });

      // Assess
      assert.match(anonymous, /denied/);
    });

    it('renders again after a render that hung and timed out', async () => {
      // Act
      const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/spin`, adblock: false } }, { timeoutMs: 2_500 });
      await assert.rejects(attempt, (error: unknown) => error instanceof RenderTimeoutError);
      const next = await pdfText(renderer, { url: `${site.url}/read`, adblock: false });

      // Assess
      assert.match(next, /reading/);
    });
  });
}
