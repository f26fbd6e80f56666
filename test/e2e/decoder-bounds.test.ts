/**
 * Every decoder the service runs on caller data is bounded by what the data
 * declares, before it decodes (issue 39): over HTTP, each hostile input is a
 * 400 naming its field, never a 500, a timeout or a killed instance.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { invoiceXml } from '../conformance/invoices.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { zeroPng } from '../helpers/hostile-images.js';
import { deepDictionaryPdf, deepNestingPdf, kidsLoopPdf, manyPagesPdf, objectStreamBombPdf, onePagePdf, pageSizePdf, referenceChainPdf } from '../helpers/hostile-pdfs.js';

/** A MINIMUM invoice with `levels` elements nested inside its root. */
const nestedInvoice = (levels: number) => invoiceXml('MINIMUM').replace('</rsm:CrossIndustryInvoice>', `${'<x>'.repeat(levels)}${'</x>'.repeat(levels)}</rsm:CrossIndustryInvoice>`);

const page = { html: b64('<p>Invoice</p>') };

describe('decoder bounds over HTTP', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await service?.stop();
  });

  /** Posts `json` and asserts a 400 whose fields are exactly `field`; answers its message. */
  async function refused(path: string, json: unknown, field: string): Promise<string> {
    const res = await service.request(path, { json, signal: AbortSignal.timeout(20_000) });
    const body = (await res.json()) as { code?: string; fields?: Record<string, string> };
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 300));
    assert.equal(body.code, 'api.validation');
    assert.deepEqual(Object.keys(body.fields ?? {}), [field]);
    return body.fields![field]!;
  }

  for (const levels of [1_000, 50_000]) {
    it(`answers 400 naming pdf.eInvoice.xml for an invoice nested ${levels} deep`, async () => {
      const message = await refused('/v1/pdf', { page, pdf: { eInvoice: { xml: b64(nestedInvoice(levels)) } } }, 'pdf.eInvoice.xml');
      assert.match(message, /more than 100 levels deep/);
    });
  }

  it('answers 400 naming pdf.eInvoice.xmlTemplate when the XML the template makes nests 1,000 deep', async () => {
    const template = nestedInvoice(1_000).replace('<x>', '<x>{{note}}');
    const json = { page: { htmlTemplate: b64('<p>Invoice</p>'), templateData: { note: 'deep' } }, pdf: { eInvoice: { xmlTemplate: b64(template) } } };
    const message = await refused('/v1/pdf', json, 'pdf.eInvoice.xmlTemplate');
    assert.match(message, /more than 100 levels deep/);
  });

  it('answers 400 naming pdf.watermark.image for a PNG declaring more pixels than the bound, in a render and a merge', async () => {
    // 8192 × 2049: one row past 16 MP; 16,000²: the 249 KB file of the report.
    for (const [width, height] of [
      [8192, 2049],
      [16_000, 16_000],
    ] as const) {
      const image = zeroPng(width, height).toString('base64');
      assert.match(await refused('/v1/pdf', { page, pdf: { watermark: { image } } }, 'pdf.watermark.image'), new RegExp(`declares ${width} × ${height}`));
      await refused('/v1/pdf/merge', { parts: [{ page }], pdf: { watermark: { image } } }, 'pdf.watermark.image');
    }
  });

  it('answers 400 naming pdf.watermark.image for a PNG whose data inflates past its declared size', async () => {
    const image = zeroPng(10, 10, { inflated: 100_000_000 }).toString('base64');
    assert.match(await refused('/v1/pdf', { page, pdf: { watermark: { image } } }, 'pdf.watermark.image'), /inflates to more/);
  });

  it('stamps a PNG at the bound: 8192 × 2048 pixels, 16 MP', async () => {
    const image = zeroPng(8192, 2048).toString('base64');
    const res = await service.request('/v1/pdf', { json: { page, pdf: { watermark: { image } } } });
    assert.equal(res.status, 200, (await res.clone().text()).slice(0, 300));
    assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString('latin1'), '%PDF-');
  });

  const hostilePdfs: Array<[string, () => Buffer, RegExp]> = [
    ['arrays nested 5,000 deep', () => deepNestingPdf(5_000), /nest arrays and dictionaries more than 64/],
    ['arrays nested 65 deep (parses, then overflowed the page copy at thousands)', () => deepNestingPdf(64), /nest arrays and dictionaries more than 64/],
    ['dictionaries nested 2,000 deep', () => deepDictionaryPdf(2_000), /nest arrays and dictionaries/],
    ['an object stream inflating to 200 MB', () => objectStreamBombPdf(200_000_000), /inflate to at most 32 MB/],
    ['a page tree that loops', () => kidsLoopPdf(), /loops/],
    ['a chain of 5,000 references from a page (it overflowed the page copy: a 500)', () => referenceChainPdf(5_000), /levels of references/],
    ['20,000 pages', () => manyPagesPdf(20_000), /at most 2000 pages/],
    ['a page 10 million points wide', () => pageSizePdf(10_000_000, 792), /at most 14400 points/],
    ['3 MB of printable junk after a PDF header (pdf-lib took 8 µs a byte to give up on it)', () => Buffer.from(`%PDF-1.7\n${'('.repeat(3 * 1024 * 1024)}`, 'latin1'), /outside any object/],
  ];
  for (const [label, make, problem] of hostilePdfs) {
    it(`answers 400 naming parts.1.document for ${label}`, async () => {
      const message = await refused('/v1/pdf/merge', { parts: [{ page }, { document: make().toString('base64') }] }, 'parts.1.document');
      assert.match(message, problem);
    });
  }

  it('merges a part PDF within every bound', async () => {
    const res = await service.request('/v1/pdf/merge', { json: { parts: [{ page }, { document: onePagePdf().toString('base64') }] } });
    assert.equal(res.status, 200, (await res.clone().text()).slice(0, 300));
  });
});
