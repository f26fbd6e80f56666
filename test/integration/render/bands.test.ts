import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { pdftotextPages, pageCountOf } from '../../helpers/pdf-tools.js';
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

describe('renderer › running header and footer (pdf.header, pdf.footer)', () => {
  let renderer: RequestRenderer;
  before(async () => {
    renderer = await warmFinishingRenderer();
  });
  after(async () => {
    await renderer?.close();
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
});
