import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { pdfFillColors, pdfStructure, pdfTextPositions, readPdf } from '../helpers/documents.js';

const threePages = `<html><head><title>Report</title></head><body>
  <h1>Section one</h1><div style="break-after: page"></div>
  <h1>Section two</h1><div style="break-after: page"></div>
  <h1>Section three</h1></body></html>`;

/** Paper sizes match to within 0.02 in: Chromium rounds page boxes to whole points. */
function assertSize(actual: { width: number; height: number } | undefined, expected: { width: number; height: number }) {
  assert.ok(actual, 'the page exists');
  const close = Math.abs(actual.width - expected.width) <= 0.02 && Math.abs(actual.height - expected.height) <= 0.02;
  assert.ok(close, `page is ${actual.width}×${actual.height} in, expected ${expected.width}×${expected.height}`);
}

describe('POST /v1/pdf (raw)', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await service?.stop();
  });

  const render = async (body: unknown) => {
    const res = await service.request('/v1/pdf', { json: body });
    const data = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) assert.fail(`status ${res.status}: ${Buffer.from(data).toString()}`);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    return data;
  };

  it('renders base64 HTML to an A4 PDF whose footer numbers the pages "1 / 3"', async () => {
    const data = await render({
      page: { html: b64(threePages) },
      pdf: {
        format: 'a4',
        displayHeaderFooter: true,
        footerHtml: b64('<div style="font-size:10px;width:100%;text-align:center"><span class="pageNumber"></span> / <span class="totalPages"></span></div>'),
      },
    });
    const pdf = await readPdf(data);
    assert.equal(pdf.pageCount, 3);
    assertSize(pdf.pages[0], { width: 8.27, height: 11.69 });
    assert.match(pdf.text[0] ?? '', /1 \/ 3/);
    assert.match(pdf.text[2] ?? '', /3 \/ 3/);
    assert.match(pdf.text[1] ?? '', /Section two/);
  });

  it('prints a running header from HTML templates and fills a table of contents, through the API', async () => {
    // Act
    const data = await render({
      page: { html: b64(`<html><head><title>Report</title></head><body><p>Two: <span data-toc-page="#two"></span>.</p>
        <h1 style="break-before: page">One</h1><h1 id="two" style="break-before: page">Two</h1></body></html>`) },
      pdf: { toc: true, header: { htmlTemplate: b64('<p style="font-size:9px">{{section}} · {{pageNumber}}/{{totalPages}}</p>'), pages: '2-' } },
    });

    // Assess
    const pdf = await readPdf(data);
    assert.equal(pdf.pageCount, 3);
    assert.match(pdf.text[0] ?? '', /Two: 3\./);
    assert.doesNotMatch(pdf.text[0] ?? '', /\/3/);
    assert.match(pdf.text[1] ?? '', /One · 2\/3/);
    assert.match(pdf.text[2] ?? '', /Two · 3\/3/);
  });

  it('answers 400 naming both kinds when a header band comes with Chromium\'s header and footer', async () => {
    // Act
    const res = await service.request('/v1/pdf', { json: { page: { html: b64('<p>x</p>') }, pdf: { header: { html: b64('<p>h</p>') }, displayHeaderFooter: true } } });

    // Assess
    assert.equal(res.status, 400);
    const body = (await res.json()) as { fields?: Record<string, string> };
    assert.deepEqual(Object.keys(body.fields ?? {}).sort(), ['pdf.displayHeaderFooter', 'pdf.header']);
  });

  it('defaults to US letter, untagged and without outline', async () => {
    const data = await render({ page: { html: b64('<h1>Plain</h1>') } });
    const pdf = await readPdf(data);
    assertSize(pdf.pages[0], { width: 8.5, height: 11 });
    assert.deepEqual(await pdfStructure(data), { outline: false, tagged: false });
  });

  for (const [format, size] of [
    ['legal', { width: 8.5, height: 14 }],
    ['tabloid', { width: 11, height: 17 }],
    ['a5', { width: 5.83, height: 8.27 }],
    ['a3', { width: 11.69, height: 16.54 }],
  ] as const) {
    it(`uses format ${format}`, async () => {
      const pdf = await readPdf(await render({ page: { html: b64('<p>x</p>') }, pdf: { format } }));
      assertSize(pdf.pages[0], size);
    });
  }

  it('swaps width and height with landscape', async () => {
    const pdf = await readPdf(await render({ page: { html: b64('<p>x</p>') }, pdf: { format: 'a4', landscape: true } }));
    assertSize(pdf.pages[0], { width: 11.69, height: 8.27 });
  });

  it('takes width and height with units or as CSS pixels, and lets format win over them', async () => {
    const withUnits = await readPdf(await render({ page: { html: b64('<p>x</p>') }, pdf: { width: '5in', height: '7in' } }));
    assertSize(withUnits.pages[0], { width: 5, height: 7 });
    const pixels = await readPdf(await render({ page: { html: b64('<p>x</p>') }, pdf: { width: 480, height: 672 } }));
    assertSize(pixels.pages[0], { width: 5, height: 7 });
    const formatWins = await readPdf(await render({ page: { html: b64('<p>x</p>') }, pdf: { format: 'a5', width: '5in', height: '7in' } }));
    assertSize(formatWins.pages[0], { width: 5.83, height: 8.27 });
  });

  it('honours a CSS @page size with preferCSSPageSize', async () => {
    const page = { html: b64('<style>@page { size: 4in 6in; }</style><p>x</p>') };
    const preferred = await readPdf(await render({ page, pdf: { preferCSSPageSize: true } }));
    assertSize(preferred.pages[0], { width: 4, height: 6 });
  });

  it('prints only the requested pageRanges', async () => {
    const pdf = await readPdf(await render({ page: { html: b64(threePages) }, pdf: { pageRanges: '2-3' } }));
    assert.equal(pdf.pageCount, 2);
    assert.match(pdf.text[0] ?? '', /Section two/);
  });

  it('scales the content down with scale', async () => {
    const tall = b64('<div style="height: 14in">tall</div>');
    assert.equal((await readPdf(await render({ page: { html: tall } }))).pageCount, 2);
    assert.equal((await readPdf(await render({ page: { html: tall }, pdf: { scale: 0.5 } }))).pageCount, 1);
  });

  it('shows a header template with the document title', async () => {
    const pdf = await readPdf(await render({
      page: { html: b64(threePages) },
      pdf: { displayHeaderFooter: true, headerHtml: b64('<div style="font-size:10px">Title: <span class="title"></span></div>') },
    }));
    assert.match(pdf.text[0] ?? '', /Title: Report/);
  });

  it('applies margins', async () => {
    const items = await pdfTextPositions(await render({
      page: { html: b64('<p style="margin:0">Margined</p>') },
      pdf: { margin: { left: '2in', top: '1in', right: '0', bottom: '0' } },
    }));
    const text = items.find((item) => item.str.includes('Margined'));
    assert.ok(text);
    assert.ok(text.x >= 143 && text.x < 160, `text starts 2in (144pt) from the left, got ${text.x}`);
  });

  it('prints backgrounds only with printBackground', async () => {
    const page = { html: b64('<body style="background:#ff0000"><p>red</p></body>') };
    assert.equal((await pdfFillColors(await render({ page }))).has('#ff0000'), false);
    assert.equal((await pdfFillColors(await render({ page, pdf: { printBackground: true } }))).has('#ff0000'), true);
  });

  it('drops the default white background with omitBackground', async () => {
    const page = { html: b64('<p>transparent</p>') };
    const colors = await pdfFillColors(await render({ page, pdf: { printBackground: true, omitBackground: true } }));
    assert.equal(colors.has('#ffffff'), false);
  });

  it('adds an outline with outline, and tags with tagged', async () => {
    const page = { html: b64('<h1>One</h1><p>a</p><h2>Two</h2><p>b</p>') };
    assert.deepEqual(await pdfStructure(await render({ page, pdf: { outline: true } })), { outline: true, tagged: true });
    assert.deepEqual(await pdfStructure(await render({ page, pdf: { tagged: true } })), { outline: false, tagged: true });
  });

  it('keeps a 20-page PDF small because it is untagged by default', async () => {
    const rows = Array.from({ length: 900 }, (_, i) => `<tr><td>${i}</td><td>Row ${i}</td><td>${i * 3}</td></tr>`).join('');
    const page = { html: b64(`<table>${rows}</table>`) };
    const untagged = await render({ page });
    const tagged = await render({ page, pdf: { tagged: true } });
    const info = await readPdf(untagged);
    assert.ok(info.pageCount >= 15, `${info.pageCount} pages`);
    assert.ok(untagged.length * 3 < tagged.length, `untagged ${untagged.length} B vs tagged ${tagged.length} B`);
  });
});
