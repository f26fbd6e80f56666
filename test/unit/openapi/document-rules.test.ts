/**
 * The rules that Schemathesis found missing from the OpenAPI document (a
 * body that fits the document was answered 400): base64 grammars, minimum
 * lengths, the bytes a file starts with, exactly-one sources and forbidden
 * combinations. Each is now in the document's JSON Schema, and the document
 * and the validating schemas agree on every case below, accepted and refused
 * alike. (What JSON Schema cannot say is listed in test/api-fuzz/hooks.py.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { ValidationError } from '../../../lib/errors.js';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { REQUEST_BODIES, type RequestBodyName } from '../../../lib/openapi/request-schemas.js';
import { jpegHeader, zeroPng } from '../../helpers/hostile-images.js';

const html = Buffer.from('<h1>Hi</h1>').toString('base64');
// Real headers: the service reads what an image declares before it takes it (lib/input/image-header.ts).
const png = zeroPng(4, 4).toString('base64');
const jpeg = jpegHeader(4, 4).toString('base64');
const pdf = Buffer.from('%PDF-1.7\n%%EOF\n').toString('base64');
const attachment = { name: 'data.csv', content: Buffer.from('a,b\n').toString('base64'), mimeType: 'text/csv' };

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
  // Issue 39: rules of single fields and between fields that were in words only.
  { body: 'PdfRequest', value: { page: { html: '' } }, valid: false, why: 'an empty html' },
  { body: 'PdfRequest', value: { page: { html: '  \n' } }, valid: false, why: 'an html of whitespace only' },
  { body: 'PdfRequest', value: { page: { html: 'PGgxPg' } }, valid: true, why: 'an html without padding' },
  { body: 'PdfRequest', value: { page: { html: 'PGgx\nPg==' } }, valid: true, why: 'a line-wrapped, padded html' },
  { body: 'PdfRequest', value: { page: { html: 'PGgxPg=' } }, valid: false, why: 'an html with wrong padding' },
  { body: 'PdfRequest', value: { page: { html: '<h1>Hi</h1>' } }, valid: false, why: 'an html that is not base64' },
  { body: 'PdfRequest', value: { page: { html: 'PGgxPg-_' } }, valid: false, why: 'an html in the URL-safe alphabet' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { headerHtml: '' } }, valid: true, why: 'an empty headerHtml' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { footerHtml: 'x' } }, valid: false, why: 'a footerHtml of one base64 character' },
  { body: 'PdfRequest', value: { page: { htmlTemplate: html, templateData: 5 } }, valid: false, why: 'templateData that is no object' },
  { body: 'PdfRequest', value: { page: { html, headers: { 'bad name': 'x' } } }, valid: false, why: 'a header name that is no HTTP token' },
  { body: 'PdfRequest', value: { page: { html, headers: { HOST: 'x' } } }, valid: false, why: 'a Host header' },
  { body: 'PdfRequest', value: { page: { html, headers: { 'Proxy-Authorization': 'x' } } }, valid: false, why: 'a Proxy- header' },
  { body: 'PdfRequest', value: { page: { html, headers: { 'X-Trace': 'x' } } }, valid: true, why: 'an ordinary header' },
  { body: 'PdfAsyncRequest', value: { page: { html }, webhook: { url: 'https://example.com/hook', headers: { 'Webhook-Signature': 'x' } } }, valid: false, why: 'a webhook signature header' },
  { body: 'PdfRequest', value: { page: { html, cookies: [{ name: 'a', value: 'b', url: 'ftp://example.com/' }] } }, valid: false, why: 'an ftp cookie url' },
  { body: 'PdfRequest', value: { page: { html, cookies: [{ name: 'a', value: 'b', url: 'HTTPS://example.com/' }] } }, valid: true, why: 'an https cookie url' },
  { body: 'PdfRequest', value: { page: { html, cookies: [{ name: 'a', value: 'b', domain: 'example.com' }] } }, valid: true, why: 'a cookie with a domain on an HTML page' },
  { body: 'PdfRequest', value: { page: { url: 'https://example.com/', cookies: [{ name: 'a', value: 'b' }] } }, valid: true, why: "a cookie for the page's URL" },
  { body: 'PdfRequest', value: { page: { html, waitForSelector: { selector: 'h1', options: { visible: true, hidden: true } } } }, valid: false, why: 'visible and hidden' },
  { body: 'PdfRequest', value: { page: { html, waitForSelector: { selector: 'h1', options: { visible: true, hidden: false } } } }, valid: true, why: 'visible, not hidden' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pageRanges: '0' } }, valid: false, why: 'page 0' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pageRanges: 'one' } }, valid: false, why: 'page ranges in words' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pageRanges: ' 1-3, 05 ,-2, 7- ' } }, valid: true, why: 'page ranges of every shape' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pageRanges: '' } }, valid: true, why: 'empty page ranges' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: {} } }, valid: false, why: 'a watermark without text or image' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { text: 'DRAFT', image: png } } }, valid: false, why: 'a watermark with text and image' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { image: png, fontSize: 12 } } }, valid: false, why: 'an image watermark with a fontSize' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { image: png } } }, valid: true, why: 'a PNG watermark' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { image: jpeg } } }, valid: true, why: 'a JPEG watermark' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { level: 'B-B' } } }, valid: true, why: 'a signature' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { appearance: { page: 0, x: 10, y: 10, width: 100, height: 40 } } } }, valid: false, why: 'a visible signature on page 0' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { appearance: { page: -1, x: 10, y: 10, width: 100, height: 40 } } } }, valid: true, why: 'a visible signature on the last page' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: {}, protection: { ownerPassword: 'owner' } } }, valid: false, why: 'a signature with protection' },
  { body: 'MergeRequest', value: { parts: [{ page: { html } }], pdf: { signature: {}, protection: { userPassword: 'user' } } }, valid: false, why: 'a merged signature with protection' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { appearance: { page: 1, x: 10, y: 10, width: 100, height: 40, image: png } } } }, valid: true, why: 'a visible signature drawn from a PNG' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { appearance: { page: 1, x: 10, y: 10, width: 100, height: 40, image: html } } } }, valid: false, why: 'a visible signature from an image that is no PNG or JPEG' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { signature: { appearance: { page: 1, x: 10, y: 10, width: 100, height: 40, text: 'Signed', image: png } } } }, valid: false, why: 'a visible signature with text and image' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { image: html } } }, valid: false, why: 'a watermark image that is no PNG or JPEG' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { watermark: { text: 'DRAFT', color: '#c00' } } }, valid: true, why: 'a coloured text watermark' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { protection: {} } }, valid: false, why: 'protection without a password' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { protection: { userPassword: 'a', permissions: { copy: false } } } }, valid: false, why: 'permissions without the owner password' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { protection: { ownerPassword: 'a', permissions: { copy: false } } } }, valid: true, why: 'permissions with the owner password' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { protection: { userPassword: 'a' }, pdfa: 'PDF/A-3b' } }, valid: false, why: 'protection with pdfa' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pdfa: 'PDF/A-2b', attachments: [attachment] } }, valid: false, why: 'attachments in PDF/A-2' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pdfa: 'PDF/A-2b', attachments: [] } }, valid: true, why: 'no attachments in PDF/A-2' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pdfa: 'PDF/A-3b', attachments: [attachment] } }, valid: true, why: 'attachments in PDF/A-3' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { attachments: [{ ...attachment, content: 'a' }] } }, valid: false, why: 'an attachment of one base64 character' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { attachments: [{ ...attachment, content: 'aGk=\n' }] } }, valid: true, why: 'a padded attachment with a line end' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { eInvoice: {} } }, valid: false, why: 'an e-invoice without xml' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { eInvoice: { xml: html, xmlTemplate: html } } }, valid: false, why: 'an e-invoice with xml and xmlTemplate' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { eInvoice: { xmlTemplate: '<a/>' } } }, valid: false, why: 'an xmlTemplate that is not base64' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { eInvoice: { xmlTemplate: html } } }, valid: true, why: 'an xmlTemplate' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: { filter: 'url(x)' } } }, valid: false, why: 'a filter with url()' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: { filter: 'blur(4px)' } } }, valid: true, why: 'a blur filter' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: { background: 'red; x' } } }, valid: false, why: 'a background leaving its declaration' },
  { body: 'ScreenshotRequest', value: { page: { html }, screenshot: { overlay: { background: 'linear-gradient(#fff, #000)' } } }, valid: true, why: 'a gradient background' },
  { body: 'MergeRequest', value: { parts: [{ document: '' }] }, valid: false, why: 'an empty document' },
  { body: 'MergeRequest', value: { parts: [{ document: html }] }, valid: false, why: 'a document that is no PDF' },
  { body: 'MergeRequest', value: { parts: [{ document: pdf }] }, valid: true, why: 'a document that starts with %PDF-' },
  { body: 'MergeRequest', value: { parts: [{ page: { html }, pdf: { protection: { userPassword: 'a' } } }] }, valid: false, why: 'protection on a part' },
  { body: 'MergeRequest', value: { parts: [{ page: { html }, pdf: { pdfua: false } }] }, valid: true, why: 'pdfua false on a part' },
  { body: 'MergeRequest', value: { parts: [{ page: { html } }], pdf: { protection: { userPassword: 'a' }, eInvoice: { xml: html } } }, valid: false, why: 'protection with an e-invoice on the merged file' },
  { body: 'TemplateCreateRequest', value: { name: ' \u3000' }, valid: false, why: 'a name of whitespace' },
  { body: 'TemplateCreateRequest', value: { name: ' x ' }, valid: true, why: 'a name with spaces around' },
  { body: 'TemplateCreateRequest', value: { name: 'x', variables: { page: { html: '\u0080\u00e8' } } }, valid: false, why: 'a stored html that is not base64' },
  { body: 'TemplateCreateRequest', value: { name: 'x', variables: { page: { html, url: 'https://example.com' } } }, valid: false, why: 'a stored page with two sources' },
  { body: 'TemplateCreateRequest', value: { name: 'x', variables: { page: { templateData: { a: 1 } } } }, valid: true, why: 'a stored page without a source' },
  // Issue 45: what a process request's answer allows, stated by the document as the service checks it.
  { body: 'ProcessRequest', value: { document: pdf }, valid: true, why: 'a document alone' },
  { body: 'ProcessRequest', value: { document: pdf, documentUrl: 'https://example.com/a.pdf' }, valid: false, why: 'two documents' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JSON', pdf: { compress: true } }, valid: false, why: 'pdf with the JSON answer' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JSON', pdf: null }, valid: true, why: 'a null pdf with the JSON answer' },
  { body: 'ProcessRequest', value: { document: pdf, image: { dpi: 72 } }, valid: false, why: 'image with the PDF answer by default' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'PNG', image: { dpi: 72 } }, valid: true, why: 'image with PNG' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'PNG', image: { quality: 80 } }, valid: false, why: 'quality with PNG' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'WEBP', image: { quality: 80 } }, valid: true, why: 'quality with WEBP' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JPEG', image: { dpi: 72, width: 300 } }, valid: false, why: 'dpi and width' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JPEG', pdf: { preview: {} } }, valid: false, why: 'a preview of page images' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JPEG', pdf: { protection: { userPassword: 'u' } } }, valid: false, why: 'protected page images' },
  { body: 'ProcessRequest', value: { document: pdf, output: 'JPEG', pdf: { watermark: { text: 'A' } } }, valid: true, why: 'stamped page images' },
  { body: 'ProcessRequest', value: { document: pdf, pdf: { pdfua: true } }, valid: false, why: 'PDF/UA of an existing PDF' },
  { body: 'ProcessRequest', value: { document: pdf, pdf: { eInvoice: { xmlTemplate: html } } }, valid: false, why: 'an invoice template without a page' },
  { body: 'ProcessRequest', value: { document: pdf, pdf: { scale: 1 } }, valid: false, why: 'a print option' },
  { body: 'MergeRequest', value: { parts: [{ page: { html }, pdf: { compress: true } }] }, valid: false, why: "compress in a part's pdf" },
  { body: 'MergeRequest', value: { parts: [{ page: { html }, pdf: { compress: false, watermark: { text: 'A' } } }] }, valid: true, why: "a stamp in a part's pdf" },
  { body: 'MergeRequest', value: { parts: [{ page: { html } }], pdf: { pdfa: 'PDF/A-2b', attachments: [attachment] } }, valid: false, why: 'attachments in PDF/A-2' },
  { body: 'MergeRequest', value: { parts: [{ page: { html } }], pdf: { pdfa: 'PDF/A-3b', attachments: [attachment] } }, valid: true, why: 'attachments in PDF/A-3' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pages: '2, 1', toc: true } }, valid: false, why: 'pages with toc' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { pages: '', toc: true } }, valid: true, why: 'an empty pages with toc' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { footer: { html }, headerHtml: '' } }, valid: true, why: 'a footer band with an empty headerHtml' },
  { body: 'PdfRequest', value: { page: { html }, pdf: { footer: { html }, displayHeaderFooter: true } }, valid: false, why: "a footer band with Chromium's" },
];

describe('OpenAPI request bodies state the rules between fields', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...buildOpenApiDocument(), $id: 'urn:docrender:openapi' });

  it('PdfRequest: a cookie without a site on an HTML page is refused by the document, as the plan refuses it', () => {
    // Prepare
    const value = { page: { html, cookies: [{ name: 'a', value: 'b' }] } };
    const parsed = v.parse(REQUEST_BODIES.PdfRequest, value);

    // Act
    const byDocument = ajv.getSchema('urn:docrender:openapi#/components/schemas/PdfRequest')!(value);

    // Assess
    assert.throws(() => buildRenderPlan({ output: 'PDF', page: parsed.page, pdf: parsed.pdf }), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields), ['page.cookies.0.url']);
      return true;
    });
    assert.equal(byDocument, false);
  });

  it('PdfRequest: a Cookie header on an HTML page is refused by the document, as the plan refuses it, and kept on a page by URL', () => {
    // Prepare
    const value = { page: { html, headers: { Cookie: 'a=1' } } };
    const byUrl = { page: { url: 'https://example.com/', headers: { cOOkie: 'a=1' } } };
    const parsed = v.parse(REQUEST_BODIES.PdfRequest, value);
    const validate = ajv.getSchema('urn:docrender:openapi#/components/schemas/PdfRequest')!;

    // Act
    const byDocument = validate(value);

    // Assess
    assert.throws(() => buildRenderPlan({ output: 'PDF', page: parsed.page, pdf: parsed.pdf }), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields), ['page.headers.cookie']);
      return true;
    });
    assert.equal(byDocument, false);
    assert.equal(validate(byUrl), true);
  });

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
