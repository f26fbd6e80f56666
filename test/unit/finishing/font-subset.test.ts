import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fontkit from '@cantoo/fontkit';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, type PDFObject } from '@cantoo/pdf-lib';
import { compressStep } from '../../../lib/finishing/steps/compress/compress.js';
import { contentUsage } from '../../../lib/finishing/steps/compress/content-images.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { pdftoppm, pdftotext, qpdf } from '../../helpers/pdf-tools.js';

const DEFAULTS = { imageQuality: 80, maxImageDpi: 150, grayscale: false };
/** Liberation Sans (SIL OFL, shipped with pdfjs-dist): a whole TrueType face, 2600+ glyphs. */
const FACE = readFileSync(createRequire(import.meta.url).resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'));

/** A page in the whole face, embedded unsubset (a Type0 CIDFontType2, Identity-H, as many producers write), and the face's font file size. */
async function wholeFontDocument(edit?: (doc: PDFDocument, font: PDFRef) => void): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(FACE, { subset: false });
  const page = doc.addPage([300, 200]);
  page.drawText('Hello, fi (world)', { x: 20, y: 150, size: 18, font });
  page.drawText('Quartz \\ glyphs', { x: 20, y: 100, size: 18, font });
  edit?.(doc, font.ref);
  return doc.save();
}

const descendant = (doc: PDFDocument) => {
  const font = [...doc.context.enumerateIndirectObjects()].map(([, o]) => o).find((o): o is PDFDict => o instanceof PDFDict && o.get(PDFName.of('Subtype')) === PDFName.of('Type0'));
  return (font?.lookup(PDFName.of('DescendantFonts')) as PDFArray).lookup(0) as PDFDict;
};
const fontFile = (doc: PDFDocument) => (descendant(doc).lookup(PDFName.of('FontDescriptor')) as PDFDict).lookup(PDFName.of('FontFile2')) as PDFRawStream;

describe('compress: font subsetting', () => {
  it('reads the strings each font shows, through escapes and hexadecimal strings', async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([100, 100]);
    const font = doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }));
    page.node.setFontDictionary(PDFName.of('F9'), font);
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(Buffer.from('BT /F9 12 Tf (a\\(b\\051\\n) Tj [<4142 4> -20 (c)] TJ ET'))));

    const usage = contentUsage(await PDFDocument.load(await doc.save()), unboundedBudget());

    const shown = [...usage.fonts.values()].flat().map((bytes) => Buffer.from(bytes).toString('latin1'));
    assert.deepEqual(shown, ['a(b)\n', 'AB@', 'c']);
    assert.equal(usage.fontsFullyKnown.size, 1);
  });

  it('keeps only the glyphs shown, the page drawn and its text extracted as before', async () => {
    // Prepare
    const pdf = await wholeFontDocument();
    const before = await PDFDocument.load(pdf);
    const wholeBytes = fontFile(before).getContents().length;

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess: a much smaller program, a CID → glyph map stream, widths only of the CIDs shown (16 distinct).
    const after = await PDFDocument.load(out);
    assert.ok(fontFile(after).getContents().length < wholeBytes / 4, `${fontFile(after).getContents().length} bytes against ${wholeBytes}`);
    assert.ok(descendant(after).get(PDFName.of('CIDToGIDMap')) instanceof PDFRef);
    const widths = descendant(after).lookup(PDFName.of('W')) as PDFArray;
    const count = widths.asArray().filter((item): item is PDFArray => item instanceof PDFArray).reduce((sum, run) => sum + run.size(), 0);
    assert.equal(count, new Set('Hello, fi (world)Quartz \\ glyphs').size);
    assert.equal(qpdf(out, ['--check']).status, 0);
    assert.equal(pdftotext(out).stdout, pdftotext(pdf).stdout);
    assert.ok(pdftoppm(out, 150)[0]?.equals(pdftoppm(pdf, 150)[0] as Buffer), 'the page renders pixel for pixel as before');
  });

  it('keeps the glyphs an appearance stream shows too, one without /Subtype sharing the page\'s fonts included', async () => {
    // Prepare: an annotation whose appearance (no /Subtype, the page's /Font dictionary) shows "Z", which the page does not.
    let zCid = 0;
    const pdf = await wholeFontDocument((doc, font) => {
      const page = doc.getPage(0);
      const fontDict = page.node.Resources()?.lookup(PDFName.of('Font'));
      const name = [...(fontDict as PDFDict).entries()].find(([, value]) => value === font)?.[0] as PDFName;
      zCid = (fontkit.create(FACE) as unknown as { glyphForCodePoint: (c: number) => { id: number } }).glyphForCodePoint(0x5a).id;
      const hex = zCid.toString(16).padStart(4, '0');
      const appearance = doc.context.register(doc.context.flateStream(Buffer.from(`BT ${name.toString()} 12 Tf <${hex}> Tj ET`), { BBox: [0, 0, 20, 20], Resources: { Font: fontDict as PDFDict } }));
      page.node.set(PDFName.of('Annots'), doc.context.obj([doc.context.obj({ Type: 'Annot', Subtype: 'Stamp', Rect: [200, 20, 220, 40], AP: { N: appearance } })]));
    });

    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    const after = await PDFDocument.load(out);
    assert.ok(descendant(after).get(PDFName.of('CIDToGIDMap')) instanceof PDFRef, 'subset');
    const widths = descendant(after).lookup(PDFName.of('W')) as PDFArray;
    const starts = widths.asArray().flatMap((item, i) => (item instanceof PDFArray ? [] : [[(item as unknown as { asNumber: () => number }).asNumber(), (widths.get(i + 1) as PDFArray).size()]]));
    assert.ok(starts.some(([start, size]) => zCid >= (start as number) && zCid < (start as number) + (size as number)), `CID ${zCid} of "Z" in ${widths.toString()}`);
    assert.ok(pdftoppm(out, 150)[0]?.equals(pdftoppm(pdf, 150)[0] as Buffer), 'the page, its stamp included, renders as before');
  });

  for (const [why, edit] of [
    ['an interactive form may draw any glyph later', (doc: PDFDocument, font: PDFRef) => doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [], DR: { Font: { F0: font } } }))],
    [
      "a Type 3 font's glyphs are content the walk does not read",
      (doc: PDFDocument) => {
        const type3 = doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type3', FontBBox: [0, 0, 1, 1], FontMatrix: [1, 0, 0, 1, 0, 0], CharProcs: {}, Encoding: { Type: 'Encoding', Differences: [] }, FirstChar: 0, LastChar: 0, Widths: [0] }));
        doc.getPage(0).node.setFontDictionary(PDFName.of('T3'), type3);
      },
    ],
    [
      'a form without resources shows text in a font not known',
      (doc: PDFDocument) => {
        // An annotation's appearance: shown, though no page content draws it (an object nothing reaches is dropped first).
        const form = doc.context.register(doc.context.flateStream(Buffer.from('BT /F1 12 Tf <0001> Tj ET'), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 10, 10] }));
        const note = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Square', Rect: [0, 0, 10, 10], AP: { N: form } }));
        doc.getPage(0).node.set(PDFName.of('Annots'), doc.context.obj([note]));
      },
    ],
  ] as Array<[string, (doc: PDFDocument, font: PDFRef) => void]>) {
    it(`leaves the font whole where ${why}`, async () => {
      const pdf = await wholeFontDocument(edit);
      const wholeBytes = fontFile(await PDFDocument.load(pdf)).getContents().length;

      const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

      const after = await PDFDocument.load(out);
      assert.equal(fontFile(after).getContents().length, wholeBytes);
      assert.equal(descendant(after).get(PDFName.of('CIDToGIDMap')) as PDFObject, PDFName.of('Identity'));
    });
  }
});
