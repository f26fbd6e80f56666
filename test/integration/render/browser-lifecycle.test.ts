import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { NavigationError, RenderError, RenderTimeoutError } from '../../../lib/errors.js';
import type { Renderer } from '../../../lib/render/index.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { b64, pdfText, renderRequest } from './render-fixtures.js';

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Chromium processes this test process started (the renderer's browser). */
function chromiumPids(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => /chromium|chrome/i.test(line) && !/--type=/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

const rejectsWith = (expected: string) => (error: unknown) => {
  assert.ok(error instanceof NavigationError, `NavigationError, got ${String(error)}`);
  assert.match(error.fields['page.url'] ?? '', new RegExp(expected));
  return true;
};

describe('renderer › browser lifecycle', () => {
  let renderer: Renderer;
  let site: TestServer;
  const hanging: Array<() => void> = [];
  before(async () => {
    site = await startTestServer({
      '/hang': (_req, res) => {
        // Never answers (until the suite ends).
        hanging.push(() => res.end());
      },
      '/spin': html('<p>spinning</p><script>window.addEventListener("load", () => setTimeout(() => { for (;;) {} }, 50))</script>'),
      '/file.bin': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="file.bin"' });
        res.end(Buffer.alloc(1024));
      },
      '/popup': html('<p>popup content</p>'),
      '/unruly': html(`<p>unruly page</p><script>
        alert('hello'); confirm('sure?'); prompt('name?');
        window.open('/popup', '_blank');
        const a = document.createElement('a'); a.href = '/file.bin'; a.download = 'file.bin'; document.body.append(a); a.click();
        window.print();
        window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });
      </script>`),
    });
    renderer = await warmRenderer();
  });
  after(async () => {
    for (const end of hanging) end();
    await renderer?.close();
    await site?.close();
  });

  it('throws NavigationError naming the reason when the server refuses the connection', async () => {
    // Act
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `http://127.0.0.1:${await closedPort()}/`, adblock: false } });

    // Assess
    await assert.rejects(attempt, rejectsWith('net::ERR_CONNECTION_REFUSED'));
  });

  it('throws NavigationError when the host name does not resolve', async () => {
    // Act
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: 'http://does-not-exist.invalid/', adblock: false } });

    // Assess
    await assert.rejects(attempt, rejectsWith('net::ERR_NAME_NOT_RESOLVED'));
  });

  it('throws NavigationError when the page does not load in time, inside the budget', async () => {
    // Act
    const started = Date.now();
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/hang`, adblock: false } }, { timeoutMs: 3_000 });

    // Assess
    await assert.rejects(attempt, rejectsWith('Navigation timeout'));
    assert.ok(Date.now() - started < 3_000, 'answered before the budget ran out');
  });

  it('refuses a URL that is a download instead of hanging on it', async () => {
    // Act
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/file.bin`, adblock: false } }, { timeoutMs: 5_000 });

    // Assess
    await assert.rejects(attempt, rejectsWith('ERR_ABORTED'));
  });

  it('throws RenderTimeoutError when the page hangs after loading, and the next render works', async () => {
    // Act
    const started = Date.now();
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/spin`, adblock: false } }, { timeoutMs: 3_000 });
    await assert.rejects(attempt, (error: unknown) => error instanceof RenderTimeoutError && error.statusCode === 504);
    const elapsed = Date.now() - started;
    const next = await pdfText(renderer, { html: b64('<p>after the hang</p>') });

    // Assess
    assert.ok(elapsed >= 2_900 && elapsed < 4_500, `timed out at the budget (${elapsed} ms)`);
    assert.match(next, /after the hang/);
  });

  it('relaunches the browser when it was killed between renders', async () => {
    // Prepare
    await pdfText(renderer, { html: b64('<p>before</p>') });
    const pids = chromiumPids();
    assert.equal(pids.length, 1, 'one browser');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Act
    const text = await pdfText(renderer, { html: b64('<p>after the kill</p>') });

    // Assess
    assert.match(text, /after the kill/);
    assert.notDeepEqual(chromiumPids(), pids, 'a new browser');
  });

  it('answers a 500 RenderError, not a navigation error, when the browser dies mid-render, and recovers', async () => {
    // Prepare
    await pdfText(renderer, { html: b64('<p>warm</p>') });
    const pids = chromiumPids();
    setTimeout(() => pids.forEach((pid) => process.kill(pid, 'SIGKILL')), 300);

    // Act
    const attempt = renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/hang`, adblock: false } }, { timeoutMs: 10_000 });

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof RenderError && error.statusCode === 500);
    assert.match(await pdfText(renderer, { html: b64('<p>recovered</p>') }), /recovered/);
  });

  it('renders a page that opens dialogs, popups, downloads and print without hanging, and never loads the popup', async () => {
    // Act
    const started = Date.now();
    const text = await pdfText(renderer, { url: `${site.url}/unruly`, adblock: false }, undefined);
    const again = await pdfText(renderer, { html: b64('<p>next one</p>') });

    // Assess
    assert.match(text, /unruly page/);
    assert.match(again, /next one/);
    assert.ok(Date.now() - started < 10_000);
    assert.ok(!site.requests.some((request) => request.url === '/popup'), 'the popup was not opened');
  });

  it('renders several pages at once', async () => {
    // Act
    const texts = await Promise.all([1, 2, 3].map((n) => pdfText(renderer, { html: b64(`<p>parallel ${n}</p>`) })));

    // Assess
    texts.forEach((text, i) => assert.match(text, new RegExp(`parallel ${i + 1}`)));
  });
});
