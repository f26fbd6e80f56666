/**
 * Every URL field of the OpenAPI document states the pattern the service
 * enforces (lib/validation/http-url-pattern.ts): a URL the document refuses
 * the service refuses, and a URL it takes the service takes. Schemathesis
 * found `webhook.url: "0"`, an overlay background and a cookie url that the
 * document took and the service refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';
import { REQUEST_BODIES, type RequestBodyName } from '../../../lib/openapi/request-schemas.js';
import { HTTP_URL_PATTERN } from '../../../lib/validation/http-url-pattern.js';

const html = Buffer.from('<h1>Hi</h1>').toString('base64');

/** Where a URL goes: the body, the field the service names, and the body holding a URL there. */
const URL_FIELDS: { body: RequestBodyName; field: string; holding: (url: string) => unknown }[] = [
  { body: 'PdfRequest', field: 'page.url', holding: (url) => ({ page: { url } }) },
  { body: 'PdfAsyncRequest', field: 'webhook.url', holding: (url) => ({ page: { html }, webhook: { url } }) },
  { body: 'PdfSyncRequest', field: 'storage.preSignedUrl', holding: (url) => ({ page: { html }, storage: { preSignedUrl: url } }) },
  { body: 'ProcessRequest', field: 'documentUrl', holding: (url) => ({ documentUrl: url }) },
  { body: 'PdfRequest', field: 'page.cookies.0.url', holding: (url) => ({ page: { html, cookies: [{ name: 'a', value: 'b', url }] } }) },
  { body: 'ScreenshotRequest', field: 'screenshot.overlay.background', holding: (url) => ({ page: { html }, screenshot: { overlay: { background: url } } }) },
  { body: 'BatchRequest', field: 'itemsUrl', holding: (url) => ({ itemsUrl: url }) },
  { body: 'TemplateCreateRequest', field: 'variables.page.url', holding: (url) => ({ name: 'x', variables: { page: { url } } }) },
  { body: 'MergeRequest', field: 'parts.0.page.url', holding: (url) => ({ parts: [{ page: { url } }] }) },
];

const REFUSED = ['0', 'http:', 'http://', 'http://1.2.3.999/', 'http://user%zz@host/', 'https://a.1/', 'https://example.com:65536/'];
const ACCEPTED = ['https://example.com/a', ' HTTPS://Example.COM:443/a?b#c ', 'https://bücher.example/x y'];

describe('the URL fields of the OpenAPI document', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const document = buildOpenApiDocument();
  ajv.addSchema({ ...document, $id: 'urn:docrender:openapi' });

  it('state the service pattern itself, not a looser one', () => {
    // Act
    const text = JSON.stringify(document);

    // Assess: page.url, webhook.url, storage.preSignedUrl, documentUrl, cookie url, overlay background, itemsUrl at least.
    assert.ok(text.split(JSON.stringify(HTTP_URL_PATTERN.source)).length - 1 >= 7);
  });

  for (const { body, field, holding } of URL_FIELDS) {
    // "0" is a CSS value too, which a background may be.
    for (const url of REFUSED.filter((url) => !(field === 'screenshot.overlay.background' && url === '0'))) {
      it(`refuses ${field} ${JSON.stringify(url)} in ${body}, as the service does`, () => {
        // Act
        const byDocument = ajv.getSchema(`urn:docrender:openapi#/components/schemas/${body}`)!(holding(url));
        const byService = v.safeParse(REQUEST_BODIES[body], holding(url));

        // Assess
        assert.equal(byDocument, false);
        assert.equal(byService.success, false);
        assert.ok(byService.issues.some((issue) => v.getDotPath(issue) === field), `${field}: ${byService.issues.map((issue) => `${v.getDotPath(issue)} ${issue.message}`).join('; ')}`);
      });
    }
    for (const url of ACCEPTED) {
      it(`takes ${field} ${JSON.stringify(url)} in ${body}, as the service does`, () => {
        // Act
        const validate = ajv.getSchema(`urn:docrender:openapi#/components/schemas/${body}`)!;
        const byDocument = validate(holding(url));
        const byService = v.safeParse(REQUEST_BODIES[body], holding(url));

        // Assess
        assert.equal(byDocument, true, JSON.stringify(validate.errors));
        assert.equal(byService.success, true, byService.success ? '' : byService.issues.map((issue) => `${v.getDotPath(issue)} ${issue.message}`).join('; '));
      });
    }
  }
});
