import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFArray, PDFDict, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { MERGE_PART_CODE, RenderTimeoutError, ValidationError } from '../../../lib/errors.js';
import type { MergeInput } from '../../../lib/schemas/merge-requests.js';
import { closedPort } from '../../helpers/closed-port.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { outlineOf, pageContentStreams, pageCountOf, pdfinfo, pdftotextPages, qpdf } from '../../helpers/pdf-tools.js';
import { b64 } from '../render/render-fixtures.js';

/**
 * Merges proven with qpdf and poppler: the page count is the parts' sum, each
 * part's text is on its own pages in order, an existing PDF's pages keep
 * their content streams byte for byte, the outline has one entry per part
 * (their own outlines nested below), and the file checks clean.
 */

/** An existing PDF as a caller would send it: two pages of terms, made without Chromium. */
async function termsPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const n of [1, 2]) doc.addPage([595, 842]).drawText(`Terms and conditions, clause ${n}`, { x: 50, y: 780, font, size: 14 });
  doc.setTitle('Terms');
  return doc.save();
}

const cover = { html: b64('<title>Cover page</title><h1>Annual report cover</h1>') };
const report = {
  html: b64(`<title>The report</title>
    <h1 style="break-after:page">Results chapter</h1><h1 style="break-after:page">Outlook chapter</h1><h1>Appendix chapter</h1>`),
};

describe('finishing › merge (qpdf, poppler)', () => {
  let renderer: RequestRenderer;
  let terms: Uint8Array;
  let refusing: number;
  before(async () => {
    renderer = await warmFinishingRenderer();
    terms = await termsPdf();
    refusing = await closedPort();
  });
  after(async () => {
    await renderer?.close();
  });

  const merge = async (input: Omit<MergeInput, 'output'>, timeoutMs?: number) =>
    new Uint8Array((await renderer.render({ output: 'PDF', ...input }, timeoutMs ? { timeoutMs } : undefined)).body);

  it('puts the parts one after another: page count, text in order, existing pages untouched, outline per part', async () => {
    // Act
    const pdf = await merge({
      parts: [
        { page: cover, title: 'Cover' },
        { page: report, pdf: { format: 'a4' } },
        { document: Buffer.from(terms).toString('base64'), title: 'Terms and conditions' },
      ],
      pdf: { outline: true },
    });

    // Assess
    assert.equal(pageCountOf(pdf), 1 + 3 + 2);
    const pages = pdftotextPages(pdf, 6);
    const expected = [/Annual report cover/, /Results chapter/, /Outlook chapter/, /Appendix chapter/, /clause 1/, /clause 2/];
    expected.forEach((text, i) => assert.match(pages[i] ?? '', text, `page ${i + 1}`));
    assert.deepEqual(pageContentStreams(pdf).slice(4), pageContentStreams(terms), 'the existing PDF\'s content streams, byte for byte');
    const outline = outlineOf(pdf);
    assert.deepEqual(outline.map((item) => [item.title, item.destpageposfrom1]), [['Cover', 1], ['The report', 2], ['Terms and conditions', 5]]);
    assert.deepEqual(outline[1]?.kids.map((item) => [item.title, item.destpageposfrom1]), [['Results chapter', 2], ['Outlook chapter', 3], ['Appendix chapter', 4]]);
    const checked = qpdf(pdf, ['--check']);
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  });

  it('names a part by its document title, else by its number, and nests nothing with outline off', async () => {
    // Act
    const pdf = await merge({ parts: [{ page: report }, { page: { html: b64('<p>untitled</p>') } }] });

    // Assess
    const outline = outlineOf(pdf);
    assert.deepEqual(outline.map((item) => [item.title, item.kids.length]), [['The report', 0], ['Part 2', 0]]);
  });

  it('applies the top-level pdfa, metadata and attachments once, to the merged file', async () => {
    // Act
    const pdf = await merge({
      parts: [{ page: cover }, { page: report }],
      pdf: {
        pdfa: 'PDF/A-3b',
        metadata: { title: 'Annual report 2026', author: 'Finance' },
        attachments: [{ name: 'figures.csv', content: Buffer.from('quarter,revenue\nQ1,40\n').toString('base64'), mimeType: 'text/csv', relationship: 'Data' }],
      },
    });

    // Assess: one document, identified as PDF/A-3b, titled as asked in Info and XMP alike, with the file attached.
    assert.equal(pageCountOf(pdf), 1 + 3);
    const xmp = pdfinfo(pdf, ['-meta']).stdout;
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part><pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(xmp, /<dc:title>.*Annual report 2026.*<\/dc:title>/s);
    assert.match(pdfinfo(pdf).stdout, /^Title:\s+Annual report 2026$/m);
    assert.match(pdfinfo(pdf).stdout, /^Author:\s+Finance$/m);
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    assert.deepEqual(
      doc.getAttachments().map((file) => [file.name, Buffer.from(file.data).toString()]),
      [['figures.csv', 'quarter,revenue\nQ1,40\n']],
    );
    const associated = doc.catalog.lookup(PDFName.of('AF'), PDFArray).lookup(0, PDFDict);
    assert.equal(associated.get(PDFName.of('AFRelationship')), PDFName.of('Data'));
    assert.equal(doc.catalog.lookup(PDFName.of('OutputIntents'), PDFArray).size(), 1, 'one sRGB output intent');
    const checked = qpdf(pdf, ['--check']);
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  });

  it('fails the whole merge with the failing part\'s error and index', async () => {
    // Act
    const failing = merge({ parts: [{ page: cover }, { page: { url: `http://127.0.0.1:${refusing}/` } }] });

    // Assess
    await assert.rejects(failing, (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.code, MERGE_PART_CODE);
      assert.deepEqual(Object.keys(error.fields), ['parts.1.page.url']);
      assert.match(error.message, /^Part 1 failed/);
      return true;
    });
  });

  it('answers a timeout, never a partial file, when the parts do not fit the time budget', async () => {
    // Act: the first part prints; the second never finishes loading (its script never returns), so the
    // budget runs out mid-merge. (Fixed waits no longer do: since issue 21 a wait that does not fit the
    // budget is cut short and the render continues.)
    const hangs = { html: b64('<p>hangs</p><script>for (;;) {}</script>') };
    const merging = merge({ parts: [{ page: { html: b64('<p>first</p>') } }, { page: hangs }] }, 3_000);

    // Assess
    await assert.rejects(merging, RenderTimeoutError);
  });
});
