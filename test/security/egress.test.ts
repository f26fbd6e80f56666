import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningService } from '../helpers/service.js';
import {
  type AttackerSite,
  b64,
  errorOf,
  eventually,
  everyRequestKind,
  type InternalHost,
  page,
  pdfTextOf,
  redirect,
  startAttackerSite,
  startInternalHost,
  startSecuredService,
} from './attack-fixtures.js';


describe('security › egress: the service is no way into the network it runs in', () => {
  let service: RunningService;
  let internal: InternalHost;
  let attacker: AttackerSite;

  before(async () => {
    internal = await startInternalHost();
    const target = internal.url;
    attacker = await startAttackerSite({
      '/every-request': page(`<!doctype html><html><body>${everyRequestKind(target)}</body></html>`),
      '/redirect': redirect(`${target}/after-redirect`),
      '/redirect-307': redirect(`${target}/after-307`, 307),
      '/redirect-chain': redirect('/redirect'),
      '/redirect-https': redirect(`https://${new URL(target).host}/after-https`),
      '/meta-refresh': page(`<meta http-equiv="refresh" content="0;url=${target}/meta"><p>public page</p>`),
      '/js-location': page(`<p>public page</p><script>location.href = '${target}/js-location';</script>`),
      '/top-frame': page(`<p>public page</p><iframe src="/redirect"></iframe>`),
      '/hook': (_req, res) => {
        res.writeHead(200);
        res.end('ok');
      },
      '/hook-redirect': redirect(`${target}/webhook`, 307),
      '/upload-redirect': redirect(`${target}/upload`, 307),
    });
    service = await startSecuredService();
  });

  after(async () => {
    await service?.stop();
    await attacker?.close();
    await internal?.close();
  });

  beforeEach(() => internal.reset());

  /** Asserts that the internal host saw nothing at all, naming what it saw if it did. */
  const assertInternalUntouched = () => {
    assert.deepEqual({ requests: internal.requests, upgrades: internal.upgrades, connections: internal.connections() }, { requests: [], upgrades: [], connections: 0 });
  };

  describe('up-front refusals: 400 naming the field, before any rendering', () => {
    const spellings = (port: number) => [
      `http://127.0.0.2:${port}/`,
      `http://2130706434:${port}/`,
      `http://0x7f000002:${port}/`,
      `http://0177.0.0.2:${port}/`,
      `http://127.2:${port}/`,
      `http://[::ffff:127.0.0.2]:${port}/`,
      `http://[::ffff:7f00:2]:${port}/`,
      `http://[::1]:${port}/`,
      `http://localhost:${port}/`,
      `http://LOCALHOST.:${port}/`,
      `http://internal.localhost:${port}/`,
      `http://0.0.0.0:${port}/`,
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://169.254.170.2/v2/credentials',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.0.1/',
    ];

    it('refuses page.url at the internal host in every spelling, on PDF and screenshot endpoints', async () => {
      // Act
      const answers = [];
      for (const url of spellings(internal.port)) {
        for (const path of ['/v1/pdf', '/v1/screenshot', '/v1/pdf/sync']) {
          const res = await service.request(path, { json: { page: { url } } });
          answers.push({ url, path, status: res.status, body: await errorOf(res) });
        }
      }

      // Assess
      for (const answer of answers) {
        assert.equal(answer.status, 400, `${answer.path} ${answer.url}`);
        assert.equal(answer.body.code, 'api.validation');
        // A literal address is refused by the egress policy; one spelled otherwise (2130706434, 0x7f000002, 0177.0.0.2,
        // 127.2) by the URL syntax first (lib/validation/http-url-pattern.ts), whose message names the address it reads as.
        assert.match(answer.body.fields?.['page.url'] ?? '', /public address|reads as 127\.0\.0\.2\)/, `${answer.path} ${answer.url}`);
      }
      assertInternalUntouched();
    });

    it('refuses webhook.url and storage.preSignedUrl at the internal host', async () => {
      // Act
      const webhook = await service.request('/v1/pdf/async', { json: { page: { html: b64('<p>x</p>') }, webhook: { url: `${internal.url}/hook` } } });
      const storage = await service.request('/v1/pdf/sync', { json: { page: { html: b64('<p>x</p>') }, storage: { preSignedUrl: `http://0x7f000002:${internal.port}/bucket/key` } } });
      const metadata = await service.request('/v1/screenshot/async', { json: { page: { html: b64('<p>x</p>') }, webhook: { url: 'http://169.254.169.254/latest/' } } });

      // Assess
      assert.equal(webhook.status, 400);
      assert.match((await errorOf(webhook)).fields?.['webhook.url'] ?? '', /loopback address/);
      assert.equal(storage.status, 400);
      assert.match((await errorOf(storage)).fields?.['storage.preSignedUrl'] ?? '', /reads as 127\.0\.0\.2\)/);
      assert.equal(metadata.status, 400);
      assert.match((await errorOf(metadata)).fields?.['webhook.url'] ?? '', /metadata address/);
      assertInternalUntouched();
    });

    it('refuses a template that stores an internal page.url, and a render that merges one in', async () => {
      // Prepare
      const stored = await service.request('/v1/templates', { json: { name: 'ok', variables: { page: { html: b64('<p>x</p>') } } } });
      const { id } = (await stored.json()) as { id: string };

      // Act
      const create = await service.request('/v1/templates', { json: { name: 'ssrf', variables: { page: { url: `${internal.url}/` } } } });
      const update = await service.request(`/v1/templates/${id}`, { method: 'PUT', json: { variables: { page: { url: `http://2130706434:${internal.port}/` } } } });
      const render = await service.request(`/v1/template/${id}`, { json: { page: { html: null, url: `${internal.url}/` } } });

      // Assess
      assert.equal(create.status, 400);
      assert.equal(typeof (await errorOf(create)).fields?.['variables.page.url'], 'string');
      assert.equal(update.status, 400);
      assert.equal(render.status, 400);
      assert.equal(typeof (await errorOf(render)).fields?.['page.url'], 'string');
      assertInternalUntouched();
    });

    it('refuses an overlay background image at the internal host', async () => {
      // Act
      const res = await service.request('/v1/screenshot', { json: { page: { html: b64('<p>x</p>') }, screenshot: { overlay: { background: `${internal.url}/bg.png` } } } });

      // Assess
      assert.equal(res.status, 400);
      assert.equal(typeof (await errorOf(res)).fields?.['screenshot.overlay.background'], 'string');
      assertInternalUntouched();
    });

    const schemes = [
      'file:///etc/passwd',
      'FILE:///proc/self/environ',
      '  file:///etc/passwd',
      'view-source:http://127.0.0.1/',
      'chrome://version',
      'chrome-extension://abc/x.html',
      'data:text/html,<p>x</p>',
      'javascript:alert(document.domain)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'blob:http://127.0.0.1/abc',
      'ftp://127.0.0.1/',
      'ws://127.0.0.1/',
      // From PayloadsAllTheThings' SSRF schemes (test/security/catalogue.test.ts plays the rest of the catalogue)
      'gopher://127.0.0.1:6379/_INFO',
      'dict://127.0.0.1:11211/stat',
      'ldap://127.0.0.1/',
      'sftp://127.0.0.1/',
      'tftp://127.0.0.1/x',
      'jar:http://127.0.0.1/x!/',
      'netdoc:///etc/passwd',
      'devtools://devtools/bundled/inspector.html',
      'chrome-untrusted://x/',
      'about:blank',
      'filesystem:http://127.0.0.1/temporary/x',
      'wss://example.com/',
      '//169.254.169.254/',
      '\\\\169.254.169.254\\x',
    ];
    for (const url of schemes) {
      it(`answers 400 on page.url for ${JSON.stringify(url)}`, async () => {
        // Act
        const res = await service.request('/v1/pdf', { json: { page: { url } } });

        // Assess
        assert.equal(res.status, 400);
        const body = await errorOf(res);
        assert.equal(body.code, 'api.validation');
        assert.equal(typeof body.fields?.['page.url'], 'string');
      });
    }

    it('answers 400 on webhook.url and storage.preSignedUrl for a file: URL', async () => {
      // Act
      const res = await service.request('/v1/pdf/async', {
        json: { page: { html: b64('<p>x</p>') }, storage: { preSignedUrl: 'file:///tmp/out.pdf' }, webhook: { url: 'FILE:///etc/passwd' } },
      });

      // Assess
      assert.equal(res.status, 400);
      const body = await errorOf(res);
      assert.equal(typeof body.fields?.['webhook.url'], 'string');
      assert.equal(typeof body.fields?.['storage.preSignedUrl'], 'string');
    });
  });

  describe('what a page loads', () => {
    it('renders a public page that reaches for the internal host in every way, and nothing reaches it', async () => {
      // Act
      const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}/every-request`, adblock: false, waitUntil: 'networkidle0' } } });
      const text = res.status === 200 ? await pdfTextOf(res) : '';

      // Assess
      assert.equal(res.status, 200);
      assert.match(text, /public page/);
      assert.doesNotMatch(text, new RegExp(internal.secret));
      assertInternalUntouched();
    });

    it('logs every refused address with host and port, never the path', async () => {
      // Prepare
      const logged = service.output().length;

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}/every-request`, adblock: false } } });
      await res.arrayBuffer();

      // Assess
      const lines = service.output().slice(logged).split('\n').filter((line) => line.includes('"egress refused"'));
      const events = lines.map((line) => (JSON.parse(line) as { egress: { host: string; port: number; reason: string } }).egress);
      assert.equal(res.status, 200);
      assert.ok(events.some((e) => e.host === '127.0.0.2' && e.port === internal.port && /loopback/.test(e.reason)), lines.join('\n'));
      for (const line of lines) assert.doesNotMatch(line, /\/(img|fetch|xhr|css|frame)\b/);
    });

    it('renders page.html that reaches for the internal host in every way, and nothing reaches it', async () => {
      // Act
      const res = await service.request('/v1/pdf', { json: { page: { html: b64(everyRequestKind(internal.url)), adblock: false, waitUntil: 'networkidle0' } } });
      const text = res.status === 200 ? await pdfTextOf(res) : '';

      // Assess
      assert.equal(res.status, 200);
      assert.doesNotMatch(text, new RegExp(internal.secret));
      assertInternalUntouched();
    });

    it('renders a screenshot of the same page without touching the internal host', async () => {
      // Act
      const res = await service.request('/v1/screenshot', { json: { page: { url: `${attacker.url}/every-request`, adblock: false } } });

      // Assess
      assert.equal(res.status, 200);
      assertInternalUntouched();
    });

    it('answers 400 render.navigation on page.url when the page redirects to the internal host', async () => {
      // Act
      const answers = [];
      for (const path of ['/redirect', '/redirect-307', '/redirect-chain', '/redirect-https']) {
        const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}${path}` } } });
        answers.push({ path, status: res.status, body: await res.text() });
      }

      // Assess
      for (const answer of answers) {
        assert.equal(answer.status, 400, answer.path);
        const body = JSON.parse(answer.body) as { code: string; fields: Record<string, string> };
        assert.equal(body.code, 'render.navigation');
        assert.match(body.fields['page.url'] ?? '', /refused by the egress policy: 127\.0\.0\.2 is a loopback address/, answer.path);
        assert.doesNotMatch(answer.body, new RegExp(internal.secret));
      }
      assertInternalUntouched();
    });

    it('does not follow a meta refresh, a script navigation or a framed redirect to the internal host', async () => {
      // Act
      const texts = [];
      for (const path of ['/meta-refresh', '/js-location', '/top-frame']) {
        const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}${path}`, waitForMilliseconds: 500 } } });
        texts.push(res.headers.get('content-type') === 'application/pdf' ? await pdfTextOf(res) : await res.text());
      }

      // Assess
      for (const text of texts) assert.doesNotMatch(text, new RegExp(internal.secret));
      assertInternalUntouched();
    });
  });

  describe('what the service calls', () => {
    it('does not follow a webhook redirect to the internal host', async () => {
      // Act
      const res = await service.request('/v1/pdf/async', { json: { page: { html: b64('<p>x</p>') }, webhook: { url: `${attacker.url}/hook-redirect` } } });
      const { id } = (await res.json()) as { id: string };
      // The attempt may be recorded a moment before its request reaches the receiver: wait for both.
      const attempted = await eventually(async () => {
        const job = (await (await service.request(`/v1/jobs/${id}`)).json()) as { webhook?: { attempts?: number } };
        return (job.webhook?.attempts ?? 0) >= 1 && attacker.requests.some((r) => r.startsWith('/hook-redirect'));
      }, 30_000);

      // Assess
      assert.equal(res.status, 201);
      assert.ok(attempted, 'the webhook was called, at the address given');
      assertInternalUntouched();
    });

    it('does not follow an upload redirect to the internal host, and reports the upload as failed', async () => {
      // Act
      const res = await service.request('/v1/pdf/sync', { json: { page: { html: b64('<p>x</p>') }, storage: { preSignedUrl: `${attacker.url}/upload-redirect` } } });
      const body = (await res.json()) as { signedUrlStatus: string };

      // Assess
      assert.equal(res.status, 200);
      assert.equal(body.signedUrlStatus, 'FAILED');
      assertInternalUntouched();
    });
  });
});
