import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import type { Renderer } from '../../../lib/render/index.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { pdfFillColors, pdfStructure, pdfTextPositions } from '../../helpers/documents.js';
import { b64, renderPdf } from './render-fixtures.js';

const threePages = b64(`<html><head><title>Quarterly report</title></head><body>
  <h1 style="break-after: page">Section one</h1>
  <h1 style="break-after: page">Section two</h1>
  <h1>Section three</h1></body></html>`);

/** Chromium rounds paper sizes to 1/75 in: A4 comes out 8.277 × 11.693 in. */
const near = (actual: number | undefined, expected: number) => Math.abs((actual ?? 0) - expected) <= 0.015;
const small = { html: b64('<p>x</p>') };
const numbered = b64('<div style="font-size:10px;width:100%;text-align:center">Page <span class="pageNumber"></span> / <span class="totalPages"></span></div>');

describe('renderer › PDF output', () => {
  let renderer: Renderer;
  before(async () => {
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  it('prints US letter by default, untagged and without outline', async () => {
    // Act
    const pdf = await renderPdf(renderer, small);

    // Assess
    assert.deepEqual(pdf.pages[0], { width: 8.5, height: 11 });
    assert.deepEqual(await pdfStructure(pdf.data), { outline: false, tagged: false });
  });

  it('prints A4 with format, and lets the format win over width and height', async () => {
    // Act
    const a4 = await renderPdf(renderer, small, { format: 'a4', width: '5in', height: '7in' });
    const sized = await renderPdf(renderer, small, { width: '5in', height: '7in' });
    const pixels = await renderPdf(renderer, small, { width: 480, height: 672 });

    // Assess
    assert.ok(near(a4.pages[0]?.width, 8.27) && near(a4.pages[0]?.height, 11.69), JSON.stringify(a4.pages[0]));
    assert.deepEqual(sized.pages[0], { width: 5, height: 7 });
    assert.deepEqual(pixels.pages[0], { width: 5, height: 7 }, 'numbers are CSS pixels, 96 to the inch');
  });

  it('swaps width and height with landscape', async () => {
    // Act
    const pdf = await renderPdf(renderer, small, { format: 'a4', landscape: true });

    // Assess
    assert.ok(near(pdf.pages[0]?.width, 11.69) && near(pdf.pages[0]?.height, 8.27), JSON.stringify(pdf.pages[0]));
  });

  it('prints only the pages of pageRanges', async () => {
    // Act
    const pdf = await renderPdf(renderer, { html: threePages }, { pageRanges: '2-3' });

    // Assess
    assert.equal(pdf.pageCount, 2);
    assert.match(pdf.text[0] ?? '', /Section two/);
  });

  it('refuses a page range beyond the document with a 400 on pdf.pageRanges', async () => {
    // Act
    const attempt = renderPdf(renderer, small, { pageRanges: '5-7' });

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'pdf.pageRanges' in error.fields);
  });

  it('numbers the pages "1 / 3" in a footer given alone, with no default header and room to show', async () => {
    // Act
    const pdf = await renderPdf(renderer, { html: threePages }, { displayHeaderFooter: true, footerHtml: numbered });

    // Assess
    assert.equal(pdf.pageCount, 3);
    assert.match(pdf.text[0] ?? '', /Page 1 \/ 3/);
    assert.match(pdf.text[2] ?? '', /Page 3 \/ 3/);
    assert.doesNotMatch(pdf.text[0] ?? '', /Quarterly report/, 'no default header with the title');
  });

  it('fills the title into a header template', async () => {
    // Act
    const pdf = await renderPdf(renderer, { html: threePages }, {
      displayHeaderFooter: true,
      headerHtml: b64('<div style="font-size:10px">Title: <span class="title"></span></div>'),
    });

    // Assess
    assert.match(pdf.text[0] ?? '', /Title: Quarterly report/);
    assert.doesNotMatch(pdf.text[0] ?? '', /Page \d/);
  });

  it('hides the header and footer with displayHeaderFooter: false', async () => {
    // Act
    const pdf = await renderPdf(renderer, { html: threePages }, { displayHeaderFooter: false, footerHtml: numbered });

    // Assess
    assert.doesNotMatch(pdf.text.join(' '), /Page 1/);
  });

  it('prints a given footer only when displayHeaderFooter is true (default false)', async () => {
    // Act
    const pdf = await renderPdf(renderer, { html: threePages }, { footerHtml: numbered });

    // Assess
    assert.equal(pdf.pageCount, 3);
    assert.doesNotMatch(pdf.text.join(' '), /Page \d \/ 3/);
  });

  it('fits more on a page with scale', async () => {
    // Prepare
    const tall = { html: b64('<div style="height: 14in">tall</div>') };

    // Act
    const normal = await renderPdf(renderer, tall);
    const halved = await renderPdf(renderer, tall, { scale: 0.5 });

    // Assess
    assert.equal(normal.pageCount, 2);
    assert.equal(halved.pageCount, 1);
  });

  it('moves the content by the margins', async () => {
    // Act
    const items = await pdfTextPositions((await renderPdf(renderer, { html: b64('<p style="margin:0">Margined</p>') }, {
      margin: { left: '2in', top: '1in', right: '0', bottom: '0' },
    })).data);

    // Assess
    const text = items.find((item) => item.str.includes('Margined'));
    assert.ok(text && text.x >= 143 && text.x < 160, `text 2in (144pt) from the left, got ${text?.x}`);
  });

  it('prints backgrounds only with printBackground, and drops the white one with omitBackground', async () => {
    // Prepare
    const red = { html: b64('<body style="background:#ff0000"><p>red</p></body>') };

    // Act
    const plain = await pdfFillColors((await renderPdf(renderer, red)).data);
    const printed = await pdfFillColors((await renderPdf(renderer, red, { printBackground: true })).data);
    const transparent = await pdfFillColors((await renderPdf(renderer, small, { printBackground: true, omitBackground: true })).data);

    // Assess
    assert.equal(plain.has('#ff0000'), false);
    assert.equal(printed.has('#ff0000'), true);
    assert.equal(transparent.has('#ffffff'), false);
  });

  it('uses the CSS @page size with preferCSSPageSize', async () => {
    // Prepare
    const page = { html: b64('<style>@page { size: 4in 6in; }</style><p>x</p>') };

    // Act
    const preferred = await renderPdf(renderer, page, { preferCSSPageSize: true });

    // Assess
    assert.deepEqual(preferred.pages[0], { width: 4, height: 6 });
  });

  it('adds an outline (and tags) with outline, tags alone with tagged', async () => {
    // Prepare
    const page = { html: b64('<h1>One</h1><p>a</p><h2>Two</h2><p>b</p>') };

    // Act
    const outlined = await renderPdf(renderer, page, { outline: true });
    const tagged = await renderPdf(renderer, page, { tagged: true });

    // Assess
    assert.deepEqual(await pdfStructure(outlined.data), { outline: true, tagged: true });
    assert.deepEqual(await pdfStructure(tagged.data), { outline: false, tagged: true });
  });

  it('keeps a long table small because it is untagged unless asked', async () => {
    // Prepare
    const rows = Array.from({ length: 600 }, (_, i) => `<tr><td>${i}</td><td>Row ${i}</td><td>${i * 3}</td></tr>`).join('');
    const page = { html: b64(`<table>${rows}</table>`) };

    // Act
    const untagged = await renderPdf(renderer, page);
    const tagged = await renderPdf(renderer, page, { tagged: true });

    // Assess
    assert.ok(untagged.pageCount >= 10, `${untagged.pageCount} pages`);
    assert.ok(untagged.bytes * 3 < tagged.bytes, `untagged ${untagged.bytes} B vs tagged ${tagged.bytes} B`);
  });
});
