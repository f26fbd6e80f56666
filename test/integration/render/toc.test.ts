import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { outlineOf, pdfinfo, pdftotextPages, pageCountOf } from '../../helpers/pdf-tools.js';
import { CHAPTERS, reportHtml, reportToc, TOC_ENTRIES } from '../../helpers/report.js';
import { b64 } from './render-fixtures.js';

describe('renderer › table of contents (pdf.toc)', () => {
  let renderer: RequestRenderer;
  before(async () => {
    renderer = await warmFinishingRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  it('fills each entry with the page where pdftotext finds its heading, for a TOC two pages long, and leaves a missing anchor empty', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64(reportHtml(reportToc())) }, pdf: { toc: true, footer: { html: b64('<p class="pageNumber"></p>') } } } as never, { timeoutMs: 60_000 });
    const pdf = new Uint8Array(result.body);

    // Assess
    const pages = pdftotextPages(pdf, pageCountOf(pdf)).map((text) => text.replace(/\s+/g, ' '));
    const tocPages = pages.flatMap((text, index) => (/ENTRY /.test(text) ? [index] : []));
    assert.deepEqual(tocPages, [1, 2], 'the table of contents spans pages 2 and 3');
    const listed = new Map(tocPages.flatMap((index) => Array.from((pages[index] ?? '').matchAll(/ENTRY (.+?): (\d*)\./g), (m) => [m[1] ?? '', m[2] ?? ''] as const)));
    for (const entry of TOC_ENTRIES) {
      const where = pages.findIndex((text, index) => !tocPages.includes(index) && text.includes(entry.text)) + 1;
      assert.ok(where > 3, `${entry.label} found in the body`);
      assert.equal(listed.get(entry.label), String(where), `${entry.label}: listed ${listed.get(entry.label)}, found on ${where}`);
    }
    assert.equal(listed.get('Missing'), '', 'an anchor not in the document leaves its entry empty');
    assert.ok((result.timings.tocPrints ?? 0) >= 2 && (result.timings.tocPrints ?? 0) <= 3, `prints: ${result.timings.tocPrints}`);
  });

  it('prints a third time when the filled numbers push the chapters a page further, and the numbers match where they land', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64(reportHtml(reportToc({ growing: true }))) }, pdf: { toc: true } } as never, { timeoutMs: 60_000 });
    const pdf = new Uint8Array(result.body);

    // Assess
    assert.equal(result.timings.tocPrints, 3, 'the second print moved the anchors, the third confirmed them');
    const pages = pdftotextPages(pdf, pageCountOf(pdf)).map((text) => text.replace(/\s+/g, ' '));
    const tocPages = pages.flatMap((text, index) => (/ENTRY /.test(text) ? [index] : []));
    const tocText = tocPages.map((index) => pages[index]).join(' ').replace(/\s+/g, ' ');
    for (const entry of TOC_ENTRIES) {
      const where = pages.findIndex((text, index) => !tocPages.includes(index) && text.includes(entry.text)) + 1;
      assert.ok(tocText.includes(`ENTRY ${entry.label}: ${where} .`), `${entry.label} on page ${where}`);
    }
  });
  it("keeps the outline's and the structure tree's pages right after the reprints, with outline and tagged", async () => {
    // Act
    const result = await renderer.render(
      { output: 'PDF', page: { html: b64(reportHtml(reportToc())) }, pdf: { toc: true, outline: true, tagged: true, footer: { html: b64('<p class="pageNumber"></p>') } } } as never,
      { timeoutMs: 60_000 },
    );
    const pdf = new Uint8Array(result.body);

    // Assess: qpdf's outline sends each chapter to the page where pdftotext finds its heading.
    assert.ok((result.timings.tocPrints ?? 0) >= 2, `prints: ${result.timings.tocPrints}`);
    const pages = pdftotextPages(pdf, pageCountOf(pdf)).map((text) => text.replace(/\s+/g, ' '));
    const outline = new Map(outlineOf(pdf).map((item) => [item.title, item.destpageposfrom1]));
    assert.equal(outline.get('Contents'), 2);
    CHAPTERS.forEach((name, index) => {
      const where = pages.findIndex((text) => text.includes(`START-${index + 1}`)) + 1;
      assert.equal(outline.get(name), where, `${name}: the outline says ${outline.get(name)}, pdftotext finds it on ${where}`);
    });
    // pdfinfo's structure tree is the last print's: its headings, and the TOC entries with the numbers filled in.
    const structure = pdfinfo(pdf, ['-struct-text']);
    assert.equal(structure.status, 0, structure.stderr);
    const tree = structure.stdout.replace(/\s+/g, ' ');
    for (const name of ['Contents', ...CHAPTERS]) assert.ok(tree.includes(`H1 (block) NonStruct "${name}"`), name);
    CHAPTERS.forEach((name, index) => {
      const where = pages.findIndex((text) => text.includes(`START-${index + 1}`)) + 1;
      assert.ok(tree.includes(`"ENTRY ${name}: " NonStruct "${where}"`) || tree.includes(`"ENTRY ${name}: " Link (inline) NonStruct "${where}"`), `${name}: ${where}`);
    });
  });
});
