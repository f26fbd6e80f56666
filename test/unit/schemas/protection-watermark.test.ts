import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { MergeRequestSchema } from '../../../lib/schemas/merge-requests.js';
import { selectPages } from '../../../lib/validation/page-ranges.js';
import { MAX_STAMP_IMAGE_EDGE as MAX_WATERMARK_IMAGE_EDGE, MAX_STAMP_IMAGE_PIXELS as MAX_WATERMARK_IMAGE_PIXELS } from '../../../lib/input/stamp-image.js';
import { jpegHeader, zeroPng } from '../../helpers/hostile-images.js';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import { issuesToFields } from '../../../lib/validation/parse.js';

const page = { html: 'PHA+eDwvcD4=' };
const fields = (schema: v.GenericSchema, input: unknown) => {
  const result = v.safeParse(schema, input, { abortEarly: false });
  return result.success ? {} : issuesToFields(result.issues);
};
const pdfFields = (pdf: unknown) => fields(PdfRequestSchema, { page, pdf });
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('pdf.protection and pdf.watermark schemas', () => {
  it('needs a password, an owner password with permissions, and at most 127 bytes', () => {
    assert.deepEqual(Object.keys(pdfFields({ protection: {} })), ['pdf.protection']);
    assert.deepEqual(Object.keys(pdfFields({ protection: { userPassword: 'u', permissions: { copy: false } } })), ['pdf.protection.ownerPassword']);
    assert.deepEqual(Object.keys(pdfFields({ protection: { ownerPassword: 'é'.repeat(64) } })), ['pdf.protection.ownerPassword']);
    assert.deepEqual(pdfFields({ protection: { ownerPassword: 'o', permissions: { print: 'lowResolution', copy: false } } }), {});
    assert.deepEqual(Object.keys(pdfFields({ protection: { userPassword: 'u', permissions: { print: 'never' } } })), ['pdf.protection.permissions.print']);
  });

  it('never repeats a password in a message', () => {
    const secret = 'S3cret-that-is-far-too-long-'.repeat(6);
    const messages = Object.values(pdfFields({ protection: { userPassword: secret, ownerPassword: 42 } }));
    assert.ok(messages.length > 0);
    for (const message of messages) assert.ok(!message.includes('S3cret'), message);
  });

  it('takes exactly one of text or image, a PNG or JPEG image, and a valid range of pages', () => {
    assert.deepEqual(Object.keys(pdfFields({ watermark: {} })), ['pdf.watermark.text', 'pdf.watermark.image']);
    assert.deepEqual(Object.keys(pdfFields({ watermark: { text: 'A', image: PNG_1X1 } })), ['pdf.watermark.text', 'pdf.watermark.image']);
    assert.deepEqual(Object.keys(pdfFields({ watermark: { image: Buffer.from('GIF89a').toString('base64') } })), ['pdf.watermark.image']);
    assert.deepEqual(Object.keys(pdfFields({ watermark: { image: PNG_1X1, fontSize: 20 } })), ['pdf.watermark.fontSize']);
    assert.deepEqual(Object.keys(pdfFields({ watermark: { text: 'PAID', pages: '3-1', opacity: 2, position: 'middle' } })), [
      'pdf.watermark.opacity',
      'pdf.watermark.position',
      'pdf.watermark.pages',
    ]);
    assert.deepEqual(pdfFields({ watermark: { text: '已付 😀', rotation: 45, color: '#c00', position: 'bottomRight', layer: 'under', pages: '2-' } }), {});
  });

  it('takes a text watermark\'s fontFamily as a family name CSS cannot misread, and refuses it with an image', () => {
    assert.deepEqual(pdfFields({ watermark: { text: 'PAID', fontFamily: 'Acme Sans' } }), {});
    assert.deepEqual(pdfFields({ watermark: { text: 'PAID', fontFamily: 'serif' } }), {});
    assert.deepEqual(pdfFields({ watermark: { text: 'PAID', fontFamily: 'Noto Sans Arabic' } }), {});
    for (const fontFamily of ['Acme"; color: red', 'a{b}', 'x\\y', 'inherit', '', 'A'.repeat(200)]) {
      assert.deepEqual(Object.keys(pdfFields({ watermark: { text: 'PAID', fontFamily } })), ['pdf.watermark.fontFamily'], fontFamily);
    }
    assert.deepEqual(Object.keys(pdfFields({ watermark: { image: PNG_1X1, fontFamily: 'Acme Sans' } })), ['pdf.watermark.fontFamily']);
  });

  it('refuses protection together with pdfa, naming both (PDF/A forbids encryption)', () => {
    assert.deepEqual(Object.keys(pdfFields({ protection: { userPassword: 'u' }, pdfa: 'PDF/A-2b' })), ['pdf.protection', 'pdf.pdfa']);
    assert.deepEqual(pdfFields({ pdfa: 'PDF/A-2b' }), {});
  });

  it('selects the pages of a range, and tells a range past the end', () => {
    assert.deepEqual(selectPages('', 3), { pages: [0, 1, 2], beyond: false });
    assert.deepEqual(selectPages('2-, 1', 3), { pages: [0, 1, 2], beyond: false });
    assert.deepEqual(selectPages('-2', 5), { pages: [0, 1], beyond: false });
    assert.deepEqual(selectPages('4', 3), { pages: [], beyond: true });
  });
});

describe('merge request schema', () => {
  it('names the part and field at fault', () => {
    const result = fields(MergeRequestSchema, {
      parts: [{ page }, { document: 'bm90IGEgcGRm' }, { templateId: '' }, { page: {} }, { page, pdf: { protection: { userPassword: 'u' } } }],
    });
    assert.deepEqual(Object.keys(result), ['parts.1.document', 'parts.2.templateId', 'parts.3.page.url', 'parts.3.page.html', 'parts.3.page.htmlTemplate', 'parts.4.pdf.protection']);
  });

  it('takes pdf.compress on the merged file and refuses it on a part (false is allowed there)', () => {
    assert.deepEqual(fields(MergeRequestSchema, { parts: [{ page }], pdf: { compress: { maxImageDpi: 100 } } }), {});
    assert.deepEqual(fields(MergeRequestSchema, { parts: [{ page, pdf: { compress: false } }] }), {});
    assert.deepEqual(fields(MergeRequestSchema, { parts: [{ page }, { page, pdf: { compress: true } }] }), {
      'parts.1.pdf.compress': 'Applies to the merged file: set it in the top-level pdf',
    });
  });

  it('takes 1 to 20 parts', () => {
    assert.deepEqual(Object.keys(fields(MergeRequestSchema, { parts: [] })), ['parts']);
    assert.deepEqual(Object.keys(fields(MergeRequestSchema, { parts: Array.from({ length: 21 }, () => ({ page })) })), ['parts']);
    assert.deepEqual(fields(MergeRequestSchema, { parts: Array.from({ length: 20 }, () => ({ page })), pdf: { outline: true, watermark: { text: 'DRAFT' } } }), {});
  });
});

describe('pdf.watermark.image bounds, read from the header before anything decodes', () => {
  const image = (bytes: Buffer) => pdfFields({ watermark: { image: bytes.toString('base64') } });

  it(`takes an image at both limits: ${MAX_WATERMARK_IMAGE_EDGE} pixels a side and ${MAX_WATERMARK_IMAGE_PIXELS} in all`, () => {
    assert.equal(MAX_WATERMARK_IMAGE_EDGE * (MAX_WATERMARK_IMAGE_PIXELS / MAX_WATERMARK_IMAGE_EDGE), MAX_WATERMARK_IMAGE_PIXELS);
    assert.deepEqual(image(zeroPng(MAX_WATERMARK_IMAGE_EDGE, MAX_WATERMARK_IMAGE_PIXELS / MAX_WATERMARK_IMAGE_EDGE)), {});
    assert.deepEqual(image(zeroPng(4096, 4096)), {});
  });

  it('refuses one row past the pixel limit, one pixel past the edge, and the 16,000² file of the report', () => {
    for (const [width, height] of [
      [MAX_WATERMARK_IMAGE_EDGE, MAX_WATERMARK_IMAGE_PIXELS / MAX_WATERMARK_IMAGE_EDGE + 1],
      [4097, 4096],
      [MAX_WATERMARK_IMAGE_EDGE + 1, 1],
      [16_000, 16_000],
    ] as const) {
      const answer = image(zeroPng(width, height));
      assert.deepEqual(Object.keys(answer), ['pdf.watermark.image']);
      assert.match(answer['pdf.watermark.image'] ?? '', new RegExp(`declares ${width} × ${height}`));
    }
    assert.deepEqual(Object.keys(image(Buffer.concat([jpegHeader(9000, 10), Buffer.from([0xff, 0xd9])]))), ['pdf.watermark.image']);
  });

  it('refuses a PNG whose data inflates past what it declares, and a truncated one', () => {
    assert.match(image(zeroPng(10, 10, { inflated: 50_000_000 }))['pdf.watermark.image'] ?? '', /inflates to more/);
    assert.match(image(zeroPng(10, 10).subarray(0, 40))['pdf.watermark.image'] ?? '', /truncated/);
  });
});
