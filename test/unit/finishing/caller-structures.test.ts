import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFRawStream, StandardFonts } from '@cantoo/pdf-lib';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { compressStep } from '../../../lib/finishing/steps/compress/compress.js';
import { openExistingPdf } from '../../../lib/finishing/input/existing-pdf.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { readPdfInput } from '../../../lib/finishing/input/pdf-input-bounds.js';

const DEFAULTS = { imageQuality: 80, maxImageDpi: 150, grayscale: false };

/** A one-page document with a line of text, and `edit` applied to it before it is saved. */
async function documentWith(edit: (doc: PDFDocument) => void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  page.drawText('Caller structures', { x: 20, y: 100, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  edit(doc);
  return doc.save({ useObjectStreams: false });
}

/** The page's /Resources made a stream whose dictionary holds them (as PDF.js's issue15150.pdf has it). */
const resourcesAsStream = (doc: PDFDocument) => {
  const page = doc.getPage(0);
  const resources = page.node.lookup(PDFName.of('Resources'), PDFDict);
  const stream = doc.context.flateStream(new Uint8Array(), {});
  for (const [key, value] of resources.entries()) stream.dict.set(key, value);
  page.node.set(PDFName.of('Resources'), doc.context.register(stream));
};

/** An XMP packet claiming PDF/A-1b, as the catalog's /Metadata. */
const claimsPdfa1 = (doc: PDFDocument) => {
  const xmp =
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>1</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>' +
    '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
};

describe("a caller's PDF with structures pdf-lib does not take as they are", () => {
  it('compresses a page whose /Resources is a stream (its dictionary read, as PDF.js reads it)', async () => {
    // Prepare
    const pdf = await documentWith(resourcesAsStream);

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess
    const page = (await PDFDocument.load(out)).getPage(0);
    assert.ok(page.node.lookup(PDFName.of('Resources')) instanceof PDFDict);
    assert.ok(page.node.Resources()?.lookup(PDFName.of('Font')) instanceof PDFDict, 'the fonts the stream held are the page\'s');
  });

  it('checks an existing PDF with a stream for /Resources against PDF/A without failing', async () => {
    // Prepare
    const existing = await openExistingPdf(await documentWith(resourcesAsStream), undefined);

    // Act
    const problems = existing.pdfaProblems('PDF/A-2b');

    // Assess: the standard font is not embedded, which is the one problem to name.
    assert.ok(problems.some((problem) => /font/i.test(problem)), problems.join('; '));
  });

  it('compresses a document claiming PDF/A-1 without object streams, which that part forbids', async () => {
    // Prepare
    const pdf = await documentWith(claimsPdfa1);

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess
    assert.equal(Buffer.from(out).includes('/ObjStm'), false);
    assert.equal((await PDFDocument.load(out)).getPageCount(), 1);
  });

  it('still writes object streams when compressing a document that claims no PDF/A-1', async () => {
    const out = await finishPdf(await documentWith(() => undefined), { compress: compressStep(DEFAULTS) }, unboundedBudget());
    assert.equal(Buffer.from(out).includes('/ObjStm'), true);
  });

  it('refuses, before anything reads it, an XMP packet that inflates past the stream ceiling', async () => {
    // Prepare: 70 MB of XMP in about 70 KB of Flate; pdf-lib's save would inflate it with no ceiling.
    const pdf = await documentWith((doc) => {
      const bomb = PDFRawStream.of(doc.context.obj({ Type: 'Metadata', Subtype: 'XML', Filter: 'FlateDecode' }) as PDFDict, deflateSync(Buffer.alloc(70 * 1024 * 1024, 0x20)));
      doc.catalog.set(PDFName.of('Metadata'), doc.context.register(bomb));
    });

    // Act
    const read = await readPdfInput(pdf);

    // Assess
    assert.ok('problem' in read);
    assert.match(read.problem, /XMP metadata must decode to at most 64 MB/);
  });
});
