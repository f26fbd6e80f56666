import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFString } from '@cantoo/pdf-lib';
import { archiveStep } from '../../../lib/finishing/steps/archive/archive.js';
import { instructions } from '../../../lib/finishing/steps/archive/artifact-marking.js';
import { attachStep } from '../../../lib/finishing/steps/attach/attachments.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { invoiceXmp } from '../../../lib/finishing/steps/archive/e-invoice.js';

/** A small PDF the way Chromium leaves one: Info with its title and producer, an unflagged link, untagged paint. */
async function chromiumLikePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([200, 200]);
  doc.setTitle('Page title');
  doc.setProducer('Skia/PDF m140');
  doc.setCreator('Chromium');
  const link = doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [0, 0, 50, 50], A: { S: 'URI', URI: PDFString.of('https://example.com/') } });
  page.node.set(PDFName.of('Annots'), doc.context.obj([doc.context.register(link)]));
  const content = '0 0 1 rg 0 0 10 10 re f\n/P <</MCID 0>> BDC BT /F1 12 Tf (Tagged \\(x\\)) Tj ET EMC\nq 1 0 0 1 5 5 cm 0 0 m 5 5 l S Q\n';
  const stream = doc.context.flateStream(Buffer.from(content, 'latin1'));
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return doc.save();
}

const xmpOf = (doc: PDFDocument) => {
  const stream = doc.catalog.lookup(PDFName.of('Metadata'));
  assert.ok(stream instanceof PDFRawStream, 'a Metadata stream');
  assert.equal(stream.dict.get(PDFName.of('Filter')), undefined, 'the XMP is not compressed');
  return Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
};

const NOW = new Date('2026-03-01T09:30:15.250Z');

describe('archiveStep', () => {
  it('writes the same metadata to Info and XMP, the page title by default, the service as producer', async () => {
    // Act
    const out = await finishPdf(await chromiumLikePdf(), { archive: archiveStep({ metadata: { author: 'Ada', keywords: ['a', 'b'], language: 'de-DE' }, producer: 'DocRender', now: () => NOW }) }, unboundedBudget());
    // Assess
    const doc = await PDFDocument.load(out, { updateMetadata: false });
    const xmp = xmpOf(doc);
    assert.equal(doc.getTitle(), 'Page title');
    assert.match(xmp, /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Page title<\/rdf:li>/);
    assert.equal(doc.getAuthor(), 'Ada');
    assert.match(xmp, /<dc:creator><rdf:Seq><rdf:li>Ada<\/rdf:li>/);
    assert.equal(doc.getKeywords(), 'a, b');
    assert.match(xmp, /<pdf:Keywords>a, b<\/pdf:Keywords>/);
    assert.equal(doc.getProducer(), 'DocRender (Skia/PDF m140)');
    assert.match(xmp, /<pdf:Producer>DocRender \(Skia\/PDF m140\)<\/pdf:Producer>/);
    assert.equal(doc.getCreationDate()?.toISOString(), '2026-03-01T09:30:15.000Z');
    assert.match(xmp, /<xmp:CreateDate>2026-03-01T09:30:15Z<\/xmp:CreateDate>/);
    assert.equal((doc.catalog.lookup(PDFName.of('Lang')) as PDFString).decodeText(), 'de-DE');
    assert.doesNotMatch(xmp, /pdfaid/, 'no PDF/A claim without pdfa');
  });

  it('PDF/A: identification, sRGB output intent, file ID, printable annotations, version 1.7', async () => {
    // Act
    const out = await finishPdf(await chromiumLikePdf(), { archive: archiveStep({ metadata: {}, producer: 'DocRender', pdfa: 'PDF/A-3u', now: () => NOW }) }, unboundedBudget());
    // Assess
    const doc = await PDFDocument.load(out, { updateMetadata: false });
    assert.match(xmpOf(doc), /<pdfaid:part>3<\/pdfaid:part><pdfaid:conformance>U<\/pdfaid:conformance>/);
    const intents = doc.catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
    const intent = intents.lookup(0, PDFDict);
    assert.equal(intent.lookup(PDFName.of('S')), PDFName.of('GTS_PDFA1'));
    assert.ok(intent.lookup(PDFName.of('DestOutputProfile')) instanceof PDFRawStream);
    assert.ok(doc.context.trailerInfo.ID, 'a file identifier');
    const annot = doc.getPage(0).node.lookup(PDFName.of('Annots'), PDFArray).lookup(0, PDFDict);
    assert.equal((annot.lookup(PDFName.of('F')) as PDFNumber).asNumber() & 4, 4);
    assert.match(Buffer.from(out.subarray(0, 9)).toString('latin1'), /^%PDF-1\.7/);
  });

  it('PDF/UA: title shown, marked, structure tab order, links described, untagged paint marked as artifacts', async () => {
    // Act
    const out = await finishPdf(await chromiumLikePdf(), { archive: archiveStep({ metadata: { language: 'en' }, producer: 'DocRender', pdfua: true, pdfa: 'PDF/A-2b', now: () => NOW }) }, unboundedBudget());
    // Assess
    const doc = await PDFDocument.load(out, { updateMetadata: false });
    const xmp = xmpOf(doc);
    assert.match(xmp, /<pdfuaid:part>1<\/pdfuaid:part>/);
    assert.match(xmp, /<pdfaSchema:prefix>pdfuaid<\/pdfaSchema:prefix>/, 'pdfuaid declared for PDF/A');
    assert.equal(doc.catalog.lookup(PDFName.of('ViewerPreferences'), PDFDict).get(PDFName.of('DisplayDocTitle'))?.toString(), 'true');
    assert.equal(doc.catalog.lookup(PDFName.of('MarkInfo'), PDFDict).get(PDFName.of('Marked'))?.toString(), 'true');
    const page = doc.getPage(0).node;
    assert.equal(page.get(PDFName.of('Tabs')), PDFName.of('S'));
    const annot = page.lookup(PDFName.of('Annots'), PDFArray).lookup(0, PDFDict);
    assert.match(annot.lookup(PDFName.of('Contents'))?.toString() ?? '', /./);
    const content = Buffer.from(decodePDFRawStream(page.lookup(PDFName.of('Contents')) as PDFRawStream).decode()).toString('latin1');
    assert.match(content, /\/Artifact BMC\n0 0 10 10 re f\nEMC/);
    assert.match(content, /\/Artifact BMC\n0 0 m 5 5 l S\nEMC/);
    assert.match(content, /\/P <<\/MCID 0>> BDC BT \/F1 12 Tf \(Tagged \\\(x\\\)\) Tj ET EMC/, 'tagged content untouched');
  });
});

describe('instructions', () => {
  it('splits operators from operands, skipping strings, dictionaries and inline image data whole', () => {
    const ops = instructions(Buffer.from('/P <</MCID 0>> BDC (a\\) EMC) Tj [(x) 5 (y)] TJ BI /W 1 /H 1 ID \x00EI\x01 EI Q % Tj\n', 'latin1'));
    assert.deepEqual(ops.map((o) => o.operator), ['BDC', 'Tj', 'TJ', 'BI', 'Q']);
  });
});

describe('attachStep', () => {
  it('embeds files as associated files with their relationship', async () => {
    // Act
    const out = await finishPdf(await chromiumLikePdf(), { attach: attachStep([{ name: 'data.csv', content: Buffer.from('a,b\n'), mimeType: 'text/csv', relationship: 'Source', description: 'Raw' }], () => NOW) }, unboundedBudget());
    // Assess
    const doc = await PDFDocument.load(out);
    const [file] = doc.getAttachments();
    assert.equal(file?.name, 'data.csv');
    assert.equal(Buffer.from(file?.data ?? []).toString(), 'a,b\n');
    const spec = doc.catalog.lookup(PDFName.of('AF'), PDFArray).lookup(0, PDFDict);
    assert.equal(spec.get(PDFName.of('AFRelationship')), PDFName.of('Source'));
  });
});

describe('invoiceXmp', () => {
  it('declares the fx properties for PDF/A with the file name of the profile', () => {
    const { descriptions, extensionSchemas } = invoiceXmp('XRECHNUNG');
    assert.match(descriptions.join(''), /<fx:DocumentFileName>xrechnung\.xml<\/fx:DocumentFileName>.*<fx:ConformanceLevel>XRECHNUNG</);
    assert.match(extensionSchemas.join(''), /<pdfaSchema:prefix>fx<\/pdfaSchema:prefix>/);
  });
});
