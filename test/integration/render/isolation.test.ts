import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RenderTimeoutError } from '../../../lib/errors.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';
import type { ChromiumMode } from '../../../lib/render/types.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { b64, pdfText } from './render-fixtures.js';

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

for (const mode of ['multi-process', 'single-process'] as ChromiumMode[]) {
  describe(`renderer › isolation between renders (${mode})`, () => {
    let renderer: Renderer;
    let site: TestServer;
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
      const attempt = renderer.render({ output: 'PDF', page: { url: `${site.url}/spin`, adblock: false } }, { timeoutMs: 2_500 });
      await assert.rejects(attempt, (error: unknown) => error instanceof RenderTimeoutError);
      const next = await pdfText(renderer, { url: `${site.url}/read`, adblock: false });

      // Assess
      assert.match(next, /reading/);
    });
  });
}
