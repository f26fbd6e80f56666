import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PdfAsyncRequestSchema, ScreenshotSyncRequestSchema } from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, fieldCases, parsed } from './validation-cases.js';

const HOOK = 'https://hooks.example.com/render-done';
const PRESIGNED =
  'https://bucket.s3.eu-west-1.amazonaws.com/out/doc.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20250101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Signature=abc123';

const NON_HTTP_URLS = [
  'file:///etc/passwd',
  ' FILE:///etc/passwd ',
  'javascript:alert(1)',
  'JAVASCRIPT:alert(1)',
  'data:text/plain,hi',
  'view-source:https://example.com',
  'chrome://version',
  'blob:https://example.com/0e3a',
  'ftp://files.example.com/up',
];

describe('StorageOptionsSchema', () => {
  const schema = ScreenshotSyncRequestSchema;
  const withStorage = (storage: unknown) => ({ page: { url: PAGE_URL }, storage });

  fieldCases({
    schema,
    field: 'storage.preSignedUrl',
    body: (preSignedUrl) => withStorage({ preSignedUrl }),
    accept: [PRESIGNED, 'http://s3.example.com:4566/bucket/key?sig=1'],
  });
  fieldCases({
    schema,
    field: 'storage.preSignedUrl',
    body: (preSignedUrl) => withStorage({ preSignedUrl }),
    reject: NON_HTTP_URLS,
    message: /^Only http and https URLs are allowed$/,
  });
  fieldCases({
    schema,
    field: 'storage.preSignedUrl',
    body: (preSignedUrl) => withStorage({ preSignedUrl }),
    reject: ['bucket/key', '', 5, null],
  });

  it('keeps the pre-signed URL byte for byte so its signature stays valid', () => {
    assert.equal(parsed(schema, withStorage({ preSignedUrl: PRESIGNED })).storage.preSignedUrl, PRESIGNED);
  });

  it('rejects storage without preSignedUrl with a 400 on storage.preSignedUrl', () => {
    const fields = assertRejected(schema, withStorage({}), 'storage.preSignedUrl');
    assert.equal(fields['storage.preSignedUrl'], 'Required');
  });

  it('rejects an unknown storage key by name', () => {
    assertRejected(schema, withStorage({ preSignedUrl: PRESIGNED, bucket: 'b' }), 'storage.bucket');
  });

  fieldCases({ schema, field: 'storage', body: withStorage, reject: [PRESIGNED, [PRESIGNED]] });
});

describe('WebhookOptionsSchema', () => {
  const schema = PdfAsyncRequestSchema;
  const withWebhook = (webhook: Record<string, unknown>) => ({ page: { url: PAGE_URL }, webhook: { url: HOOK, ...webhook } });

  fieldCases({
    schema,
    field: 'webhook.url',
    body: (url) => withWebhook({ url }),
    accept: [HOOK, 'http://hooks.example.com:8080/x?token=abc'],
  });
  fieldCases({
    schema,
    field: 'webhook.url',
    body: (url) => withWebhook({ url }),
    reject: NON_HTTP_URLS,
    message: /^Only http and https URLs are allowed$/,
  });
  fieldCases({ schema, field: 'webhook.url', body: (url) => withWebhook({ url }), reject: ['hooks.example.com', '', 1] });

  it('rejects a webhook without url with a 400 on webhook.url', () => {
    const fields = assertRejected(schema, { page: { url: PAGE_URL }, webhook: { method: 'POST' } }, 'webhook.url');
    assert.equal(fields['webhook.url'], 'Required');
  });

  fieldCases({
    schema,
    field: 'webhook.receiveType',
    body: (receiveType) => withWebhook({ receiveType }),
    accept: ['base64', 'URL'],
    reject: ['url', 'BASE64', 'binary', 0],
    message: /^Must be one of: base64, URL$/,
  });
  fieldCases({
    schema,
    field: 'webhook.method',
    body: (method) => withWebhook({ method }),
    accept: ['POST', 'PUT'],
    reject: ['GET', 'post', 'PATCH', 1],
    message: /^Must be one of: POST, PUT$/,
  });

  describe('headers', () => {
    fieldCases({
      schema,
      field: 'webhook.headers',
      body: (headers) => withWebhook({ headers }),
      accept: [{ Authorization: 'Bearer receiver-secret', 'X-Tenant': '42' }],
      reject: ['Authorization: x', ['x']],
    });

    it('rejects a non-string header value with a 400 on webhook.headers.<name>', () => {
      assertRejected(schema, withWebhook({ headers: { 'X-Tenant': 42 } }), 'webhook.headers.X-Tenant');
    });

    it('rejects an invalid header name with a 400 on that name', () => {
      assertRejected(schema, withWebhook({ headers: { 'X Tenant': '42' } }), 'webhook.headers.X Tenant');
    });

    // Two headers of 4 KiB each ('X-1' and 'X-2' are 3 bytes of name apiece): at the limit, then one byte over.
    const pair = (extra: number) => ({ 'X-1': 'v'.repeat(4096 - 3), 'X-2': 'v'.repeat(4096 - 3 + extra) });
    fieldCases({ schema, field: 'webhook.headers', body: (headers) => withWebhook({ headers }), accept: [pair(0)] });
    fieldCases({ schema, field: 'webhook.headers', body: (headers) => withWebhook({ headers }), reject: [pair(1)], message: /8 KB at most/ });
  });

  describe('metadata', () => {
    // {"k":"…"} is 8 bytes of JSON around the value.
    const sized = (bytes: number, char = 'x') => ({ k: char.repeat((bytes - 8) / Buffer.byteLength(char)) });

    it('accepts metadata of exactly 1024 bytes as JSON and keeps it', () => {
      // Prepare
      const metadata = sized(1024);
      assert.equal(Buffer.byteLength(JSON.stringify(metadata)), 1024);
      // Act
      const output = parsed(schema, withWebhook({ metadata }));
      // Assess
      assert.deepEqual(output.webhook.metadata, metadata);
    });

    it('rejects metadata of 1025 bytes as JSON with a 400 on webhook.metadata', () => {
      // Prepare
      const metadata = sized(1025);
      assert.equal(Buffer.byteLength(JSON.stringify(metadata)), 1025);
      // Act
      const fields = assertRejected(schema, withWebhook({ metadata }), 'webhook.metadata');
      // Assess
      assert.match(fields['webhook.metadata'] ?? '', /1024 bytes/);
    });

    it('counts UTF-8 bytes, not characters: 509 × "é" plus 8 is 1026 bytes', () => {
      // Prepare
      const metadata = { k: 'é'.repeat(509) };
      assert.ok(JSON.stringify(metadata).length < 1024);
      // Act / Assess
      assertRejected(schema, withWebhook({ metadata }), 'webhook.metadata');
    });

    it('rejects a metadata value that is not a string with a 400 on webhook.metadata.<key>', () => {
      assertRejected(schema, withWebhook({ metadata: { orderId: 42 } }), 'webhook.metadata.orderId');
    });

    it('rejects a nested object as metadata value with a 400 on webhook.metadata.<key>', () => {
      assertRejected(schema, withWebhook({ metadata: { order: { id: '1' } } }), 'webhook.metadata.order');
    });

    fieldCases({
      schema,
      field: 'webhook.metadata',
      body: (metadata) => withWebhook({ metadata }),
      reject: [['a'], 'orderId=1', 1],
    });
  });

  it('rejects an unknown webhook key by name', () => {
    const fields = assertRejected(schema, withWebhook({ secret: 'x' }), 'webhook.secret');
    assert.equal(fields['webhook.secret'], 'Unknown field');
  });
});
