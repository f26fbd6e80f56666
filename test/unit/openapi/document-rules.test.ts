/**
 * The rules between fields that Schemathesis found missing from the OpenAPI
 * document (a body that fits the document was answered 400): each is now in
 * the document's JSON Schema, and the document and the validating schemas
 * agree on every case below, accepted and refused alike.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';
import { REQUEST_BODIES, type RequestBodyName } from '../../../lib/openapi/request-schemas.js';

const html = Buffer.from('<h1>Hi</h1>').toString('base64');

const CASES: { body: RequestBodyName; value: unknown; valid: boolean; why: string }[] = [
  { body: 'PdfRequest', value: { page: { html } }, valid: true, why: 'one source' },
  { body: 'PdfRequest', value: {}, valid: false, why: 'no page' },
  { body: 'PdfRequest', value: { page: null }, valid: false, why: 'a null page' },
  { body: 'PdfRequest', value: { page: {} }, valid: false, why: 'no source' },
  { body: 'PdfRequest', value: { page: { html, url: 'https://example.com' } }, valid: false, why: 'two sources' },
  { body: 'PdfRequest', value: { page: { html, url: null } }, valid: true, why: 'a null second source' },
  { body: 'PdfRequest', value: { page: { html, templateData: { a: 1 } } }, valid: false, why: 'templateData without htmlTemplate' },
  { body: 'PdfRequest', value: { page: { htmlTemplate: html, templateData: { a: 1 } } }, valid: true, why: 'templateData with htmlTemplate' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { width: 0 } }, valid: false, why: 'a paper width of 0' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { margin: { top: 0 } } }, valid: true, why: 'a margin of 0' },
  { body: 'PdfAsyncRequest', value: { page: { html } }, valid: false, why: 'no webhook on /async' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { quality: 50 } }, valid: false, why: 'quality with png by default' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { type: 'jpeg', quality: 50 } }, valid: true, why: 'quality with jpeg' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: {}, fullPage: true } }, valid: false, why: 'overlay with fullPage' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: {}, fullPage: false } }, valid: true, why: 'overlay without fullPage' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { device: 'iPhone X' } }, valid: true, why: 'a known device' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { device: 'iPhone 99' } }, valid: false, why: 'an unknown device' },
  { body: 'TemplateUpdateRequest', value: {}, valid: false, why: 'an empty update' },
  { body: 'TemplateUpdateRequest', value: { output: 'PDF' }, valid: true, why: 'an update of one field' },
];

describe('OpenAPI request bodies state the rules between fields', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...buildOpenApiDocument(), $id: 'urn:docrender:openapi' });

  for (const { body, value, valid, why } of CASES) {
    it(`${body}: ${why} is ${valid ? 'accepted' : 'refused'} by the document and by the service alike`, () => {
      // Act
      const byDocument = ajv.getSchema(`urn:docrender:openapi#/components/schemas/${body}`)!(value);
      const byService = v.safeParse(REQUEST_BODIES[body], value).success;

      // Assess
      assert.equal(byService, valid, `the service's schema on ${JSON.stringify(value)}`);
      assert.equal(byDocument, valid, `the document on ${JSON.stringify(value)}`);
    });
  }
});
