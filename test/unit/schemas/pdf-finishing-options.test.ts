import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import { TemplateCreateSchema } from '../../../lib/schemas/template-requests.js';
import { invoiceXml } from '../../conformance/invoices.js';
import { PAGE_URL, assertRejected, b64, fieldCases, fieldsOf, parsed } from './validation-cases.js';

const schema = PdfRequestSchema;
const withPdf = (pdf: Record<string, unknown>) => ({ page: { url: PAGE_URL }, pdf });
const field = (name: string) => (value: unknown) => withPdf({ [name]: value });
const file = (bytes: number, extra: Record<string, unknown> = {}) => ({
  name: 'data.csv',
  content: Buffer.alloc(bytes, 0x61).toString('base64'),
  mimeType: 'text/csv',
  ...extra,
});

describe('PdfOptionsSchema: finishing fields', () => {
  describe('pdfa', () => {
    fieldCases({ schema, field: 'pdf.pdfa', body: field('pdfa'), accept: ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/A-3u'] });
    fieldCases({ schema, field: 'pdf.pdfa', body: field('pdfa'), reject: ['PDF/A-1b', 'PDF/A-3a', 'pdf/a-2b', 2], message: /^Must be one of: PDF\/A-2b, PDF\/A-2u, PDF\/A-3b, PDF\/A-3u$/ });
  });

  describe('compress', () => {
    fieldCases({ schema, field: 'pdf.compress', body: field('compress'), accept: [true, false, {}, { imageQuality: 1, maxImageDpi: 600, grayscale: true }, { imageQuality: 100, maxImageDpi: 72 }] });
    fieldCases({ schema, field: 'pdf.compress', body: field('compress'), reject: ['true', 1, []], message: /^Must be true, false or an object/ });
    fieldCases({ schema, field: 'pdf.compress.imageQuality', body: (value) => withPdf({ compress: { imageQuality: value } }), reject: [0, 101, 80.5] });
    fieldCases({ schema, field: 'pdf.compress.maxImageDpi', body: (value) => withPdf({ compress: { maxImageDpi: value } }), reject: [71, 601] });
    // A value of the wrong type, or an unknown key, fits neither form: the 400 names pdf.compress (valibot's union).
    fieldCases({ schema, field: 'pdf.compress.imageQuality', rejectKey: 'pdf.compress', body: (value) => withPdf({ compress: { imageQuality: value } }), reject: ['80'], message: /^Must be true, false or an object/ });
    fieldCases({ schema, field: 'pdf.compress.quality', rejectKey: 'pdf.compress', body: (value) => withPdf({ compress: { quality: value } }), reject: [80], message: /^Must be true, false or an object/ });
  });

  describe('pdfua', () => {
    fieldCases({ schema, field: 'pdf.pdfua', body: field('pdfua'), accept: [true, false], reject: ['true', 1] });
  });

  describe('metadata', () => {
    it('accepts every field with its type', () => {
      const metadata = {
        title: 'Invoice INV-2041',
        author: 'Müller & Söhne',
        subject: 'March services',
        keywords: ['invoice', 'März'],
        creator: 'Billing 3.1',
        language: 'de-DE',
        creationDate: '2026-03-01T09:30:00Z',
        modificationDate: '2026-03-01T10:30:00+01:00',
      };
      assert.deepEqual(parsed(schema, withPdf({ metadata })).pdf.metadata, metadata);
    });
    fieldCases({ schema, field: 'pdf.metadata.language', body: (language) => withPdf({ metadata: { language } }), accept: ['en', 'de-CH', 'zh-Hant-TW', 'de-CH-1996'] });
    fieldCases({ schema, field: 'pdf.metadata.language', body: (language) => withPdf({ metadata: { language } }), reject: ['english', 'de_DE', ''], message: /BCP 47/ });
    fieldCases({ schema, field: 'pdf.metadata.creationDate', body: (creationDate) => withPdf({ metadata: { creationDate } }), reject: ['yesterday', '2026-03-01'] });
    fieldCases({ schema, field: 'pdf.metadata.keywords', body: (keywords) => withPdf({ metadata: { keywords } }), reject: ['a, b'] });
    fieldCases({ schema, field: 'pdf.metadata.keywords', rejectKey: 'pdf.metadata.keywords.0', body: (keywords) => withPdf({ metadata: { keywords } }), reject: [[1]] });
    it('refuses an unknown metadata field by name', () => {
      assertRejected(schema, withPdf({ metadata: { titel: 'x' } }), 'pdf.metadata.titel');
    });
  });

  describe('attachments', () => {
    it('accepts up to ten files with a relationship', () => {
      const attachments = Array.from({ length: 10 }, (_, i) => file(10, { name: `f${i}.csv`, relationship: 'Source', description: 'Raw data' }));
      assert.equal(parsed(schema, withPdf({ attachments, pdfa: 'PDF/A-3b' })).pdf.attachments.length, 10);
    });
    it('refuses an eleventh file', () => {
      assertRejected(schema, withPdf({ attachments: Array.from({ length: 11 }, () => file(1)) }), 'pdf.attachments');
    });
    it('refuses more than 5 MB decoded in total, naming pdf.attachments', () => {
      const fields = assertRejected(schema, withPdf({ attachments: [file(3 * 1024 * 1024), file(2 * 1024 * 1024 + 1)] }), 'pdf.attachments');
      assert.match(fields['pdf.attachments'] ?? '', /5242880 bytes/);
    });
    it('accepts exactly 5 MB decoded', () => {
      assert.ok(parsed(schema, withPdf({ attachments: [file(3 * 1024 * 1024), file(2 * 1024 * 1024)] })));
    });
    fieldCases({ schema, field: 'pdf.attachments.0.name', body: (name) => withPdf({ attachments: [file(1, { name })] }), reject: ['', '../etc/passwd', 'a\nb'] });
    fieldCases({ schema, field: 'pdf.attachments.0.content', body: (content) => withPdf({ attachments: [file(1, { content })] }), reject: ['not base64!', 5] });
    fieldCases({ schema, field: 'pdf.attachments.0.mimeType', body: (mimeType) => withPdf({ attachments: [file(1, { mimeType })] }), reject: ['csv', ''] });
    fieldCases({ schema, field: 'pdf.attachments.0.relationship', body: (relationship) => withPdf({ attachments: [file(1, { relationship })] }), reject: ['Other'] });
  });

  describe('eInvoice', () => {
    const xml = b64(invoiceXml('EN 16931'));
    it('accepts a CII invoice as xml, reading its profile', () => {
      assert.equal(parsed(schema, withPdf({ eInvoice: { xml } })).pdf.eInvoice.xml, xml);
    });
    it('accepts a matching profile and a ZUGFeRD standard', () => {
      assert.ok(parsed(schema, withPdf({ eInvoice: { standard: 'ZUGFeRD', profile: 'EN 16931', xml } })));
    });
    it('refuses a profile the XML does not name, on both fields', () => {
      const fields = assertRejected(schema, withPdf({ eInvoice: { profile: 'BASIC', xml } }), ['pdf.eInvoice.profile', 'pdf.eInvoice.xml']);
      assert.match(fields['pdf.eInvoice.profile'] ?? '', /EN 16931 profile, not BASIC/);
    });
    it('refuses malformed XML with the parser reason and line', () => {
      const fields = assertRejected(schema, withPdf({ eInvoice: { xml: b64('<?xml version="1.0"?>\n<rsm:CrossIndustryInvoice>\n<a></b>\n</rsm:CrossIndustryInvoice>') } }), 'pdf.eInvoice.xml');
      assert.match(fields['pdf.eInvoice.xml'] ?? '', /^Not well-formed XML: .+\(line 3, column \d+\)$/);
    });
    it('refuses XML whose root is not CrossIndustryInvoice', () => {
      const fields = assertRejected(schema, withPdf({ eInvoice: { xml: b64('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>') } }), 'pdf.eInvoice.xml');
      assert.match(fields['pdf.eInvoice.xml'] ?? '', /root element must be CrossIndustryInvoice/);
    });
    it('refuses a DOCTYPE (entity expansion)', () => {
      assertRejected(schema, withPdf({ eInvoice: { xml: b64('<!DOCTYPE x [<!ENTITY a "b">]><rsm:CrossIndustryInvoice xmlns:rsm="u"/>') } }), 'pdf.eInvoice.xml');
    });
    it('refuses both xml and xmlTemplate, and neither, naming both', () => {
      assertRejected(schema, withPdf({ eInvoice: { xml, xmlTemplate: xml } }), ['pdf.eInvoice.xml', 'pdf.eInvoice.xmlTemplate']);
      assertRejected(schema, withPdf({ eInvoice: {} }), ['pdf.eInvoice.xml', 'pdf.eInvoice.xmlTemplate']);
    });
    it('refuses XML over 1 MB', () => {
      const big = invoiceXml('EN 16931').replace('<rsm:ExchangedDocument>', `<!--${'x'.repeat(1024 * 1024)}--><rsm:ExchangedDocument>`);
      const fields = assertRejected(schema, withPdf({ eInvoice: { xml: b64(big) } }), 'pdf.eInvoice.xml');
      assert.match(fields['pdf.eInvoice.xml'] ?? '', /at most 1048576 bytes/);
    });
    fieldCases({ schema, field: 'pdf.eInvoice.profile', body: (profile) => withPdf({ eInvoice: { profile, xml } }), reject: ['COMFORT', 'en16931'] });
  });

  describe('conflicts name every field involved', () => {
    it('PDF/A-2 with attachments', () => {
      assertRejected(schema, withPdf({ pdfa: 'PDF/A-2b', attachments: [file(5)] }), ['pdf.pdfa', 'pdf.attachments']);
    });
    it('PDF/A-2 with an e-invoice', () => {
      const fields = assertRejected(schema, withPdf({ pdfa: 'PDF/A-2u', eInvoice: { xml: b64(invoiceXml('BASIC')) } }), ['pdf.pdfa', 'pdf.eInvoice']);
      assert.match(fields['pdf.pdfa'] ?? '', /PDF\/A-3/);
    });
    it('PDF/A-3 with both is fine', () => {
      assert.ok(parsed(schema, withPdf({ pdfa: 'PDF/A-3u', attachments: [file(5)], eInvoice: { xml: b64(invoiceXml('BASIC')) } })));
    });
    it('the same rules hold in a stored template', () => {
      const fields = fieldsOf(TemplateCreateSchema, { name: 't', variables: { page: { url: PAGE_URL }, pdf: { pdfa: 'PDF/A-2b', attachments: [file(5)] } } });
      assert.ok(fields['variables.pdf.pdfa'] && fields['variables.pdf.attachments'], JSON.stringify(fields));
    });
  });
});
