import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/validation/parse.js';
import { PdfAsyncRequestSchema, ScreenshotRequestSchema, ScreenshotSyncRequestSchema } from '../../../lib/schemas/render-requests.js';
import { TemplateCreateSchema } from '../../../lib/schemas/template-requests.js';

const html = Buffer.from('<p>x</p>').toString('base64');
const webhook = { url: 'https://hooks.example.com/done' };

/** The `fields` of the ValidationError a body raises, or undefined when it passes. */
function fieldsOf(schema: Parameters<typeof parseInput>[0], body: unknown): Record<string, string> | undefined {
  try {
    parseInput(schema, body);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error.fields;
  }
}

describe('up-front refusals of URLs the service would connect to', () => {
  const refusedUrls = [
    'http://127.0.0.1:9001/2018-06-01/runtime/invocation/next',
    'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data/iam/',
    'http://[fd00:ec2::254]/',
    'http://localhost:3000/',
    'http://10.0.0.1/',
  ];

  for (const url of refusedUrls) {
    it(`answers 400 on page.url for ${url}`, () => {
      // Act
      const fields = fieldsOf(ScreenshotRequestSchema, { page: { url } });

      // Assess
      assert.match(fields?.['page.url'] ?? '', /^Must point to a public address: /);
    });
  }

  for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/']) {
    it(`answers 400 on page.url for ${url}, an address spelled otherwise, saying what it reads as`, () => {
      // Act
      const fields = fieldsOf(ScreenshotRequestSchema, { page: { url } });

      // Assess
      assert.equal(fields?.['page.url'], 'Write the IPv4 address as four numbers 0-255 (this host reads as 127.0.0.1)');
    });
  }

  it('answers 400 on webhook.url for a metadata address', () => {
    // Act
    const fields = fieldsOf(PdfAsyncRequestSchema, { page: { html }, webhook: { url: 'http://169.254.170.2/v2/credentials' } });

    // Assess
    assert.match(fields?.['webhook.url'] ?? '', /cloud metadata address/);
  });

  it('answers 400 on storage.preSignedUrl for a loopback address', () => {
    // Act
    const fields = fieldsOf(ScreenshotSyncRequestSchema, { page: { html }, storage: { preSignedUrl: 'http://127.0.0.2:4566/bucket/key' } });

    // Assess
    assert.match(fields?.['storage.preSignedUrl'] ?? '', /loopback address/);
  });

  it('answers 400 on an overlay background image at a private address', () => {
    // Act
    const fields = fieldsOf(ScreenshotRequestSchema, { page: { html }, screenshot: { overlay: { background: 'http://192.168.1.1/bg.png' } } });

    // Assess
    assert.match(fields?.['screenshot.overlay.background'] ?? '', /private address/);
  });

  it('refuses a template that stores a private page.url', () => {
    // Act
    const fields = fieldsOf(TemplateCreateSchema, { name: 't', variables: { page: { url: 'http://127.0.0.1/' } } });

    // Assess
    assert.equal(typeof fields?.['variables.page.url'], 'string');
  });

  it('accepts public URLs and host names, which are judged when connecting', () => {
    // Act
    const fields = fieldsOf(PdfAsyncRequestSchema, { page: { url: 'https://example.com/' }, storage: { preSignedUrl: 'https://bucket.s3.amazonaws.com/k?X-Amz-Signature=1' }, webhook });

    // Assess
    assert.equal(fields, undefined);
  });

  const schemes = ['file:///etc/passwd', ' FILE:///etc/passwd', 'view-source:https://example.com', 'chrome://settings', 'data:text/html,x', 'JavaScript:alert(1)', 'blob:https://example.com/x', '\tjavascript:alert(1)'];
  for (const url of schemes) {
    it(`answers 400 on page.url for the scheme of ${JSON.stringify(url)}`, () => {
      // Act
      const fields = fieldsOf(ScreenshotRequestSchema, { page: { url } });

      // Assess
      assert.equal(typeof fields?.['page.url'], 'string');
    });
  }
});

describe('URLs a later step would throw on', () => {
  // Each one parses as a WHATWG URL; Node's HTTP client then throws `URIError: URI malformed` on it.
  const malformed = ['http://user%SZ@hooks.example.com/', 'https://u:p%@hooks.example.com/', 'http://%E0%A4%A@hooks.example.com/', 'http://a:%zz%@hooks.example.com/x'];

  for (const url of malformed) {
    it(`answers 400 naming each URL field for ${url}`, () => {
      // Act
      const asyncFields = fieldsOf(PdfAsyncRequestSchema, { page: { url }, storage: { preSignedUrl: url }, webhook: { url } });
      const overlay = fieldsOf(ScreenshotRequestSchema, { page: { html }, screenshot: { overlay: { background: url } } });

      // Assess
      for (const field of ['page.url', 'storage.preSignedUrl', 'webhook.url']) {
        assert.match(asyncFields?.[field] ?? '', /malformed percent escape/, field);
      }
      assert.match(overlay?.['screenshot.overlay.background'] ?? '', /malformed percent escape/);
    });
  }

  it('accepts well-formed escapes in the user-info, and odd escapes in the path and query', () => {
    // Act
    const fields = fieldsOf(PdfAsyncRequestSchema, {
      page: { url: 'https://user%20name:p%40ss@example.com/%zz?q=%' },
      storage: { preSignedUrl: 'https://bucket.example.com/key%2Fwith?X-Amz-Signature=%2B' },
      webhook: { url: 'https://hooks.example.com/%E2%9C%93' },
    });

    // Assess
    assert.equal(fields, undefined);
  });
});

describe('header guards', () => {
  const reserved = ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Proxy-Authorization', 'proxy-connection', 'Upgrade', 'TE', 'Keep-Alive', 'Trailer'];
  for (const name of reserved) {
    it(`answers 400 on page.headers.${name}`, () => {
      // Act
      const fields = fieldsOf(ScreenshotRequestSchema, { page: { html, headers: { [name]: 'x' } } });

      // Assess
      assert.match(fields?.[`page.headers.${name}`] ?? '', /cannot be set/);
    });

    it(`answers 400 on webhook.headers.${name}`, () => {
      // Act
      const fields = fieldsOf(PdfAsyncRequestSchema, { page: { html }, webhook: { ...webhook, headers: { [name]: 'x' } } });

      // Assess
      assert.match(fields?.[`webhook.headers.${name}`] ?? '', /cannot be set/);
    });
  }

  for (const name of ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE', 'X-Doczilla-Signature']) {
    it(`answers 400 on webhook.headers.${name}, a signature header`, () => {
      // Act
      const fields = fieldsOf(PdfAsyncRequestSchema, { page: { html }, webhook: { ...webhook, headers: { [name]: 'v1,forged' } } });

      // Assess
      assert.match(fields?.[`webhook.headers.${name}`] ?? '', /signs webhook calls/);
    });
  }

  it('keeps ordinary headers, cookies and authorization for the page and the webhook', () => {
    // Act
    const fields = fieldsOf(PdfAsyncRequestSchema, {
      page: { html, headers: { Authorization: 'Bearer abc', cookie: 'a=1; b=2', 'X-Tenant': 'acme' } },
      webhook: { ...webhook, headers: { Authorization: 'Bearer hook', 'X-Trace': '1' } },
    });

    // Assess
    assert.equal(fields, undefined);
  });

  for (const [label, value] of [['CR LF', 'a\r\nX-Injected: 1'], ['LF', 'a\nb'], ['CR', 'a\rb'], ['NUL', 'a\u0000b']] as const) {
    it(`answers 400 on a header value with ${label}`, () => {
      // Act
      const page = fieldsOf(ScreenshotRequestSchema, { page: { html, headers: { 'X-A': value } } });
      const hook = fieldsOf(PdfAsyncRequestSchema, { page: { html }, webhook: { ...webhook, headers: { 'X-A': value } } });

      // Assess
      assert.match(page?.['page.headers.X-A'] ?? '', /line breaks/);
      assert.match(hook?.['webhook.headers.X-A'] ?? '', /line breaks/);
    });

    it(`answers 400 on a cookie value with ${label}`, () => {
      // Act
      const fields = fieldsOf(ScreenshotRequestSchema, { page: { html, cookies: [{ name: 'sid', value, url: 'https://example.com/' }] } });

      // Assess
      assert.match(fields?.['page.cookies.0.value'] ?? '', /line breaks/);
    });
  }
});
