import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFRawStream, PDFRef, PDFStream } from '@cantoo/pdf-lib';
import { embeddedFonts, pdftoppm, pdftotextPages, pageCountOf } from '../../helpers/pdf-tools.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { expectedSections, reportHtml } from '../../helpers/report.js';
import { b64 } from './render-fixtures.js';

const header = {
  html: b64('<html><head><style>body{font:9px sans-serif}</style></head><body><div>Running: <span class="section"></span> | <span class="title"></span></div></body></html>'),
  firstPage: { html: b64('<div style="font:9px sans-serif">Cover band</div>') },
};
const footer = {
  htmlTemplate: b64('<div style="font:9px sans-serif;text-align:center">Page {{pageNumber}} of {{totalPages}}</div>'),
  evenPages: { htmlTemplate: b64('<div style="font:9px sans-serif;text-align:right">Even page {{pageNumber}} of {{totalPages}}</div>') },
};

const serve = (type: string, body: string | Buffer) => (_req: unknown, res: import('node:http').ServerResponse) => {
  // Fonts load cross-origin from an HTML page: they need CORS.
  res.writeHead(200, { 'content-type': type, 'access-control-allow-origin': '*' });
  res.end(body);
};

/** Pixels of the top `rows` rows of a PNG that are close to `rgb`. */
function pixelsNear(png: Buffer, rgb: [number, number, number], rows: number): number {
  const image = PNG.sync.read(png);
  let count = 0;
  for (let y = 0; y < Math.min(rows, image.height); y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (image.width * y + x) * 4;
      if (rgb.every((value, c) => Math.abs((image.data[i + c] ?? 0) - value) < 40)) count++;
    }
  }
  return count;
}

describe('renderer › running header and footer (pdf.header, pdf.footer)', () => {
  let renderer: RequestRenderer;
  let site: TestServer;
  before(async () => {
    renderer = await warmFinishingRenderer();
    site = await startTestServer({
      '/band.css': serve('text/css', "@font-face{font-family:'Band Face';src:url(/face.woff2) format('woff2')} body{font-family:'Band Face',serif;font-size:12px} .stripe{display:inline-block;width:120px;height:20px;background:url(/stripe.svg)}"),
      '/face.woff2': serve('font/woff2', readFileSync('node_modules/@fontsource/roboto/files/roboto-latin-400-normal.woff2')),
      '/stripe.svg': serve('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#ff0000"/></svg>'),
      '/logo.svg': serve('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><rect width="60" height="20" fill="#0000ff"/></svg>'),
    });
  });
  after(async () => {
    await renderer?.close();
    await site?.close();
  });

  const render = async (pdf: Record<string, unknown>, html = reportHtml()) =>
    new Uint8Array((await renderer.render({ output: 'PDF', page: { html: b64(html) }, pdf } as never, { timeoutMs: 60_000 })).body);

  it('shows the running chapter title, "Page N of 30" and the first-page and even-page variants on every page', async () => {
    // Act
    const pdf = await render({ header, footer });

    // Assess
    const count = pageCountOf(pdf);
    assert.equal(count, 30);
    const pages = pdftotextPages(pdf, count).map((text) => text.replace(/\s+/g, ' '));
    const sections = expectedSections(pages);
    pages.forEach((text, index) => {
      const n = index + 1;
      if (n === 1) {
        assert.match(text, /Cover band/);
        assert.doesNotMatch(text, /Running:/);
      } else assert.ok(text.includes(`Running: ${sections[index]} | Annual report`), `page ${n}: ${text}`);
      const footerLine = n % 2 === 0 ? `Even page ${n} of 30` : `Page ${n} of 30`;
      assert.ok(text.includes(footerLine), `page ${n} footer: ${text}`);
      if (n % 2 === 1) assert.doesNotMatch(text, /Even page/);
    });
    // Every chapter ran in the header somewhere: the sections are not all one.
    assert.equal(new Set(sections.slice(1)).size, 5);
    // Both bands are drawn as forms inside artifact marked content (decoration for PDF/UA, not content).
    for (const page of (await PDFDocument.load(pdf)).getPages()) {
      const contents = page.node.Contents();
      const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => page.doc.context.lookup(ref)) : [contents];
      const content = streams.map((stream) => (stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') : '')).join('\n');
      assert.equal(content.match(/\/Artifact BMC[^]*?\/[^\s/]+ Do[^]*?EMC/g)?.length, 2, content.slice(-300));
    }
  });

  it("writes each band page once, as the form its body page draws: no unused copy of a band's content left in the file", async () => {
    // Act
    const pdf = await render({ header, footer });

    // Assess: every object is reachable from the trailer.
    const document = await PDFDocument.load(pdf, { updateMetadata: false });
    const { context } = document;
    const reached = new Set<string>();
    const walk = (object: unknown): void => {
      if (object instanceof PDFRef) {
        if (reached.has(object.toString())) return;
        reached.add(object.toString());
        walk(context.lookup(object));
      } else if (object instanceof PDFDict) for (const [, value] of object.entries()) walk(value);
      else if (object instanceof PDFArray) for (const value of object.asArray()) walk(value);
      else if (object instanceof PDFStream) walk(object.dict);
    };
    walk(context.trailerInfo.Root);
    walk(context.trailerInfo.Info);
    const unreached = context.enumerateIndirectObjects().filter(([ref]) => !reached.has(ref.toString()));
    assert.deepEqual(unreached.map(([ref, object]) => `${ref} ${object.constructor.name}`), []);
  });

  it('keeps the body clear of the bands: a band shown on the pages given by pages, and none elsewhere', async () => {
    // Act
    const pdf = await render({ header: { html: b64('<div>Band on <span class="pageNumber"></span></div>'), pages: '2-3' } }, '<h1 style="break-after:page">A</h1><h1 style="break-after:page">B</h1><h1>C</h1>');

    // Assess
    const pages = pdftotextPages(pdf, pageCountOf(pdf));
    assert.equal(pages.length, 3);
    assert.doesNotMatch(pages[0] ?? '', /Band on/);
    assert.match(pages[1] ?? '', /Band on 2/);
    assert.match(pages[2] ?? '', /Band on 3/);
  });

  it('refuses a band taller than the page with a 400 on its height', async () => {
    // Act
    const attempt = render({ header: { html: b64('<p>x</p>'), height: '12in' } }, '<p>body</p>');

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'pdf.header.height' in error.fields);
  });

  it('refuses a section selector that is not CSS with a 400 on pdf.sectionHeadings', async () => {
    // Act
    const attempt = render({ header: { html: b64('<p class="section"></p>') }, sectionHeadings: 'h1[' }, '<h1>x</h1>');

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'pdf.sectionHeadings' in error.fields);
  });

  it('prints a header with a linked stylesheet, a web font, an SVG logo by URL and a CSS background from the site, as the same HTML prints as a page', async () => {
    // Prepare
    const html = `<html><head><link rel="stylesheet" href="${site.url}/band.css"></head><body><span class="stripe"></span> <img src="${site.url}/logo.svg"> Quarterly</body></html>`;

    // Act
    const pdf = await render({ header: { html: b64(html), height: '1in' }, printBackground: true }, '<p>body</p>');
    const asPage = new Uint8Array((await renderer.render({ output: 'PDF', page: { html: b64(html) }, pdf: { printBackground: true } } as never)).body);

    // Assess
    const [band] = pdftoppm(pdf, 72);
    const [page] = pdftoppm(asPage, 72);
    const red = pixelsNear(band as Buffer, [255, 0, 0], 72);
    const blue = pixelsNear(band as Buffer, [0, 0, 255], 72);
    assert.ok(red > 1000, `the CSS background shows in the band (${red} red pixels)`);
    assert.ok(blue > 600, `the SVG logo shows in the band (${blue} blue pixels)`);
    // The same sizes as the page prints them: 120×20 and 60×20 CSS pixels at 72 dpi.
    assert.ok(Math.abs(red - pixelsNear(page as Buffer, [255, 0, 0], 72)) < 100);
    assert.ok(Math.abs(blue - pixelsNear(page as Buffer, [0, 0, 255], 72)) < 100);
    assert.ok(embeddedFonts(asPage).some((name) => /Roboto/i.test(name)), 'page: ' + embeddedFonts(asPage).join(', '));
    assert.ok(embeddedFonts(pdf).some((name) => /Roboto/i.test(name)), embeddedFonts(pdf).join(', '));
    assert.match(pdftotextPages(pdf, 1)[0] ?? '', /Quarterly/);
  });

  it('refuses a header whose page navigates away before it is laid out with a 400 naming pdf.header', async () => {
    // Act
    const attempt = render({ header: { html: b64('<p>x</p><script>location.href = "http://127.0.0.1:9/"</script>') } }, '<p>body</p>');

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && 'pdf.header' in error.fields);
  });

  it("numbers a merge part's footer within that part, and leaves the other part without it", async () => {
    // Act
    const result = await renderer.render(
      {
        parts: [
          { page: { html: b64('<p>Cover part</p>') } },
          { page: { html: b64('<p>First</p><p style="break-before:page">Second</p>') }, pdf: { footer: { html: b64('<p>Part page <span class="pageNumber"></span>/<span class="totalPages"></span></p>') } } },
        ],
      } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    const pdf = new Uint8Array(result.body);
    const pages = pdftotextPages(pdf, pageCountOf(pdf));
    assert.equal(pages.length, 3);
    assert.doesNotMatch(pages[0] ?? '', /Part page/);
    assert.match(pages[1] ?? '', /Part page 1\/2/);
    assert.match(pages[2] ?? '', /Part page 2\/2/);
  });
  it("lays a merge's footer over the merged pages: numbered across the parts, the section from each part's headings or its title", async () => {
    // Prepare: an existing PDF of two pages between two printed parts.
    const existing = await renderer.render({ output: 'PDF', page: { html: b64('<p>Annex one</p><p style="break-before:page">Annex two</p>') } } as never, { timeoutMs: 60_000 });

    // Act
    const result = await renderer.render(
      {
        parts: [
          { page: { html: b64('<h1>Alpha</h1><p>one</p><h1 style="break-before:page">Beta</h1><p>two</p>') } },
          { document: existing.body.toString('base64'), title: 'Annexes' },
          { page: { html: b64('<h1>Gamma</h1><p>three</p>') }, pdf: { header: { html: b64('<p>Part header</p>') } } },
        ],
        pdf: {
          footer: { htmlTemplate: b64('<p style="font:9px sans-serif">Merged page {{pageNumber}} of {{totalPages}}. Section: {{section}}.</p>') },
        },
      } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    const pdf = new Uint8Array(result.body);
    const pages = pdftotextPages(pdf, pageCountOf(pdf)).map((text) => text.replace(/\s+/g, ' '));
    assert.equal(pages.length, 5);
    const sections = ['Alpha', 'Beta', 'Annexes', 'Annexes', 'Gamma'];
    pages.forEach((text, index) => {
      assert.ok(text.includes(`Merged page ${index + 1} of 5`), `page ${index + 1}: ${text}`);
      assert.ok(text.includes(`Section: ${sections[index]}.`), `page ${index + 1}: ${text}`);
    });
    // A part's own band of the other kind stays: the merge's footer does not replace the part's header.
    assert.match(pages[4] ?? '', /Part header/);
  });

  it("moves a merge's sections with their pages when pdf.pages chooses and orders them (the pages stage runs before the bands)", async () => {
    // Prepare: three chapters over three printed parts, then the last first and the second left out.
    const parts = ['Alpha', 'Beta', 'Gamma'].map((name) => ({ page: { html: b64(`<h1>${name}</h1><p>${name} text</p>`) } }));

    // Act
    const result = await renderer.render(
      { parts, pdf: { pages: '3, 1', footer: { htmlTemplate: b64('<p style="font:9px sans-serif">Page {{pageNumber}} of {{totalPages}}. Section: {{section}}.</p>') } } } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    const pdf = new Uint8Array(result.body);
    const pages = pdftotextPages(pdf, pageCountOf(pdf)).map((text) => text.replace(/\s+/g, ' '));
    assert.equal(pages.length, 2);
    assert.match(pages[0] ?? '', /Gamma text.*Page 1 of 2\. Section: Gamma\./);
    assert.match(pages[1] ?? '', /Alpha text.*Page 2 of 2\. Section: Alpha\./);
  });

  it("refuses a merge part with its own band of the kind the merge lays over every page, naming the part's field", async () => {
    // Act
    const attempt = renderer.render(
      {
        parts: [{ page: { html: b64('<p>a</p>') } }, { page: { html: b64('<p>b</p>') }, pdf: { footer: { html: b64('<p>own</p>') } } }],
        pdf: { footer: { html: b64('<p>merged</p>') } },
      } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).join() === 'parts.1.pdf.footer');
  });

  it("refuses a merge's section selector that is not CSS with a 400 on the merge's pdf.sectionHeadings", async () => {
    // Act
    const attempt = renderer.render({ parts: [{ page: { html: b64('<h1>a</h1>') } }], pdf: { footer: { html: b64('<p class="section"></p>') }, sectionHeadings: 'h1[' } } as never, { timeoutMs: 60_000 });

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && Object.keys(error.fields).join() === 'pdf.sectionHeadings');
  });

  it("writes the band's date in the page's timezone", async () => {
    // Prepare: a zone whose date differs from UTC's now (UTC+14 from 10:00 UTC, UTC-11 before 11:00 UTC).
    const timezone = new Date().getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
    const expected = () => new Date().toLocaleDateString('en-US', { timeZone: timezone });
    const before = expected();

    // Act
    const result = await renderer.render(
      { output: 'PDF', page: { html: b64('<p>body</p>'), timezone }, pdf: { footer: { html: b64('<p>Dated <span class="date"></span>.</p>') } } } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    const [text = ''] = pdftotextPages(new Uint8Array(result.body), 1);
    assert.ok([before, expected()].some((date) => text.includes(`Dated ${date}.`)), text);
    assert.notEqual(before, new Date().toLocaleDateString('en-US', { timeZone: 'UTC' }));
  });

  it("fills a band's htmlTemplate with the render's templateData beside the band variables, the band's winning on a name both have", async () => {
    // Act
    const result = await renderer.render(
      {
        output: 'PDF',
        page: { htmlTemplate: b64('<p>Invoice for {{customer}}</p>'), templateData: { customer: 'ACME Corp', pageNumber: 99 } },
        pdf: { header: { htmlTemplate: b64('<p>Customer {{customer}}, page {{pageNumber}} of {{totalPages}}</p>') } },
      } as never,
      { timeoutMs: 60_000 },
    );

    // Assess
    const [text = ''] = pdftotextPages(new Uint8Array(result.body), 1);
    assert.match(text, /Customer ACME Corp, page 1 of 1/);
  });
});
