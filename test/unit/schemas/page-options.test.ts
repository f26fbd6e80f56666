import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PdfRequestSchema, ScreenshotRequestSchema } from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, b64, fieldCases, parsed } from './validation-cases.js';

const schema = PdfRequestSchema;
const withPage = (page: Record<string, unknown>) => ({ page: { url: PAGE_URL, ...page } });
const field = (name: string) => (value: unknown) => withPage({ [name]: value });

// Every scheme spelling a browser would accept for something other than http(s).
const NON_HTTP_URLS = [
  'file:///etc/passwd',
  'FILE:///etc/passwd',
  ' FILE:///etc/passwd',
  'file:///etc/passwd  ',
  '\tfile:///etc/passwd',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'data:text/html,<h1>x</h1>',
  ' Data:text/html;base64,PGgxPng8L2gxPg==',
  'view-source:https://example.com',
  'chrome://settings',
  'CHROME://settings',
  'blob:https://example.com/2b5f1c70-0c2f-4d7a-8a0e-3b1c1c0e3b1c',
  'about:blank',
  'ftp://example.com/file',
  'ws://example.com/socket',
];

describe('PageOptionsSchema', () => {
  describe('url', () => {
    fieldCases({
      schema,
      field: 'page.url',
      body: (url) => ({ page: { url } }),
      accept: ['https://example.com/a?b=c#d', 'http://93.184.215.14:8080/', 'HTTPS://EXAMPLE.COM/'],
    });
    fieldCases({
      schema,
      field: 'page.url',
      body: (url) => ({ page: { url } }),
      reject: NON_HTTP_URLS,
      message: /^Only http and https URLs are allowed$/,
    });
    fieldCases({
      schema,
      field: 'page.url',
      body: (url) => ({ page: { url } }),
      reject: ['example.com', 'not a url', '/relative/path', 'https://', ''],
    });
    fieldCases({
      schema,
      field: 'page.url',
      body: (url) => ({ page: { url } }),
      reject: [42, true, {}, ['https://example.com']],
      message: /string/,
    });

    it('rejects a URL with a control character inside with a 400 on page.url', () => {
      assertRejected(schema, { page: { url: 'https://example.com/\u0001x' } }, 'page.url');
    });

    it('rejects a URL longer than 8192 characters with a 400 on page.url', () => {
      assertRejected(schema, { page: { url: `https://example.com/${'a'.repeat(8192)}` } }, 'page.url');
    });

    it('trims spaces around an http URL so the checked URL is the one navigated', () => {
      // Act
      const output = parsed(schema, { page: { url: '  https://example.com/  ' } });
      // Assess
      assert.equal(output.page.url, 'https://example.com/');
    });
  });

  describe('html and htmlTemplate', () => {
    for (const name of ['html', 'htmlTemplate']) {
      const body = (value: unknown) => ({ page: { [name]: value } });
      fieldCases({
        schema,
        field: `page.${name}`,
        body,
        accept: [
          b64('<h1>Invoice</h1>'),
          b64('<p>Grüße, 東京 🎉</p>'),
          // line-wrapped as the base64 CLI writes it
          b64('<p>' + 'x'.repeat(120) + '</p>').replace(/(.{76})/g, '$1\n'),
          // padding left off
          b64('<p>a</p>x').replace(/=+$/, ''),
        ],
      });
      fieldCases({
        schema,
        field: `page.${name}`,
        body,
        reject: [
          'this is not base64!',
          // URL-safe alphabet of "<p>?>?</p>" (standard: PHA+Pz4/PC9wPg==)
          'PHA-Pz4_PC9wPg==',
          'QQ=',
          'Q',
          'QQ==QQ==',
          'Q===',
        ],
        message: /^Must be valid base64$/,
      });
      fieldCases({
        schema,
        field: `page.${name}`,
        body,
        reject: [Buffer.from([0xff, 0xfe, 0x3c, 0x70]).toString('base64'), Buffer.from([0xc3, 0x28]).toString('base64')],
        message: /UTF-8/,
      });
      fieldCases({ schema, field: `page.${name}`, body, reject: ['', '  \n ', 12, { html: 'x' }] });
    }

    it('keeps the base64 exactly as sent, whitespace included', () => {
      // Prepare
      const wrapped = `${b64('<p>' + 'y'.repeat(100) + '</p>').slice(0, 40)}\n${b64('<p>' + 'y'.repeat(100) + '</p>').slice(40)}`;
      // Act
      const output = parsed(schema, { page: { html: wrapped } });
      // Assess
      assert.equal(output.page.html, wrapped);
    });
  });

  describe('templateData', () => {
    const body = (templateData: unknown) => ({ page: { htmlTemplate: b64('<p>{{name}}</p>'), templateData } });
    fieldCases({
      schema,
      field: 'page.templateData',
      body,
      accept: [{ name: 'Ada', items: [{ n: 1 }, { n: 2 }], nested: { deep: { yes: true } }, none: null }, {}],
    });
    fieldCases({ schema, field: 'page.templateData', body, reject: [[{ name: 'Ada' }], 'name=Ada', 5, true] });
  });

  describe('waitUntil', () => {
    fieldCases({
      schema,
      field: 'page.waitUntil',
      body: field('waitUntil'),
      accept: ['auto', 'load', 'domcontentloaded', 'networkidle0', 'networkidle2'],
    });
    fieldCases({
      schema,
      field: 'page.waitUntil',
      body: field('waitUntil'),
      reject: ['networkidle', 'LOAD', 'idle', '', 1],
      message: /^Must be one of: auto, load, domcontentloaded, networkidle0, networkidle2$/,
    });
  });

  describe('waitForMilliseconds', () => {
    fieldCases({ schema, field: 'page.waitForMilliseconds', body: field('waitForMilliseconds'), accept: [0, 5000, 2.5] });
    fieldCases({
      schema,
      field: 'page.waitForMilliseconds',
      body: field('waitForMilliseconds'),
      reject: [5001],
      message: /^Must be at most 5000$/,
    });
    fieldCases({
      schema,
      field: 'page.waitForMilliseconds',
      body: field('waitForMilliseconds'),
      reject: [-1],
      message: /^Must be at least 0$/,
    });
    fieldCases({ schema, field: 'page.waitForMilliseconds', body: field('waitForMilliseconds'), reject: ['100', true] });
  });

  describe('waitForSelector', () => {
    const selector = (value: unknown) => withPage({ waitForSelector: { selector: value } });
    const options = (value: Record<string, unknown>) => withPage({ waitForSelector: { selector: '#ready', options: value } });
    fieldCases({
      schema,
      field: 'page.waitForSelector.selector',
      body: selector,
      accept: ['a', 'x'.repeat(1024), 'main > .chart[data-ready="true"]'],
    });
    fieldCases({
      schema,
      field: 'page.waitForSelector.selector',
      body: selector,
      reject: ['', 'x'.repeat(1025), 7, null],
    });

    it('rejects a waitForSelector without selector with a 400 on page.waitForSelector.selector', () => {
      const fields = assertRejected(schema, withPage({ waitForSelector: { options: { visible: true } } }), 'page.waitForSelector.selector');
      assert.equal(fields['page.waitForSelector.selector'], 'Required');
    });

    fieldCases({
      schema,
      field: 'page.waitForSelector.options.timeout',
      body: (timeout) => options({ timeout }),
      accept: [0, 25_000],
    });
    fieldCases({
      schema,
      field: 'page.waitForSelector.options.timeout',
      body: (timeout) => options({ timeout }),
      reject: [-1, 25_001, 1.5, '1000'],
    });
    for (const flag of ['visible', 'hidden']) {
      fieldCases({
        schema,
        field: `page.waitForSelector.options.${flag}`,
        body: (value) => options({ [flag]: value }),
        accept: [true, false],
        reject: ['true', 1],
      });
    }

    it('rejects visible and hidden together with a 400 on page.waitForSelector.options.hidden', () => {
      assertRejected(schema, options({ visible: true, hidden: true }), 'page.waitForSelector.options.hidden');
    });

    it('rejects an unknown option by name', () => {
      const fields = assertRejected(schema, options({ timout: 100 }), 'page.waitForSelector.options.timout');
      assert.equal(fields['page.waitForSelector.options.timout'], 'Unknown field');
    });

    it('rejects an unknown key of waitForSelector by name', () => {
      assertRejected(schema, withPage({ waitForSelector: { selector: '#a', visible: true } }), 'page.waitForSelector.visible');
    });

    fieldCases({ schema, field: 'page.waitForSelector', body: field('waitForSelector'), reject: ['#ready', [], 3] });
  });

  describe('waitForFunction', () => {
    const fn = (value: unknown) => withPage({ waitForFunction: { pageFunction: value } });
    const options = (value: Record<string, unknown>) =>
      withPage({ waitForFunction: { pageFunction: 'window.ready === true', options: value } });
    fieldCases({
      schema,
      field: 'page.waitForFunction.pageFunction',
      body: fn,
      accept: ['1', 'x'.repeat(1024), 'document.querySelectorAll("img").length > 2'],
    });
    fieldCases({ schema, field: 'page.waitForFunction.pageFunction', body: fn, reject: ['', 'x'.repeat(1025), false] });

    it('rejects a waitForFunction without pageFunction with a 400 on page.waitForFunction.pageFunction', () => {
      assertRejected(schema, withPage({ waitForFunction: {} }), 'page.waitForFunction.pageFunction');
    });

    fieldCases({
      schema,
      field: 'page.waitForFunction.options.polling',
      body: (polling) => options({ polling }),
      accept: ['raf', 'mutation', 10, 25_000],
    });
    fieldCases({
      schema,
      field: 'page.waitForFunction.options.polling',
      body: (polling) => options({ polling }),
      reject: [9, 25_001, 100.5, 'fast', 'RAF', true],
    });
    fieldCases({
      schema,
      field: 'page.waitForFunction.options.timeout',
      body: (timeout) => options({ timeout }),
      accept: [0, 25_000],
      reject: [-1, 25_001, '5s'],
    });

    it('rejects an unknown option by name', () => {
      assertRejected(schema, options({ interval: 100 }), 'page.waitForFunction.options.interval');
    });
  });

  describe('headers', () => {
    fieldCases({
      schema,
      field: 'page.headers',
      body: field('headers'),
      accept: [{ 'X-Request-Id': 'abc', cookie: 'session=1; theme=dark', 'accept-language': 'de-CH' }, {}],
    });
    fieldCases({ schema, field: 'page.headers', body: field('headers'), reject: [[['x', 'y']], 'X-A: b', 4] });

    it('rejects a header value that is not a string with a 400 on page.headers.<name>', () => {
      assertRejected(schema, withPage({ headers: { 'X-Count': 5 } }), 'page.headers.X-Count');
    });

    it('rejects a header name that is not an HTTP token with a 400 on that name', () => {
      assertRejected(schema, withPage({ headers: { 'Bad Name': 'x' } }), 'page.headers.Bad Name');
    });

    it('rejects a header value with a line break (header injection) with a 400 on that name', () => {
      assertRejected(schema, withPage({ headers: { 'X-A': 'b\r\nX-Injected: 1' } }), 'page.headers.X-A');
    });

    // 'X-A' is 3 bytes of name: the value makes up the rest.
    fieldCases({ schema, field: 'page.headers', body: field('headers'), accept: [{ 'X-A': 'v'.repeat(8 * 1024 - 3) }] });
    fieldCases({ schema, field: 'page.headers', body: field('headers'), reject: [{ 'X-A': 'v'.repeat(8 * 1024 - 2) }], message: /8 KB at most/ });
  });

  describe('booleans', () => {
    for (const name of ['adblock', 'javascript']) {
      fieldCases({ schema, field: `page.${name}`, body: field(name), accept: [true, false], reject: ['false', 0, {}] });
    }
  });

  describe('cookies', () => {
    const cookie = { name: 'session', value: 'abc' };
    const withCookie = (extra: Record<string, unknown>) => withPage({ cookies: [{ ...cookie, ...extra }] });

    it('accepts a cookie with every field and keeps it', () => {
      // Prepare
      const full = {
        name: 'session',
        value: 'abc',
        domain: '.example.com',
        url: 'https://example.com/',
        path: '/',
        secure: true,
        httpOnly: true,
        sameSite: 'Strict',
        expires: 1_900_000_000,
      };
      // Act
      const output = parsed(schema, withPage({ cookies: [full] }));
      // Assess
      assert.deepEqual(output.page.cookies, [full]);
    });

    for (const sameSite of ['Strict', 'Lax', 'None']) {
      it(`accepts sameSite ${sameSite}`, () => {
        assert.equal(parsed(schema, withCookie({ sameSite })).page.cookies[0].sameSite, sameSite);
      });
    }

    it('accepts expires -1 (a session cookie as Chromium writes it)', () => {
      assert.equal(parsed(schema, withCookie({ expires: -1 })).page.cookies[0].expires, -1);
    });

    const rejected: Array<[string, Record<string, unknown>, string]> = [
      ['a missing name', { name: undefined }, 'page.cookies.0.name'],
      ['an empty name', { name: '' }, 'page.cookies.0.name'],
      ['a missing value', { value: undefined }, 'page.cookies.0.value'],
      ['a numeric value', { value: 5 }, 'page.cookies.0.value'],
      ['a lower-case sameSite', { sameSite: 'strict' }, 'page.cookies.0.sameSite'],
      ['an unknown sameSite', { sameSite: 'Whatever' }, 'page.cookies.0.sameSite'],
      ['a string secure', { secure: 'yes' }, 'page.cookies.0.secure'],
      ['a numeric httpOnly', { httpOnly: 1 }, 'page.cookies.0.httpOnly'],
      ['a date-string expires', { expires: '2030-01-01' }, 'page.cookies.0.expires'],
      ['expires below -1', { expires: -2 }, 'page.cookies.0.expires'],
      ['a numeric domain', { domain: 5 }, 'page.cookies.0.domain'],
      ['a numeric path', { path: 5 }, 'page.cookies.0.path'],
      ['a file: url', { url: 'file:///etc/passwd' }, 'page.cookies.0.url'],
      ['an unknown key', { size: 10 }, 'page.cookies.0.size'],
    ];
    for (const [what, extra, key] of rejected) {
      it(`rejects a cookie with ${what} with a 400 on ${key}`, () => {
        const input = withCookie(extra);
        // JSON has no undefined: drop the key instead.
        for (const [k, val] of Object.entries(extra)) if (val === undefined) delete (input as any).page.cookies[0][k];
        assertRejected(schema, input, key);
      });
    }

    it('names the index of the faulty cookie', () => {
      assertRejected(schema, withPage({ cookies: [cookie, { name: 'b' }] }), 'page.cookies.1.value');
    });

    fieldCases({ schema, field: 'page.cookies', body: field('cookies'), reject: [cookie, 'session=abc'] });

    it('rejects a cookie that is not an object with a 400 on page.cookies.0', () => {
      assertRejected(schema, withPage({ cookies: ['session=abc'] }), 'page.cookies.0');
    });
  });

  describe('authentication', () => {
    fieldCases({
      schema,
      field: 'page.authentication',
      body: field('authentication'),
      accept: [{ username: 'ada', password: 's3cret' }, { username: 'ada', password: '' }],
      reject: ['ada:s3cret', []],
    });

    it('rejects credentials without a password with a 400 on page.authentication.password', () => {
      assertRejected(schema, withPage({ authentication: { username: 'ada' } }), 'page.authentication.password');
    });

    it('rejects a numeric username with a 400 on page.authentication.username', () => {
      assertRejected(schema, withPage({ authentication: { username: 1, password: 'x' } }), 'page.authentication.username');
    });

    it('rejects an unknown key by name', () => {
      assertRejected(
        schema,
        withPage({ authentication: { username: 'a', password: 'b', realm: 'x' } }),
        'page.authentication.realm',
      );
    });
  });

  describe('colorScheme', () => {
    fieldCases({
      schema,
      field: 'page.colorScheme',
      body: field('colorScheme'),
      // interface.md: a string of at most 20 characters, nothing more; the browser emulates
      // light, dark and no-preference and keeps its default (light) for any other value.
      accept: ['light', 'dark', 'no-preference', 'sepia', 'x'.repeat(20), ''],
    });
    fieldCases({
      schema,
      field: 'page.colorScheme',
      body: field('colorScheme'),
      reject: ['x'.repeat(21)],
      message: /^Must be at most 20 characters$/,
    });
    fieldCases({ schema, field: 'page.colorScheme', body: field('colorScheme'), reject: [1] });
  });

  describe('mediaType', () => {
    fieldCases({
      schema,
      field: 'page.mediaType',
      body: field('mediaType'),
      accept: ['screen', 'print'],
      reject: ['tv', 'PRINT', 0],
      message: /^Must be one of: screen, print$/,
    });
  });

  describe('timezone', () => {
    fieldCases({
      schema,
      field: 'page.timezone',
      body: field('timezone'),
      accept: ['Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'UTC', 'US/Eastern', 'Etc/GMT+5'],
    });
    fieldCases({
      schema,
      field: 'page.timezone',
      body: field('timezone'),
      reject: ['Mars/Olympus_Mons', 'Europe/Pariss', '+01:00', 'GMT+1', '', 5],
    });
    fieldCases({
      schema,
      field: 'page.timezone',
      body: field('timezone'),
      reject: ['utc', 'europe/paris'],
      message: /did you mean (UTC|Europe\/Paris)\?/,
    });
    it('counts its 64-character limit in characters, as the OpenAPI document does (maxLength)', () => {
      // 40 characters outside the BMP: 80 UTF-16 units, within the 64 characters JSON Schema counts.
      const fields = assertRejected(schema, field('timezone')('\u{1D47B}'.repeat(40)), 'page.timezone');
      assert.match(fields['page.timezone'] ?? '', /^Unknown time zone/);
      assert.equal(assertRejected(schema, field('timezone')('A'.repeat(65)), 'page.timezone')['page.timezone'], 'Must be at most 64 characters');
    });
  });

  describe('unknown fields', () => {
    it('rejects a misspelt page field by name', () => {
      const fields = assertRejected(ScreenshotRequestSchema, withPage({ fullpage: true }), 'page.fullpage');
      assert.equal(fields['page.fullpage'], 'Unknown field');
    });

    it('rejects a page that is not an object with a 400 on page', () => {
      assertRejected(schema, { page: PAGE_URL }, 'page');
      assertRejected(schema, { page: [PAGE_URL] }, 'page');
    });
  });

  describe('null fields', () => {
    it('treats null optional fields as not given', () => {
      // Prepare
      const page = { url: PAGE_URL, html: null, waitUntil: null, cookies: null, timezone: null };
      // Act
      const output = parsed(schema, { page });
      // Assess
      assert.deepEqual(output.page, page);
    });
  });
});
