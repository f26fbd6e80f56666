import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, b64, fieldCases, parsed } from './validation-cases.js';

const schema = PdfRequestSchema;
const withPdf = (pdf: Record<string, unknown>) => ({ page: { url: PAGE_URL }, pdf });
const field = (name: string) => (value: unknown) => withPdf({ [name]: value });

describe('PdfOptionsSchema', () => {
  describe('scale', () => {
    fieldCases({ schema, field: 'pdf.scale', body: field('scale'), accept: [0.1, 1, 2] });
    fieldCases({ schema, field: 'pdf.scale', body: field('scale'), reject: [0.09], message: /^Must be at least 0.1$/ });
    fieldCases({ schema, field: 'pdf.scale', body: field('scale'), reject: [2.01], message: /^Must be at most 2$/ });
    fieldCases({ schema, field: 'pdf.scale', body: field('scale'), reject: [0, '1'] });
  });

  describe('booleans', () => {
    for (const name of [
      'displayHeaderFooter',
      'printBackground',
      'landscape',
      'preferCSSPageSize',
      'omitBackground',
      'outline',
      'tagged',
    ]) {
      fieldCases({ schema, field: `pdf.${name}`, body: field(name), accept: [true, false], reject: ['true', 1] });
    }
  });

  describe('headerHtml and footerHtml', () => {
    for (const name of ['headerHtml', 'footerHtml']) {
      fieldCases({
        schema,
        field: `pdf.${name}`,
        body: field(name),
        // empty is a valid (blank) header
        accept: [b64('<span class="pageNumber"></span> / <span class="totalPages"></span>'), ''],
      });
      fieldCases({
        schema,
        field: `pdf.${name}`,
        body: field(name),
        reject: ['<span class="pageNumber"></span>', 'QQ='],
        message: /^Must be valid base64$/,
      });
      fieldCases({
        schema,
        field: `pdf.${name}`,
        body: field(name),
        reject: [Buffer.from([0xfe, 0xff]).toString('base64'), 5],
      });
    }
  });

  describe('pageRanges', () => {
    fieldCases({
      schema,
      field: 'pdf.pageRanges',
      body: field('pageRanges'),
      accept: ['1-5, 8, 11-13', '1', '2-2', '3-', '-2', '1,2,3', ''],
    });
    fieldCases({
      schema,
      field: 'pdf.pageRanges',
      body: field('pageRanges'),
      reject: ['a', '1-5;8', '1--2', '1-2-3', '1,,2', 'first', '0', '0-3', '5-3', 'x'.repeat(1001), 3],
    });
  });

  describe('format', () => {
    const formats = ['letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    fieldCases({ schema, field: 'pdf.format', body: field('format'), accept: formats });
    fieldCases({
      schema,
      field: 'pdf.format',
      body: field('format'),
      accept: ['A4', 'Letter', 'LEDGER'],
      kept: (format) => String(format).toLowerCase(),
    });
    fieldCases({
      schema,
      field: 'pdf.format',
      body: field('format'),
      reject: ['a7', 'b5', 'A4 ', '', 4],
      message: /^Must be one of: letter, legal, tabloid, ledger, a0, a1, a2, a3, a4, a5, a6$/,
    });
  });

  describe('width and height', () => {
    for (const side of ['width', 'height']) {
      fieldCases({
        schema,
        field: `pdf.${side}`,
        body: field(side),
        accept: [800, 1, '1', '0.3mm', '8.5in', '21cm', '210mm', '800px', '800', '.5in', '10MM', 19_200, '200in'],
      });
      fieldCases({
        schema,
        field: `pdf.${side}`,
        body: field(side),
        // Under a CSS pixel: Chromium failed to print 1e-8 px and the render answered 500.
        reject: [0, 0.5, 1e-8, '0.0000000001in', '0.2mm', -1, '0mm', '-5mm', '10em', '10 mm', 'abc', '', 19_201, '201in', '5081mm', true],
      });
    }
  });

  describe('margin', () => {
    for (const side of ['top', 'bottom', 'left', 'right']) {
      fieldCases({
        schema,
        field: `pdf.margin.${side}`,
        body: (value) => withPdf({ margin: { [side]: value } }),
        accept: ['0', 0, '1cm', '0.5in', '40px', '12.7mm'],
        reject: ['-1cm', '1em', '1 cm', 'auto', '201in', true, -4],
      });
    }

    it('accepts all four margins together and keeps them', () => {
      // Prepare
      const margin = { top: '1cm', bottom: '1cm', left: '0.5in', right: 24 };
      // Act
      const output = parsed(schema, withPdf({ margin }));
      // Assess
      assert.deepEqual(output.pdf.margin, margin);
    });

    it('rejects an unknown margin side by name', () => {
      assertRejected(schema, withPdf({ margin: { middle: '1cm' } }), 'pdf.margin.middle');
    });

    fieldCases({ schema, field: 'pdf.margin', body: field('margin'), reject: ['1cm', ['1cm']] });
  });

  describe('unknown fields', () => {
    it('rejects a misspelt pdf field by name', () => {
      const fields = assertRejected(schema, withPdf({ printbackground: true }), 'pdf.printbackground');
      assert.equal(fields['pdf.printbackground'], 'Unknown field');
    });

    it('rejects a pdf that is not an object with a 400 on pdf', () => {
      assertRejected(schema, { page: { url: PAGE_URL }, pdf: [] }, 'pdf');
    });
  });
  describe('header and footer (bands)', () => {
    const band = { html: b64('<p class="pageNumber"></p>') };
    it('accepts html or htmlTemplate with height, pages and the first-page and even-page variants', () => {
      parsed(schema, withPdf({ header: { ...band, height: '2cm', pages: '2-', firstPage: { htmlTemplate: b64('{{title}}') }, evenPages: band }, footer: band, sectionHeadings: 'h1, h2' }));
    });
    it('refuses both html and htmlTemplate, or neither, on html', () => {
      assertRejected(schema, withPdf({ header: { ...band, htmlTemplate: b64('x') } }), 'pdf.header.html');
      assertRejected(schema, withPdf({ footer: { height: 40 } }), 'pdf.footer.html');
      assertRejected(schema, withPdf({ footer: { ...band, evenPages: {} } }), 'pdf.footer.evenPages.html');
    });
    it('refuses a band with Chromium\'s header and footer, naming both kinds', () => {
      const fields = assertRejected(schema, withPdf({ header: band, displayHeaderFooter: true, footerHtml: b64('x') }), ['pdf.header', 'pdf.displayHeaderFooter', 'pdf.footerHtml']);
      assert.match(fields['pdf.header'] ?? '', /header cannot be combined with displayHeaderFooter, footerHtml/);
    });
    it('accepts a band with displayHeaderFooter false', () => {
      parsed(schema, withPdf({ footer: band, displayHeaderFooter: false }));
    });
  });
});
