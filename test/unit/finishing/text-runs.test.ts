import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fontkit from '@cantoo/fontkit';
import { PDFDict, PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { PNG } from 'pngjs';
import { documentBudget, DocumentBudgetError, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { joinTextRuns } from '../../../lib/finishing/steps/compress/text-runs.js';
import { pageContentStreams, pdftoppm, pdftotext } from '../../helpers/pdf-tools.js';

/** Liberation Sans (SIL OFL, shipped with pdfjs-dist), 2048 units per em, embedded as Type0 Identity-H with its /W widths. */
const FACE = readFileSync(createRequire(import.meta.url).resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'));
type Face = { unitsPerEm: number; glyphForCodePoint(point: number): { id: number; advanceWidth: number } };
const face = fontkit.create(FACE) as unknown as Face;

/**
 * Content as Chromium's PDF writer lays out a line when glyph positions are
 * not exact sums of advances: each glyph after the first moved by its own
 * `Td`, by its advance plus `error` (the fixed-point noise), and by `kern`
 * more before the glyph at `kernAt`. Glyph ids are the codes (Identity-H and
 * pdf-lib's unsubset embedding keep them).
 */
function glyphByGlyph(text: string, size: number, options: { error?: number; kernAt?: number; kern?: number } = {}): string {
  const glyphs = [...text].map((char) => face.glyphForCodePoint(char.codePointAt(0) as number));
  const parts = [`<${glyphs[0]!.id.toString(16).padStart(4, '0')}> Tj`];
  for (let i = 1; i < glyphs.length; i += 1) {
    const advance = (glyphs[i - 1]!.advanceWidth * size) / face.unitsPerEm + (options.error ?? 0) + (i === options.kernAt ? (options.kern ?? 0) : 0);
    parts.push(`${advance.toFixed(7)} 0 Td <${glyphs[i]!.id.toString(16).padStart(4, '0')}> Tj`);
  }
  return parts.join('\n');
}

/** A one-page PDF in Liberation Sans (resource /F1) whose page content is `content` (its own stream, or shared with a second page). */
async function pageWith(content: string, options: { sharedWithSecondPage?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(FACE, { subset: false });
  const stream = doc.context.register(doc.context.flateStream(Buffer.from(content, 'latin1')));
  for (let i = 0; i < (options.sharedWithSecondPage ? 2 : 1); i += 1) {
    const page = doc.addPage([400, 200]);
    page.node.setFontDictionary(PDFName.of('F1'), font.ref);
    page.node.set(PDFName.of('Contents'), stream);
  }
  await font.embed();
  return doc.save({ useObjectStreams: false });
}

async function joined(pdf: Uint8Array): Promise<{ pdf: Uint8Array; replaced: number }> {
  const doc = await PDFDocument.load(pdf);
  const replaced = joinTextRuns(doc, unboundedBudget());
  return { pdf: await doc.save({ useObjectStreams: false }), replaced };
}

/** The largest difference of one grey level between two renderings of the same pages, 0 to 255. */
function largestPixelDifference(a: Uint8Array, b: Uint8Array, dpi = 150): number {
  const [left, right] = [pdftoppm(a, dpi), pdftoppm(b, dpi)];
  assert.equal(left.length, right.length);
  let largest = 0;
  left.forEach((png, page) => {
    const [x, y] = [PNG.sync.read(png).data, PNG.sync.read(right[page] as Buffer).data];
    for (let i = 0; i < x.length; i += 1) largest = Math.max(largest, Math.abs((x[i] as number) - (y[i] as number)));
  });
  return largest;
}

type WordBox = { word: string; xMin: number; xMax: number };

/** Each word poppler reads, with where it starts and ends (points). */
function wordBoxes(pdf: Uint8Array): WordBox[] {
  return [...pdftotext(pdf, ['-bbox']).stdout.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map(
    ([, xMin, xMax, word]) => ({ word: word as string, xMin: Number(xMin), xMax: Number(xMax) }),
  );
}

/** The page content streams, decoded (the tests' are all Flate). */
const contentOf = (pdf: Uint8Array) => pageContentStreams(pdf).flat().map((stream) => inflateSync(stream).toString('latin1')).join('\n');

describe('compress: text runs', () => {
  it('shows a line laid out glyph by glyph as one run, each glyph where it was and the kerned one adjusted', async () => {
    // Prepare: 16 pt, 1e-5 of fixed-point noise on every advance, 0.8 pt of kerning before the 'V'
    const line = 'AVATAR Wolf Type 0123';
    const original = await pageWith(`BT\n/F1 16 Tf\n1 0 0 1 20 150 Tm\n${glyphByGlyph(line, 16, { error: 1e-5, kernAt: 1, kern: -0.8 })}\nET`);

    // Act
    const { pdf, replaced } = await joined(original);

    // Assess: one TJ, its one adjustment the kerning (0.8 pt at 16 pt: 50 thousandths of an em), no Td left...
    assert.equal(replaced, 1);
    const content = contentOf(pdf);
    assert.equal((content.match(/TJ/g) ?? []).length, 1, content);
    assert.doesNotMatch(content, /Td/);
    assert.match(content, /\[<[0-9a-f]{4}>50<[0-9a-f]+>\] TJ/);
    // ...and the page drawn and read as before, in fewer bytes
    assert.equal(largestPixelDifference(original, pdf), 0);
    assert.equal(pdftotext(pdf).stdout, pdftotext(original).stdout);
    assert.ok(contentOf(pdf).length < contentOf(original).length / 2);
  });

  it('never lets the noise add up: a long line stays where it was at its end', async () => {
    // Prepare: 200 glyphs, each advance 0.0039 pt too long (under half a thousandth of an em at 10 pt): 0.78 pt by the end
    const original = await pageWith(`BT\n/F1 10 Tf\n1 0 0 1 5 100 Tm\n${glyphByGlyph('iiiiiiiiii'.repeat(20), 10, { error: 0.0039 })}\nET`);

    // Act
    const { pdf } = await joined(original);

    // Assess: adjustments are made as the drift reaches the tolerance, not once per glyph and not never
    const adjustments = (contentOf(pdf).match(/>-?\d+(\.\d+)?</g) ?? []).length;
    assert.ok(adjustments > 50 && adjustments < 200, `${adjustments} adjustments`);
    const [before, after] = [wordBoxes(original), wordBoxes(pdf)];
    assert.equal(after.length, 1);
    assert.ok(Math.abs((after[0] as WordBox).xMax - (before[0] as WordBox).xMax) < 0.01, `the line ends at ${after[0]?.xMax}, not ${before[0]?.xMax}`);
  });

  it('puts the matrices back where the file has them before an operator it does not follow (T*, a TJ of its own, a line below)', async () => {
    // Prepare: absorbed moves, then T* (relative to the line matrix), a TJ, a Td down, and text after each
    const original = await pageWith([
      'BT', '/F1 14 Tf', '18 TL', '1 0 0 1 20 170 Tm', glyphByGlyph('Kerned', 14, { kernAt: 3, kern: 1.5 }),
      'T*', glyphByGlyph('Next line', 14),
      '[(ab) -300 (cd)] TJ', glyphByGlyph('after', 14),
      '0 -40 Td', glyphByGlyph('Below', 14, { error: 0.2 }),
      'ET',
    ].join('\n'));

    // Act
    const { pdf } = await joined(original);

    // Assess
    assert.equal(largestPixelDifference(original, pdf, 200), 0);
    assert.equal(pdftotext(pdf).stdout, pdftotext(original).stdout);
  });

  it('leaves alone a stream that sets character or word spacing, one drawn on two pages, and one that ends inside a text object', async () => {
    const line = glyphByGlyph('Spacing', 12, { error: 1e-5 });
    for (const [label, pdf] of [
      ['Tc', await pageWith(`BT /F1 12 Tf 2 Tc 1 0 0 1 20 100 Tm ${line} ET`)],
      ['Tw before the text object', await pageWith(`3 Tw BT /F1 12 Tf 1 0 0 1 20 100 Tm ${line} ET`)],
      ['the " operator', await pageWith(`BT /F1 12 Tf 14 TL 1 0 0 1 20 100 Tm 2 1 (x) " ${line} ET`)],
      ['shared', await pageWith(`BT /F1 12 Tf 1 0 0 1 20 100 Tm ${line} ET`, { sharedWithSecondPage: true })],
      ['unended', await pageWith(`BT /F1 12 Tf 1 0 0 1 20 100 Tm ${line}`)],
    ] as const) {
      const { replaced, pdf: after } = await joined(pdf);
      assert.equal(replaced, 0, label);
      assert.equal(contentOf(after), contentOf(pdf), label);
    }
  });

  it('copies what is not text byte for byte, and the text of a font whose advances it does not know', async () => {
    // Prepare: paths and marked content around the text; /F9 is no font of the page
    const original = await pageWith(`q 1 0 0 RG 10 10 100 50 re S Q\n/Span <</ActualText (fi)>> BDC\nBT /F9 12 Tf 1 0 0 1 20 100 Tm <0001> Tj 5.5 0 Td <0002> Tj ET\nEMC\n0 g 5 5 m 50 50 l S`);

    // Act
    const { pdf, replaced } = await joined(original);

    // Assess: nothing to join, so the stream is the file's
    assert.equal(replaced, 0);
    assert.equal(contentOf(pdf), contentOf(original));
  });

  it('does not follow a font whose /W is thousands of ranges (each glyph would search them all)', async () => {
    // Prepare: the line glyph by glyph, its font's widths rewritten as 10,000 ranges
    const pdf = await pageWith(`BT /F1 12 Tf 1 0 0 1 20 100 Tm ${glyphByGlyph('Ranges', 12, { error: 1e-5 })} ET`);
    const doc = await PDFDocument.load(pdf);
    for (const [, object] of doc.context.enumerateIndirectObjects()) {
      if (object instanceof PDFDict && object.get(PDFName.of('Subtype')) === PDFName.of('CIDFontType2')) {
        object.set(PDFName.of('W'), doc.context.obj(Array.from({ length: 10_000 }, (_, i) => [i * 2, i * 2 + 1, 500]).flat()));
      }
    }

    // Act + Assess
    assert.equal(joinTextRuns(doc, unboundedBudget()), 0);
  });

  it('counts the operators it walks against the document budget', async () => {
    // Prepare: 3000 glyphs, each its own Td and Tj
    const pdf = await pageWith(`BT /F1 8 Tf 1 0 0 1 0 100 Tm ${glyphByGlyph('x'.repeat(3000), 8, { error: 1e-5 })} ET`);
    const doc = await PDFDocument.load(pdf);

    // Act + Assess
    assert.throws(() => joinTextRuns(doc, documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { objects: 1000 } })), DocumentBudgetError);
  });
});
