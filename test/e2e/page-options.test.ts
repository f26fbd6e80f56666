import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { html, startTestServer, type TestServer } from '../helpers/test-server.js';
import { readPdf } from '../helpers/documents.js';

/** A page whose text is written by a script after `delayMs`, fetched from /late. */
const lateContent = (delayMs: number) => `<html><body><p>static</p><script>
  window.addEventListener('load', () => setTimeout(async () => {
    const text = await (await fetch('/late')).text();
    const p = document.createElement('p'); p.id = 'late'; p.textContent = text; document.body.appendChild(p);
  }, ${delayMs}));
</script></body></html>`;

describe('page options over HTTP', () => {
  let service: RunningService;
  let site: TestServer;
  before(async () => {
    site = await startTestServer({
      '/late-page': html(lateContent(300)),
      '/late': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('fetched after load');
      },
      '/echo': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<p>header=${req.headers['x-custom'] ?? 'none'}</p><p>cookie=${req.headers.cookie ?? 'none'}</p>`);
      },
      '/private': (req, res) => {
        const expected = 'Basic ' + Buffer.from('alice:s3cret').toString('base64');
        if (req.headers.authorization !== expected) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="test"', 'content-type': 'text/html' });
          res.end('<p>denied</p>');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>welcome alice</p>');
      },
    });
    service = await startService();
  });
  after(async () => {
    await service?.stop();
    await site?.close();
  });

  const pdfText = async (page: Record<string, unknown>) => {
    const res = await service.request('/v1/pdf', { json: { page } });
    const data = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) assert.fail(`status ${res.status}: ${Buffer.from(data).toString()}`);
    return (await readPdf(data)).text.join('\n');
  };

  it('visits page.url', async () => {
    assert.match(await pdfText({ url: `${site.url}/echo` }), /header=none/);
  });

  it('renders htmlTemplate with templateData, escaping {{v}} but not {{{v}}}', async () => {
    const text = await pdfText({
      htmlTemplate: b64('<p>Hello {{name}}</p><p>{{markup}}</p><div>{{{markup}}}</div>'),
      templateData: { name: 'Ada', markup: '<b>bold</b>' },
    });
    assert.match(text, /Hello Ada/);
    assert.match(text, /<b>bold<\/b>/);
    assert.match(text, /\nbold/);
  });

  it('waitUntil auto catches content fetched right after the load event', async () => {
    assert.match(await pdfText({ url: `${site.url}/late-page` }), /fetched after load/);
    assert.match(await pdfText({ url: `${site.url}/late-page`, waitUntil: 'auto' }), /fetched after load/);
  });

  for (const waitUntil of ['load', 'domcontentloaded', 'networkidle0', 'networkidle2']) {
    it(`renders with waitUntil ${waitUntil}`, async () => {
      assert.match(await pdfText({ url: `${site.url}/late-page`, waitUntil }), /static/);
    });
  }

  it('networkidle0 waits for the late fetch too', async () => {
    assert.match(await pdfText({ url: `${site.url}/late-page`, waitUntil: 'networkidle0' }), /fetched after load/);
  });

  it('waits waitForMilliseconds', async () => {
    const page = b64('<p>x</p><script>setTimeout(() => document.body.append("delayed text"), 600)</script>');
    assert.doesNotMatch(await pdfText({ html: page, waitUntil: 'load' }), /delayed text/);
    assert.match(await pdfText({ html: page, waitUntil: 'load', waitForMilliseconds: 1500 }), /delayed text/);
  });

  it('waits for a selector, and continues when it never appears', async () => {
    const page = b64('<p>x</p><script>setTimeout(() => { const d = document.createElement("div"); d.id = "ready"; d.textContent = "selector arrived"; document.body.append(d) }, 700)</script>');
    assert.match(await pdfText({ html: page, waitUntil: 'load', waitForSelector: { selector: '#ready' } }), /selector arrived/);
    const text = await pdfText({ html: page, waitUntil: 'load', waitForSelector: { selector: '#never', options: { timeout: 300 } } });
    assert.match(text, /x/);
  });

  it('waits for a function, and continues when it times out', async () => {
    const page = b64('<p>x</p><script>setTimeout(() => { window.done = true; document.body.append("function true") }, 700)</script>');
    assert.match(await pdfText({ html: page, waitUntil: 'load', waitForFunction: { pageFunction: 'window.done === true' } }), /function true/);
    const text = await pdfText({ html: page, waitUntil: 'load', waitForFunction: { pageFunction: 'window.never === 1', options: { timeout: 300, polling: 100 } } });
    assert.match(text, /x/);
  });

  it('sends extra headers and cookies, also a cookie given in headers', async () => {
    assert.match(await pdfText({ url: `${site.url}/echo`, headers: { 'x-custom': 'hello-header' } }), /header=hello-header/);
    assert.match(await pdfText({ url: `${site.url}/echo`, cookies: [{ name: 'session', value: 'abc123' }] }), /cookie=session=abc123/);
    assert.match(await pdfText({ url: `${site.url}/echo`, headers: { cookie: 'flavour=oat' } }), /cookie=flavour=oat/);
  });

  it('authenticates with HTTP basic credentials', async () => {
    assert.match(await pdfText({ url: `${site.url}/private` }), /denied/);
    assert.match(await pdfText({ url: `${site.url}/private`, authentication: { username: 'alice', password: 's3cret' } }), /welcome alice/);
  });

  it('turns JavaScript off with javascript: false', async () => {
    const page = b64('<p>static</p><script>document.body.append("from script")</script>');
    assert.match(await pdfText({ html: page }), /from script/);
    assert.doesNotMatch(await pdfText({ html: page, javascript: false }), /from script/);
  });

  it('emulates colorScheme, mediaType and timezone', async () => {
    const page = b64(`<p id="o"></p><script>
      document.getElementById('o').textContent = [
        'dark=' + matchMedia('(prefers-color-scheme: dark)').matches,
        'screen=' + matchMedia('screen').matches,
        'tz=' + Intl.DateTimeFormat().resolvedOptions().timeZone,
      ].join(' ');
    </script>`);
    const text = await pdfText({ html: page, colorScheme: 'dark', mediaType: 'screen', timezone: 'Asia/Tokyo' });
    assert.match(text, /dark=true/);
    assert.match(text, /screen=true/);
    assert.match(text, /tz=Asia\/Tokyo/);
    const light = await pdfText({ html: page, colorScheme: 'light', mediaType: 'print', timezone: 'America/New_York' });
    assert.match(light, /dark=false/);
    assert.match(light, /screen=false/);
    assert.match(light, /tz=America\/New_York/);
  });
});
