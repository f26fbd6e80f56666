import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readPdf, startDocumentSite } from '../../helpers/documents.js';
import { b64, startService, type RunningService } from '../../helpers/service.js';
import type { TestServer } from '../../helpers/test-server.js';
import {
  countPixels,
  DOCUMENTS,
  INVOICE_LINES,
  isRed,
  pdfFontNames,
  pdfImages,
  readPixels,
  topmostRow,
  TEMPLATE_INVOICE,
  type DocumentName,
  type Pixels,
} from './document-fixtures.js';

/**
 * Real documents, made with the libraries people use, rendered through the
 * running service with default options only (`waitUntil` is `auto`), as an
 * html body and as a URL, to PDF and PNG: each must come out finished.
 */

type Rendered = { pdf: Uint8Array; pdfText: string; png: Pixels };

/** CSS pixels of the default screenshot device (Macbook Pro 16). */
const VIEWPORT = { width: 1536, height: 960 };

describe('real documents, default options', () => {
  let service: RunningService;
  let site: TestServer;
  const waits: Array<{ document: string; source: string; output: string; waitMs: number }> = [];

  before(async () => {
    // A data API that takes a moment, as real ones do.
    site = await startDocumentSite({ dataDelayMs: 100 });
    service = await startService();
  });
  after(async () => {
    await service?.stop();
    await site?.close();
    if (waits.length > 0) {
      // The wait's cost per document, from the service's own log lines (phase `wait`, ms).
      console.log(`auto wait per document: ${JSON.stringify(waits)}`);
    }
  });

  /** Renders one document both ways to both outputs, recording the wait phase of each. */
  const render = async (name: DocumentName, source: 'html' | 'url'): Promise<Rendered> => {
    const page = source === 'html' ? { html: b64(DOCUMENTS[name](site.url)) } : { url: `${site.url}/${name}.html` };
    const call = async (path: string, output: string) => {
      const logged = service.output().length;
      const res = await service.request(path, { json: { page } });
      const body = new Uint8Array(await res.arrayBuffer());
      if (res.status !== 200) assert.fail(`${path} answered ${res.status}: ${Buffer.from(body).toString()}`);
      const wait = /"wait":(\d+)/.exec(service.output().slice(logged));
      if (wait) waits.push({ document: name, source, output, waitMs: Number(wait[1]) });
      return body;
    };
    const pdf = await call('/v1/pdf', 'pdf');
    const png = await call('/v1/screenshot', 'png');
    const info = await readPdf(pdf);
    // Whitespace collapsed: a label wrapped onto two lines is still the label.
    return { pdf, pdfText: info.text.join(' ').replace(/\s+/g, ' '), png: readPixels(png) };
  };

  it('chart.js report with a running header and footer: the site\'s web font in the band, the title and "Page N of M"', async () => {
    // Prepare
    const band = (text: string) =>
      b64(`<html><head><style>@font-face{font-family:'Band Sans';src:url(${site.url}/fonts/roboto-400.woff2) format('woff2')}body{font:10px 'Band Sans',serif}</style></head><body>${text}</body></html>`);

    // Act
    const res = await service.request('/v1/pdf', {
      json: { page: { url: `${site.url}/chart.html` }, pdf: { header: { html: band('<span class="title"></span> header') }, footer: { html: band('Page <span class="pageNumber"></span> of <span class="totalPages"></span>') } } },
    });
    const pdf = new Uint8Array(await res.arrayBuffer());

    // Assess
    assert.equal(res.status, 200, Buffer.from(pdf).toString().slice(0, 300));
    const info = await readPdf(pdf);
    info.text.forEach((text, index) => {
      assert.match(text, /Report header/);
      assert.ok(text.includes(`Page ${index + 1} of ${info.pageCount}`), text);
    });
    const fonts = await pdfFontNames(pdf);
    assert.ok(fonts.some((font) => /Roboto/i.test(font)), `the band's web font is embedded (fonts: ${fonts.join(', ')})`);
  });

  describe('as page.htmlTemplate', () => {
    const templateData = {
      number: 'inv-2041',
      issued: '2026-03-05T10:00:00Z',
      vatRate: 0.19,
      lines: INVOICE_LINES.slice(0, 10).map((line) => ({ ...line, item: line.item.replace('</', '') })),
    };

    it('invoice with the template helpers and an animated chart: formatted rows, totals, the final bars', async () => {
      // Act
      const page = { htmlTemplate: b64(TEMPLATE_INVOICE(site.url)), templateData };
      const pdfRes = await service.request('/v1/pdf', { json: { page } });
      const pngRes = await service.request('/v1/screenshot', { json: { page } });
      const pdf = new Uint8Array(await pdfRes.arrayBuffer());
      const png = readPixels(new Uint8Array(await pngRes.arrayBuffer()));

      // Assess: 125 + 250 + … + 1250 = 6875 EUR net, 19 % VAT = 1306.25 EUR.
      assert.equal(pdfRes.status, 200);
      assert.equal(pngRes.status, 200);
      const text = (await readPdf(pdf)).text.join(' ').replace(/\s+/g, ' ');
      assert.match(text, /Invoice INV-2041/);
      assert.match(text, /Issued 5\. März 2026/);
      for (const line of templateData.lines) assert.ok(text.includes(line.item), `row "${line.item}"`);
      assert.match(text, /1\.250,00 € large/);
      assert.match(text, /Net 6\.875,00 €, VAT 19% 1\.306,25 €/);
      const topCss = topmostRow(png, isRed) * VIEWPORT.height;
      assert.ok(topCss < 40, `the tallest bar starts at ${Math.round(topCss)} px, at the top of the chart`);
    });

    it('a misused helper answers 400 naming page.htmlTemplate, the helper and the reason', async () => {
      // Act
      const res = await service.request('/v1/pdf', {
        json: { page: { htmlTemplate: b64('<p>{{formatCurrency total "XYZ"}}</p>'), templateData: { total: 5 } } },
      });
      const body = (await res.json()) as { code: string; fields: Record<string, string> };

      // Assess
      assert.equal(res.status, 400);
      assert.equal(body.code, 'api.validation');
      assert.match(body.fields['page.htmlTemplate'] ?? '', /Helper "formatCurrency": unknown currency "XYZ"/);
    });
  });

  for (const source of ['html', 'url'] as const) {
    describe(`as page.${source}`, () => {
      it('invoice: Tailwind styles, the web font embedded, every row fetched 300 ms after load', async () => {
        // Act
        const { pdf, pdfText, png } = await render('invoice', source);

        // Assess
        for (const line of INVOICE_LINES) assert.ok(pdfText.includes(line.item), `row "${line.item}" is in the PDF`);
        assert.match(pdfText, /Total due 9750\.00 EUR/);
        const fonts = await pdfFontNames(pdf);
        assert.ok(fonts.some((font) => /Roboto/i.test(font)), `the web font is embedded (fonts: ${fonts.join(', ')})`);
        const blue = countPixels(png, (r, g, b) => b > 180 && r < 80 && g < 140);
        const green = countPixels(png, (r, g, b) => g > 120 && r < 60 && b < 110);
        assert.ok(blue > 10_000, `the Tailwind header is painted blue (${blue} px)`);
        assert.ok(green > 10_000, `the total, added with the rows, is painted green (${green} px)`);
      });

      it('chart.js report: every bar at its final height, not mid-animation', async () => {
        // Act
        const { pdf, pdfText, png } = await render('chart', source);

        // Assess: the 100 % bar reaches the top of the chart area, a few px under the canvas top
        // (60 px); 60 % into the animation it would start some 160 px lower.
        assert.match(pdfText, /Quarterly revenue/);
        const topCss = topmostRow(png, isRed) * VIEWPORT.height;
        assert.ok(topCss < 60 + 40, `the tallest bar starts at ${Math.round(topCss)} px`);
        const canvas = (await pdfImages(pdf)).find((image) => countPixels(image, isRed) > 100);
        assert.ok(canvas, 'the chart is printed');
        const topInCanvas = topmostRow(canvas, isRed);
        assert.ok(topInCanvas < 0.1, `in the PDF the tallest bar starts at ${Math.round(topInCanvas * 100)} % of the canvas`);
      });

      it('chart.js report: the sped-up first draw ends on the very frame real time draws', async () => {
        // Prepare: the page as it stands 3 s after load, its animation long over in real time.
        const page = source === 'html' ? { html: b64(DOCUMENTS.chart(site.url)) } : { url: `${site.url}/chart.html` };
        const settledRes = await service.request('/v1/screenshot', { json: { page: { ...page, waitUntil: 'load', waitForMilliseconds: 3000 } } });
        const autoRes = await service.request('/v1/screenshot', { json: { page } });

        // Act
        const settled = Buffer.from(await settledRes.arrayBuffer());
        const auto = Buffer.from(await autoRes.arrayBuffer());

        // Assess
        assert.equal(settledRes.status, 200);
        assert.equal(autoRes.status, 200);
        const [a, b] = [readPixels(settled), readPixels(auto)];
        let differing = 0;
        for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) if (a.rgba(x, y).join() !== b.rgba(x, y).join()) differing++;
        assert.equal(differing, 0, 'auto captured the same pixels as the page settled in real time');
      });

      it('Paged.js report: every page laid out and numbered', async () => {
        // Act
        const { pdfText, png } = await render('paged', source);

        // Assess
        for (let n = 1; n <= 4; n++) assert.ok(pdfText.includes(`Page ${n} of 4`), `"Page ${n} of 4" is printed`);
        const red = countPixels(png, isRed);
        assert.ok(red > 1_000, `the running header's margin box is painted (${red} px)`);
      });

      it('mermaid diagram: the flowchart drawn with its labels', async () => {
        // Act
        const { pdfText, png } = await render('diagram', source);

        // Assess
        for (const label of ['Order received', 'Invoice sent', 'Payment booked']) assert.ok(pdfText.includes(label), `label "${label}"`);
        assert.doesNotMatch(pdfText, /flowchart LR/, 'the diagram source was replaced by the drawing');
        const nodeFill = countPixels(png, (r, g, b) => b > 240 && r > 225 && r < 245 && g > 225 && g < 245);
        assert.ok(nodeFill > 5_000, `the nodes are filled (${nodeFill} px)`);
      });

      it('KaTeX formula: typeset in the math fonts', async () => {
        // Act
        const { pdf, pdfText, png } = await render('formula', source);

        // Assess
        const fonts = await pdfFontNames(pdf);
        assert.ok(fonts.some((font) => font.startsWith('KaTeX_')), `KaTeX fonts are embedded (fonts: ${fonts.join(', ')})`);
        assert.ok(pdfText.includes('∫'), 'the integral sign is printed');
        const ink = countPixels(png, (r, g, b) => r < 80 && g < 80 && b < 80);
        assert.ok(ink > 3_000, `the formula is drawn (${ink} dark px)`);
      });

      it('JsBarcode label: the EAN-13 bars and digits', async () => {
        // Act
        const { pdfText, png } = await render('label', source);

        // Assess
        assert.match(pdfText, /Ship to: ACME GmbH/);
        assert.ok(pdfText.replace(/\s+/g, '').includes('4006381333931'), 'the digits are under the bars');
        const bars = countPixels(png, (r, g, b) => r < 30 && g < 30 && b < 30);
        assert.ok(bars > 20_000, `the bars are drawn (${bars} black px)`);
      });
    });
  }
});
