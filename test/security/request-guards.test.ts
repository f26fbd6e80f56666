import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningService } from '../helpers/service.js';
import { type AttackerSite, b64, errorOf, page, pdfTextOf, startAttackerSite, startSecuredService } from './attack-fixtures.js';

describe('security › headers and templates', () => {
  let service: RunningService;
  let site: AttackerSite;
  const html = b64('<p>x</p>');
  const webhook = { url: 'https://hooks.example.com/done' };

  before(async () => {
    site = await startAttackerSite({ '/': page('<p>echo</p>') });
    service = await startSecuredService();
  });

  after(async () => {
    await service?.stop();
    await site?.close();
  });

  describe('header guards', () => {
    const routing = ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Proxy-Authorization', 'Proxy-Connection', 'Upgrade', 'TE', 'Keep-Alive'];

    it('answers 400 naming each hop-by-hop or routing header in page.headers, before anything is loaded', async () => {
      // Act
      const answers = [];
      for (const name of routing) {
        const res = await service.request('/v1/pdf', { json: { page: { url: `${site.url}/`, headers: { [name]: 'evil.internal' } } } });
        answers.push({ name, status: res.status, body: await errorOf(res) });
      }

      // Assess
      for (const { name, status, body } of answers) {
        assert.equal(status, 400, name);
        assert.equal(typeof body.fields?.[`page.headers.${name}`], 'string', name);
      }
      assert.deepEqual(site.requests, []);
    });

    it('answers 400 naming routing and signature headers in webhook.headers', async () => {
      // Act
      const answers = [];
      for (const name of [...routing, 'webhook-id', 'Webhook-Timestamp', 'webhook-signature']) {
        const res = await service.request('/v1/pdf/async', { json: { page: { html }, webhook: { ...webhook, headers: { [name]: 'v1,forged' } } } });
        answers.push({ name, status: res.status, body: await errorOf(res) });
      }

      // Assess
      for (const { name, status, body } of answers) {
        assert.equal(status, 400, name);
        assert.equal(typeof body.fields?.[`webhook.headers.${name}`], 'string', name);
      }
    });

    it('answers 400 for CR, LF or NUL in header and cookie values', async () => {
      // Act
      const injected = ['x\r\nX-Injected: 1', 'x\nSet-Cookie: a=b', 'x\rEvil: 1', 'x\u0000y'];
      const answers = [];
      for (const value of injected) {
        const res = await service.request('/v1/pdf/async', {
          json: {
            page: { html, headers: { 'X-A': value }, cookies: [{ name: 'sid', value, url: 'https://example.com/' }] },
            webhook: { ...webhook, headers: { 'X-B': value } },
          },
        });
        answers.push({ status: res.status, body: await errorOf(res) });
      }

      // Assess
      for (const { status, body } of answers) {
        assert.equal(status, 400);
        assert.deepEqual(
          Object.keys(body.fields ?? {}).sort(),
          ['page.cookies.0.value', 'page.headers.X-A', 'webhook.headers.X-B'],
        );
      }
    });
  });

  describe('templates', () => {
    it('resolves nothing from prototypes', async () => {
      // Prepare
      const template = [
        '<p>a=[{{constructor}}]</p>',
        '<p>b=[{{constructor.name}}]</p>',
        '<p>c=[{{__proto__}}]</p>',
        '<p>d=[{{lookup this "constructor"}}]</p>',
        '<p>e=[{{#with constructor}}{{name}}{{/with}}]</p>',
        '<p>f=[{{#with (lookup this "__proto__")}}{{__defineGetter__}}{{/with}}]</p>',
        '<p>g=[{{user.constructor.constructor}}]</p>',
      ].join('');

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64(template), templateData: { user: { name: 'x' } } } } });
      const text = await pdfTextOf(res);

      // Assess
      assert.equal(res.status, 200);
      assert.doesNotMatch(text, /Object|Function|function|native code/);
      assert.match(text, /a=\[\]/);
      assert.match(text, /g=\[\]/);
    });

    it('never lets caller data pollute prototypes for a later render', async () => {
      // Prepare
      const polluting = { ['__proto__']: { polluted: 'POLLUTED' }, constructor: { prototype: { polluted: 'POLLUTED' } }, a: { ['__proto__']: { polluted: 'POLLUTED' } } };
      const first = await service.request('/v1/pdf', {
        body: JSON.stringify({ page: { htmlTemplate: b64('<p>one {{polluted}}</p>'), templateData: polluting } }),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });

      // Act
      const second = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64('<p>two [{{polluted}}] [{{a.polluted}}]</p>'), templateData: { a: {} } } } });
      const text = await pdfTextOf(second);

      // Assess
      assert.ok(first.status === 200 || first.status === 400, `first: ${first.status}`);
      assert.equal(second.status, 200);
      assert.match(text, /two \[\] \[\]/);
    });

    it('stops a template whose output explodes, answering 400 on page.htmlTemplate', async () => {
      // Prepare: 1000³ iterations if nothing stopped it.
      const template = '{{#each a}}{{#each ../a}}{{#each ../../a}}xxxxxxxxxx{{/each}}{{/each}}{{/each}}';
      const a = Array.from({ length: 1000 }, (_, i) => i);

      // Act
      const res = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64(template), templateData: { a } } } });

      // Assess
      assert.equal(res.status, 400);
      assert.equal(typeof (await errorOf(res)).fields?.['page.htmlTemplate'], 'string');
    });

    it('has no partials or helpers a template could recurse through', async () => {
      // Act
      const partial = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64('{{> self}}'), templateData: {} } } });
      const helper = await service.request('/v1/pdf', { json: { page: { htmlTemplate: b64('{{#recurse}}x{{/recurse}}{{log "logged-by-template-7f3a"}}'), templateData: {} } } });

      // Assess
      assert.equal(partial.status, 400);
      assert.equal(typeof (await errorOf(partial)).fields?.['page.htmlTemplate'], 'string');
      assert.ok(helper.status === 400 || helper.status === 200);
      // A word of its own: npm start's banner prints "Webhook signing secret".
      assert.doesNotMatch(service.output(), /logged-by-template-7f3a/);
    });
  });
});
