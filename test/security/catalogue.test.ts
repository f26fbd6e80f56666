/**
 * Payloads of the public attack catalogues (PayloadsAllTheThings' SSRF, XXE,
 * SSTI and header-injection pages, and what HackTricks lists for headless
 * browsers), each played against the running service, one case per class,
 * so that a guard that stops holding shows which payload got through.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import type { RunningService } from '../helpers/service.js';
import {
  type AttackerSite,
  b64,
  errorOf,
  type InternalHost,
  page,
  pdfTextOf,
  redirect,
  startAttackerSite,
  startInternalHost,
  startSecuredService,
} from './attack-fixtures.js';

/** A service-worker script that reaches for `target` from the worker, where no page interception looks. */
const serviceWorker = (target: string) => `
  self.addEventListener('install', (event) => event.waitUntil(fetch('${target}/sw-install').catch(() => {})));
  self.addEventListener('activate', () => { fetch('${target}/sw-activate').catch(() => {}); });`;

/** One page per way a page may reach the network, beyond those of `everyRequestKind`. */
function pagePayloads(target: string, port: number): Record<string, string> {
  const host = new URL(target).host;
  return {
    'link-prefetch': `<link rel="prefetch" href="${target}/prefetch"><link rel="preconnect" href="${target}"><link rel="dns-prefetch" href="${target}"><link rel="modulepreload" href="${target}/modulepreload.js"><link rel="prerender" href="${target}/prerender">`,
    'speculation-rules': `<script type="speculationrules">{"prerender":[{"source":"list","urls":["${target}/speculation"]}],"prefetch":[{"source":"list","urls":["${target}/speculation-prefetch"]}]}</script>`,
    'svg': `<svg width="20" height="20"><image href="${target}/svg-image" width="10" height="10"/><use href="${target}/use.svg#x"/><feImage href="${target}/feimage"/></svg>`,
    'css-urls': `<style>p { cursor: url("${target}/cursor"), auto; list-style-image: url("${target}/list"); mask-image: url("${target}/mask"); border-image: url("${target}/border") 30; background-image: image-set("${target}/image-set" 1x); } p::before { content: url("${target}/content"); }</style><p>x</p><ul><li>y</li></ul>`,
    'html-attributes': `<body background="${target}/body-bg"><table background="${target}/table-bg"><tr><td>x</td></tr></table><video poster="${target}/poster"><track src="${target}/track"></video><picture><source srcset="${target}/srcset"><img src="data:,"></picture><img srcset="${target}/img-srcset 1x"><input type="image" src="${target}/input-image"><embed src="${target}/embed"><iframe srcdoc="<img src='${target}/srcdoc'>"></iframe><iframe src="data:text/html,<img src='${target}/data-frame'>"></iframe><a ping="${target}/ping" href="#x" id="pinger">x</a><script>document.getElementById('pinger').click()</script>`,
    'base-href': `<base href="${target}/"><img src="relative-img"><link rel="stylesheet" href="relative.css">`,
    'scripts': `<script src="${target}/script.js"></script><script type="module">import('${target}/module.js').catch(() => {});</script><script>fetch('${target}/keepalive', { method: 'POST', keepalive: true, body: 'x' }).catch(() => {}); new Image().src = '${target}/image-object';</script>`,
    'workers': `<script>
      try { new SharedWorker(URL.createObjectURL(new Blob(["fetch('${target}/shared-worker').catch(() => {})"]))); } catch {}
      try { new Worker(URL.createObjectURL(new Blob(["try { importScripts('${target}/import-scripts.js'); } catch {}"]))); } catch {}
      try { new Worker(URL.createObjectURL(new Blob(["import('${target}/worker-module.js').catch(() => {})"], { type: 'text/javascript' })), { type: 'module' }); } catch {}
    </script>`,
    'service-worker': `<script>navigator.serviceWorker && navigator.serviceWorker.register('/sw.js').catch(() => {});</script>`,
    'popups-and-forms': `<a href="${target}/blank" target="_blank" id="blank">x</a><form action="${target}/form-top" target="_top" method="GET" id="f"></form><script>window.open('${target}/window-open'); document.getElementById('blank').click(); setTimeout(() => document.getElementById('f').submit(), 10);</script>`,
    'url-confusion': `<img src="http://${host.replace('127.0.0.2', '127.0.0.1')}\\@127.0.0.2:${port}/backslash"><img src="http://127.0.0.1:${port}@127.0.0.2:${port}/userinfo"><img src="http://127.0.0.2%2e:${port}/percent-dot"><img src="http://１２７.０.０.２:${port}/fullwidth"><img src="http://127.0.0.2.:${port}/trailing-dot"><img src="http://127.000.000.002:${port}/zero-padded"><img src="http://[::ffff:7f00:2]:${port}/mapped-hex"><img src="http://[0:0:0:0:0:ffff:127.0.0.2]:${port}/mapped-long"><img src="http://0x7f.0x0.0x0.0x2:${port}/hex-parts"><img src="http://017700000002:${port}/octal-whole"><img src="http://127.0.0.2:${port}\t/tab"><img src="http://127.0.0.2:0${port}/port-zero-padded">`,
    'webtransport': `<script>try { new WebTransport('https://${host}/wt').ready.catch(() => {}); } catch {}</script>`,
    'webrtc': `<script>
      (async () => {
        for (const urls of ['stun:127.0.0.2:${port}', 'turn:127.0.0.2:${port}?transport=udp', 'turn:127.0.0.2:${port}?transport=tcp']) {
          try {
            const pc = new RTCPeerConnection({ iceServers: [{ urls, username: 'u', credential: 'c' }] });
            pc.createDataChannel('x');
            await pc.setLocalDescription(await pc.createOffer());
          } catch {}
        }
      })();
    </script>`,
  };
}

describe('security › catalogue: public payloads, one case per class', () => {
  let service: RunningService;
  let internal: InternalHost;
  let attacker: AttackerSite;
  let udp: UdpSocket;
  let datagrams = 0;

  before(async () => {
    internal = await startInternalHost();
    // WebTransport, STUN and TURN over UDP would reach the same port over UDP, where no proxy is.
    udp = createSocket('udp4');
    udp.on('message', () => (datagrams += 1));
    udp.bind(internal.port, '127.0.0.2');
    await once(udp, 'listening');
    const routes: Parameters<typeof startAttackerSite>[0] = {
      '/sw.js': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(serviceWorker(internal.url));
      },
      '/xxe.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY file SYSTEM "file:///etc/passwd"><!ENTITY remote SYSTEM "${internal.url}/xxe"><!ENTITY % dtd SYSTEM "${internal.url}/xxe.dtd"> %dtd;]><r xmlns="http://www.w3.org/1999/xhtml"><p>xxe [&file;] [&remote;]</p></r>`);
      },
      '/xslt.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="/xslt.xsl"?><r/>`);
      },
      '/xslt.xsl': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><html><body><p>xslt [<xsl:copy-of select="document('${internal.url}/xslt-document')"/>] [<xsl:copy-of select="document('file:///etc/passwd')"/>]</p></body></html></xsl:template></xsl:stylesheet>`);
      },
      '/redirect-file': redirect('file:///etc/passwd'),
      '/redirect-view-source': redirect('view-source:file:///etc/passwd'),
      '/redirect-data': redirect('data:text/html,<p>data-redirect-7f3a</p>'),
      '/redirect-javascript': redirect('javascript:document.write("js-redirect-7f3a")'),
      '/redirect-chrome': redirect('chrome://version'),
      '/refresh-file': page('<meta http-equiv="refresh" content="0;url=file:///etc/passwd"><p>public page</p>'),
      '/location-file': page('<p>public page</p><script>location.href = "file:///etc/passwd";</script>'),
      '/svg-doc.svg': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        res.end(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50"><image xlink:href="${internal.url}/svg-doc-image" width="10" height="10"/><foreignObject width="50" height="50"><iframe xmlns="http://www.w3.org/1999/xhtml" src="${internal.url}/svg-foreign"/></foreignObject><script>fetch('${internal.url}/svg-script').catch(() => {})</script></svg>`);
      },
    };
    attacker = await startAttackerSite(routes);
    // The payloads need the internal port, known only now: routes are looked up on each request.
    for (const [name, markup] of Object.entries(pagePayloads(internal.url, internal.port))) {
      routes[`/payload/${name}`] = page(`<!doctype html><html><body><p>public page</p>${markup}</body></html>`);
    }
    service = await startSecuredService();
  });

  after(async () => {
    await service?.stop();
    await attacker?.close();
    await internal?.close();
    udp?.close();
  });

  beforeEach(() => {
    internal.reset();
    datagrams = 0;
  });

  const assertInternalUntouched = (label: string) => {
    assert.deepEqual(
      { requests: internal.requests, upgrades: internal.upgrades, connections: internal.connections(), datagrams },
      { requests: [], upgrades: [], connections: 0, datagrams: 0 },
      label,
    );
  };

  describe('a page that reaches for the internal host', () => {
    for (const name of Object.keys(pagePayloads('http://127.0.0.2:1', 1))) {
      it(`reaches nothing with ${name}, as page.url and as page.html`, { timeout: 60_000 }, async () => {
        // Act
        const byUrl = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}/payload/${name}`, adblock: false, waitUntil: 'networkidle0' } } });
        const byUrlText = byUrl.status === 200 ? await pdfTextOf(byUrl) : await byUrl.text();
        const markup = pagePayloads(internal.url, internal.port)[name] ?? '';
        const byHtml = await service.request('/v1/pdf', { json: { page: { html: b64(`<p>public page</p>${markup}`), adblock: false, waitUntil: 'networkidle0' } } });
        const byHtmlText = byHtml.status === 200 ? await pdfTextOf(byHtml) : await byHtml.text();

        // Assess: a page that navigates its top frame to the internal host fails as a refused navigation.
        for (const [res, text] of [[byUrl, byUrlText], [byHtml, byHtmlText]] as const) {
          if (res.status !== 200) {
            assert.equal(res.status, 400, text);
            assert.match(text, /render\.navigation.*refused by the egress policy/, text);
          }
        }
        assert.doesNotMatch(byUrlText + byHtmlText, new RegExp(internal.secret));
        assertInternalUntouched(name);
      });
    }

    it('sends link-local, metadata and private literals through the proxy, which refuses each (no implicit bypass)', { timeout: 60_000 }, async () => {
      // Prepare: Chromium sends link-local literals around any proxy unless told `<-loopback>`; a request
      // that went around would leave no refusal in the log (and, on EC2 or ECS, would reach the metadata service).
      const targets = ['169.254.169.254', '169.254.170.2', '[fe80::1]', '[fd00:ec2::254]', '10.0.0.1', '100.64.0.1', '0.0.0.0', '[::ffff:169.254.169.254]'];
      const markup = targets.map((host, i) => `<img src="http://${host}:${8000 + i}/latest/meta-data/"><script>fetch('http://${host}:${8000 + i}/fetch').catch(() => {});</script>`).join('');
      const logged = service.output().length;

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { html: b64(`<p>public page</p>${markup}`), adblock: false, waitUntil: 'networkidle0' } } });
      await res.arrayBuffer();

      // Assess
      const events = service
        .output()
        .slice(logged)
        .split('\n')
        .filter((line) => line.includes('"egress refused"'))
        .map((line) => (JSON.parse(line) as { egress: { host: string; port: number } }).egress);
      assert.equal(res.status, 200);
      for (const [i, host] of targets.entries()) {
        const bare = host.replace(/^\[|\]$/g, '');
        // 0.0.0.0 Chromium may refuse on its own (Private Network Access); then nothing leaves either.
        if (bare === '0.0.0.0' && !events.some((e) => e.port === 8000 + i)) continue;
        assert.ok(events.some((e) => e.port === 8000 + i), `${host} went around the proxy: ${JSON.stringify(events)}`);
      }
    });

    const documents = [
      ['XML entities (XXE)', 'xxe'],
      ['XSLT document()', 'xslt'],
    ] as const;
    for (const [how, name] of documents) {
      it(`reads no file and reaches nothing through ${how}`, { timeout: 60_000 }, async () => {
        // Act
        const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}/${name}.xml`, waitUntil: 'networkidle0' } } });
        const text = res.status === 200 ? await pdfTextOf(res) : await res.text();

        // Assess
        assert.doesNotMatch(text, /root:x?:0:0/);
        assert.doesNotMatch(text, new RegExp(internal.secret));
        assertInternalUntouched(name);
      });
    }

    it('reaches nothing from an SVG document (image, foreignObject frame, script)', { timeout: 60_000 }, async () => {
      // Act
      const res = await service.request('/v1/screenshot', { json: { page: { url: `${attacker.url}/svg-doc.svg`, waitUntil: 'networkidle0' } } });

      // Assess
      assert.equal(res.status, 200);
      assertInternalUntouched('svg document');
    });

    it('reads no local file from page.html (file: in frames, images, fetch, links)', { timeout: 60_000 }, async () => {
      // Prepare
      const markup = `<p>public page</p><iframe src="file:///etc/passwd"></iframe><iframe src="view-source:file:///etc/passwd"></iframe><object data="file:///etc/passwd"></object><embed src="file:///proc/self/environ"><link rel="stylesheet" href="file:///etc/passwd"><script>fetch('file:///etc/passwd').then((r) => r.text()).then((t) => document.body.append(t), () => {}); const x = new XMLHttpRequest(); try { x.open('GET', 'file:///etc/passwd', false); x.send(); document.body.append(x.responseText); } catch {}</script>`;

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { html: b64(markup), waitUntil: 'networkidle0' } } });
      const text = res.status === 200 ? await pdfTextOf(res) : await res.text();

      // Assess
      assert.equal(res.status, 200);
      assert.doesNotMatch(text, /root:x?:0:0|AWS_|PATH=/);
    });

    it('loads nothing and reads no file from a PDF header or footer', { timeout: 60_000 }, async () => {
      // Prepare
      const markup = `<span>hdr</span><img src="${internal.url}/header-img"><img src="file:///etc/passwd"><iframe src="file:///etc/passwd"></iframe><iframe src="${internal.url}/header-frame"></iframe><object data="${internal.url}/header-object"></object><style>span { background: url("${internal.url}/header-bg"); }</style><script>fetch('${internal.url}/header-fetch').catch(() => {});</script>`;

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { html: b64('<p>body</p>') }, pdf: { displayHeaderFooter: true, headerHtml: b64(markup), footerHtml: b64(markup) } } });
      const text = res.status === 200 ? await pdfTextOf(res) : await res.text();

      // Assess
      assert.equal(res.status, 200, text);
      assert.doesNotMatch(text, /root:x?:0:0/);
      assertInternalUntouched('header and footer');
    });

    it('answers 400 naming pdf.headerHtml and pdf.footerHtml, never 500, when they load a stylesheet', { timeout: 60_000 }, async () => {
      // Prepare: Chromium fails the whole print on a header or footer stylesheet.
      const link = `<span>hdr</span><link rel="stylesheet" href="${internal.url}/header-css">`;
      const imported = `<style>@import url("${attacker.url}/footer-import.css");</style><span>ftr</span>`;

      // Act
      const both = await service.request('/v1/pdf', { json: { page: { html: b64('<p>body</p>') }, pdf: { displayHeaderFooter: true, headerHtml: b64(link), footerHtml: b64(imported) } } });
      const footerOnly = await service.request('/v1/pdf', { json: { page: { html: b64('<p>body</p>') }, pdf: { displayHeaderFooter: true, footerHtml: b64(imported) } } });
      const next = await service.request('/v1/pdf', { json: { page: { html: b64('<p>body</p>') }, pdf: { displayHeaderFooter: true, headerHtml: b64('<span>plain</span>') } } });

      // Assess
      const bothBody = await errorOf(both);
      assert.equal(both.status, 400, JSON.stringify(bothBody));
      assert.equal(bothBody.code, 'api.validation');
      assert.match(bothBody.fields?.['pdf.headerHtml'] ?? '', /stylesheet/);
      assert.match(bothBody.fields?.['pdf.footerHtml'] ?? '', /stylesheet/);
      const footerBody = await errorOf(footerOnly);
      assert.equal(footerOnly.status, 400, JSON.stringify(footerBody));
      assert.deepEqual(Object.keys(footerBody.fields ?? {}), ['pdf.footerHtml']);
      assert.equal(next.status, 200);
      assertInternalUntouched('header stylesheet');
    });

    for (const path of ['/redirect-file', '/redirect-view-source', '/redirect-data', '/redirect-javascript', '/redirect-chrome', '/refresh-file', '/location-file']) {
      it(`shows no local file or other scheme's document after ${path}`, { timeout: 60_000 }, async () => {
        // Act
        const res = await service.request('/v1/pdf', { json: { page: { url: `${attacker.url}${path}`, waitForMilliseconds: 300 } } });
        const text = res.status === 200 ? await pdfTextOf(res) : await res.text();

        // Assess
        assert.ok(res.status === 200 || res.status === 400, `${res.status} ${text}`);
        assert.doesNotMatch(text, /root:x?:0:0|data-redirect-7f3a|js-redirect-7f3a|Command Line|User Agent/);
      });
    }

    it('shows no browser-internal page in a frame (chrome:, devtools:, chrome-extension:)', { timeout: 60_000 }, async () => {
      // Prepare
      const markup = `<p>public page</p><iframe src="chrome://version"></iframe><iframe src="chrome://settings"></iframe><iframe src="devtools://devtools/bundled/inspector.html"></iframe><iframe src="chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html"></iframe><iframe src="chrome://gpu"></iframe>`;

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { html: b64(markup), waitUntil: 'networkidle0' } } });
      const text = res.status === 200 ? await pdfTextOf(res) : await res.text();

      // Assess
      assert.equal(res.status, 200);
      assert.doesNotMatch(text, /Command Line|User Agent|Graphics Feature Status|Executable Path/i);
    });
  });

  describe('up-front refusals: the rest of the SSRF catalogue', () => {
    const refused = [
      // The suite's service may reach 127.0.0.1 (it plays the internet): loopback is played by 127.0.0.2.
      'http://127.2/',
      'http://0/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:0:7f00:2]/',
      'http://[::127.0.0.2]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b:1::1]/',
      'http://[2002:7f00:1::]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[fd00:ec2::254]/',
      'http://[fd00:ec2::23]/',
      'http://169.254.169.254/latest/api/token',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://0251.0376.0251.0376/',
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://169.254.43518/',
      'http://169.254.170.23/v1/credentials',
      'http://127.0.0.2:9001/2018-06-01/runtime/invocation/next',
      'http://[::ffff:127.0.0.2]:9001/2018-06-01/runtime/invocation/next',
      'http://100.64.0.1/',
      'http://198.18.0.1/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://１６９.２５４.１６９.２５４/',
      'http://169.254.169.254%2e/',
      'http://169%2e254%2e169%2e254/',
      'http://user:pass@169.254.169.254/',
      'http://169.254.169.254\\@example.com/',
      'http://169.254.169.254\t/',
      'http://16\n9.254.169.254/',
      'HTTP://169.254.169.254/',
      'http://169.254.169.254:80/',
      'https://169.254.169.254:443/',
      'http://localhost./',
      'http://LocalHost/',
      'http://a.b.localhost/',
      'http://localhost.localdomain/',
      'http://999.1.1.1/',
      'http://1.2.3.4.5/',
    ];
    for (const url of refused) {
      it(`answers 400 api.validation on page.url, webhook.url and storage.preSignedUrl for ${JSON.stringify(url)}`, async () => {
        // Act
        const res = await service.request('/v1/pdf/async', { json: { page: { url }, webhook: { url }, storage: { preSignedUrl: url } } });
        const body = await errorOf(res);

        // Assess
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.code, 'api.validation');
        for (const field of ['page.url', 'webhook.url', 'storage.preSignedUrl']) assert.equal(typeof body.fields?.[field], 'string', `${field}: ${JSON.stringify(body)}`);
      });
    }
  });

  describe('ids and tokens', () => {
    const ids = ['..', '..%2F..%2Fx', '%2e%2e%2f', '..%5c..%5cx', 'x%00y', '%0d%0aSet-Cookie:%20a=b', 'A'.repeat(4096)];
    for (const id of ids) {
      it(`answers 404 or 400, never 5xx, for the id ${JSON.stringify(id.slice(0, 40))}`, async () => {
        // Act
        const answers = await Promise.all([
          service.request(`/v1/templates/${id}`),
          service.request(`/v1/jobs/${id}`),
          service.request(`/v1/templates/${id}`, { method: 'DELETE' }),
          service.request(`/v1/template/${id}`, { json: {} }),
        ]);

        // Assess
        for (const res of answers) {
          assert.ok(res.status === 404 || res.status === 400, `${res.url} ${res.status}`);
          assert.equal(res.headers.get('set-cookie'), null);
        }
      });
    }

    it('answers 401 for every malformed or altered bearer token', async () => {
      // Prepare
      const token = service.token;
      const headers = [
        '',
        'Bearer',
        'Bearer ',
        `bearer${token}`,
        `Basic ${Buffer.from(`${token}:`).toString('base64')}`,
        `Bearer ${token.toUpperCase()}`,
        `Bearer ${token.slice(0, -1)}`,
        `Bearer ${token}x`,
        `Bearer ${token} ${token}`,
        `Bearer ${token},Bearer ${token}`,
        `Bearer "${token}"`,
        `Bearer ${encodeURIComponent(token)}%00`,
        `Token ${token}`,
        'Bearer *',
        'Bearer %',
        `Bearer ${'A'.repeat(600)}`,
      ];

      // Act
      const statuses = [];
      for (const header of headers) {
        const res = await service.request('/v1/usage', { token: null, headers: header === '' ? {} : { authorization: header } });
        statuses.push({ header: header.slice(0, 40), status: res.status });
      }
      const viaQuery = await service.request(`/v1/usage?token=${token}&access_token=${token}`, { token: null });

      // Assess
      for (const { header, status } of statuses) assert.equal(status, 401, header);
      assert.equal(viaQuery.status, 401);
    });
  });

  describe('templates', () => {
    it('answers 400 on page.htmlTemplate for an inline partial, which would multiply output outside the #each budget', async () => {
      // Prepare: each level calls the one below ten times; nine levels would be 10 GB of HTML from 1 KB.
      const name = (i: number) => String.fromCharCode(97 + i);
      let bomb = `{{#*inline "${name(0)}"}}xxxxxxxxxx{{/inline}}`;
      for (let i = 1; i <= 9; i += 1) bomb += `{{#*inline "${name(i)}"}}${`{{> ${name(i - 1)}}}`.repeat(10)}{{/inline}}`;
      bomb += '{{> a}}';

      // Act: the bomb calls only the smallest partial, so that a service without the guard is not the one hurt.
      const res = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64(bomb), templateData: {} } } });
      const body = await errorOf(res);
      const stored = await service.request('/v1/templates', { json: { name: 'inline', variables: { page: { htmlTemplate: b64('{{#*inline "p"}}x{{/inline}}{{> p}}') } } } });
      const storedId = stored.status === 201 ? ((await stored.json()) as { id: string }).id : '';
      const rendered = storedId ? await service.request(`/v1/template/${storedId}`, { json: {} }) : undefined;

      // Assess
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(body.fields?.['page.htmlTemplate'] ?? '', /inline/);
      if (rendered) assert.equal(rendered.status, 400);
    });
  });

  describe('bodies', () => {
    it('answers 400, never 5xx, for JSON nested 100 000 deep and for a body over the limit', async () => {
      // Prepare
      const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
      const deepArray = `{"page":{"html":"eA==","templateData":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;

      // Act
      const answers = [];
      for (const body of [deep, deepArray]) {
        const res = await service.request('/v1/pdf', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        answers.push(res.status);
      }
      const big = await service.request('/v1/pdf', { method: 'POST', body: `{"page":{"html":"${'A'.repeat(12 * 1024 * 1024)}"}}`, headers: { 'content-type': 'application/json' } });

      // Assess
      for (const status of answers) assert.equal(status, 400);
      assert.ok(big.status === 413 || big.status === 400, `${big.status}`);
    });
  });
});
