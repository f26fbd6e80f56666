import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { issuesToFields } from '../../../lib/validation/parse.js';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';
import { NOT_FOR_EXISTING_PDF, PRINT_ONLY_PDF_OPTIONS, PROCESS_REQUEST_SCHEMAS, processInput } from '../../../lib/schemas/process-requests.js';

const PDF = Buffer.from('%PDF-1.7\n%…').toString('base64');

/** The 400's fields for `body` on /v1/pdf/process, or 'ok'. */
function fieldsOf(body: unknown, delivery: keyof typeof PROCESS_REQUEST_SCHEMAS = 'raw'): Record<string, string> | 'ok' {
  const result = v.safeParse(PROCESS_REQUEST_SCHEMAS[delivery], body, { abortEarly: false });
  return result.success ? 'ok' : issuesToFields(result.issues);
}

describe('process request schemas', () => {
  it("classify every field of a render's pdf: taken by process, or refused as needing a print (so a new option must choose)", () => {
    const schemas = buildOpenApiDocument().components.schemas as Record<string, { properties?: Record<string, unknown>; anyOf?: Array<{ properties?: Record<string, unknown> }> }>;
    const renderKeys = Object.keys(schemas.PdfOptions?.properties ?? {});
    const processPdf = schemas.ProcessRequest?.properties?.pdf as { anyOf: Array<{ properties?: Record<string, unknown> }> };
    const processKeys = Object.keys(processPdf.anyOf.find((branch) => branch.properties)?.properties ?? {});
    assert.ok(renderKeys.length > 20);
    for (const key of renderKeys) {
      assert.ok(processKeys.includes(key) !== (PRINT_ONLY_PDF_OPTIONS as readonly string[]).includes(key), `pdf.${key}: taken by process or print-only, exactly one`);
    }
  });

  it('name each print option, pdfua and an invoice template with why they do not apply', () => {
    for (const key of PRINT_ONLY_PDF_OPTIONS) {
      assert.deepEqual(fieldsOf({ document: PDF, pdf: { [key]: null } }), { [`pdf.${key}`]: 'Applies to printing a page, not to an existing PDF' }, key);
    }
    assert.deepEqual(fieldsOf({ document: PDF, pdf: { pdfua: true } }), { 'pdf.pdfua': NOT_FOR_EXISTING_PDF.pdfua });
    assert.equal(fieldsOf({ document: PDF, pdf: { pdfua: false } }), 'ok');
    const invoice = fieldsOf({ document: PDF, pdf: { eInvoice: { xmlTemplate: 'PGEvPg==' } } }) as Record<string, string>;
    assert.match(invoice['pdf.eInvoice.xmlTemplate'] ?? '', /no page\.templateData/);
  });

  it('take exactly one of document and documentUrl, no pdf with the JSON answer, and refuse what is not a PDF or a public URL', () => {
    assert.deepEqual(fieldsOf({}), { document: 'Give exactly one of document and documentUrl' });
    assert.deepEqual(fieldsOf({ document: PDF, documentUrl: 'https://example.com/a.pdf' }), {
      document: 'Give exactly one of document and documentUrl',
      documentUrl: 'Give exactly one of document and documentUrl',
    });
    assert.deepEqual(Object.keys(fieldsOf({ document: PDF, output: 'JSON', pdf: { metadata: { title: 'x' } } })), ['pdf']);
    assert.deepEqual(fieldsOf({ document: Buffer.from('hello').toString('base64') }), { document: 'Must be a PDF (it starts with %PDF-)' });
    assert.match((fieldsOf({ documentUrl: 'http://10.0.0.1/a.pdf' }) as Record<string, string>).documentUrl ?? '', /public address/);
    assert.deepEqual(Object.keys(fieldsOf({ document: PDF, webhook: { url: 'https://example.com' } })), ['webhook']);
    assert.equal(fieldsOf({ document: PDF, webhook: { url: 'https://example.com/hook' } }, 'async'), 'ok');
    assert.deepEqual(Object.keys(fieldsOf({ document: PDF, password: 'x'.repeat(128) })), ['password']);
  });

  it('make the input a job stores: the source, the password, the output defaulted to PDF', () => {
    const body = v.parse(PROCESS_REQUEST_SCHEMAS.raw, { document: PDF, password: 'secret', pdf: { watermark: { text: 'COPY' } } });
    assert.deepEqual(processInput(body), { output: 'PDF', process: { document: PDF }, password: 'secret', pdf: { watermark: { text: 'COPY' } } });
    assert.deepEqual(processInput(v.parse(PROCESS_REQUEST_SCHEMAS.raw, { documentUrl: 'https://example.com/a.pdf', output: 'JSON' })), {
      output: 'JSON',
      process: { documentUrl: 'https://example.com/a.pdf' },
      pdf: null,
    });
  });
});
