import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import fontkit from '@cantoo/fontkit';
import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { PNG } from 'pngjs';
import { LAYER_FONTS } from '../../lib/fonts/layer-fonts.js';
import { UDHR_ARTICLE_1, type ScriptSample } from '../fixtures/udhr-article-1.js';
import { inkSsim } from '../helpers/ink-ssim.js';
import { embeddedFonts, pageCountOf, pdftoppm, pdftotextPages } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';

/**
 * Every script the layer covers, drawn (issue 46's proof): one sentence per
 * script (UDHR Article 1), each on a page of its own, in the page's default
 * font (`sans-serif`, no web font), so that what draws it is fontconfig's
 * fallback through the layer exactly as on Lambda. A line passes when four
 * readings agree: poppler extracts the text as given, poppler's page image
 * has ink where the text is, PDF.js reads no `.notdef` glyph in the file,
 * and the service reports no missing glyph.
 */

type Notdef = { page: number; unicode: string };

/**
 * The glyphs a PDF draws as `.notdef`, read by PDF.js (an independent reader
 * of the file): glyph 0 of a composite font (Chromium writes glyph ids as
 * codes), or the glyph a Type 3 font names `g0` (how Skia names glyph 0 in
 * the Type 3 fonts it makes of CFF and colour faces).
 */
async function notdefGlyphs(pdf: Uint8Array): Promise<Notdef[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, disableFontFace: true, verbosity: 0 }).promise;
  const found: Notdef[] = [];
  try {
    for (let page = 1; page <= doc.numPages; page += 1) {
      const ops = await (await doc.getPage(page)).getOperatorList();
      ops.fnArray.forEach((fn, i) => {
        if (fn !== pdfjs.OPS.showText) return;
        for (const glyph of (ops.argsArray[i] as [unknown[]])[0]) {
          if (typeof glyph !== 'object' || glyph === null) continue;
          const { operatorListId, originalCharCode, unicode } = glyph as { operatorListId?: string; originalCharCode: number; unicode: string };
          if (operatorListId === undefined ? originalCharCode === 0 : operatorListId === 'g0') found.push({ page, unicode });
        }
      });
    }
  } finally {
    await doc.destroy();
  }
  return found;
}

/** Dark pixels of a page image (PNG): ink, whatever its colour. */
function inkPixels(png: Buffer): number {
  const { data } = PNG.sync.read(png);
  let ink = 0;
  for (let i = 0; i < data.length; i += 4) if (Math.min(data[i] as number, data[i + 1] as number, data[i + 2] as number) < 128) ink += 1;
  return ink;
}

/** Text as compared: NFC, whitespace and bidi controls dropped (poppler spaces lines and marks runs its own way). */
const letters = (text: string) => text.normalize('NFC').replace(/[\s\p{Cf}]+/gu, '');

/** The same characters, whatever their order. */
const sortedLetters = (text: string) => [...letters(text)].sort().join('');

/**
 * Lines whose characters poppler extracts all but not in their order (so
 * compared as sets of characters): it takes a Bengali conjunct that Skia
 * places with a vertical offset for a line of its own (with -raw too), and
 * puts an Arabic tanween or a Thaana vowel sign before the letter it sits on.
 * The shaping of these lines is proven by the pixels, below.
 */
const POPPLER_REORDERS = new Set(['Arabic', 'Bengali', 'Dhivehi']);

function sentencePages(samples: readonly ScriptSample[]): string {
  return samples
    .map(({ lang, text }) => `<section lang="${lang}" dir="auto" style="font:24px sans-serif;break-after:page">${text}</section>`)
    .join('');
}

/** The layer's TrueType file of a family, in the npm package the layer copies it from. */
function layerFile(family: string): string {
  const font = LAYER_FONTS.find((face) => face.family === family);
  if (!font) throw new Error(`no layer face ${family}`);
  return join(createRequire(import.meta.url).resolve(`${font.pkg}/package.json`), '..', font.files.regular);
}

/**
 * A one-page PDF that shows `text` (one glyph per character, no marks) in a
 * TrueType font it names but does not embed: the character codes 33… map to
 * the characters by glyph names (`uniXXXX`), with the advance widths of the
 * layer's face `family`, so a reader that substitutes that face draws it
 * where a renderer of the embedded face would. A file as many a generator
 * makes of an office document.
 */
async function pdfWithoutEmbeddedFont(text: string, family: string, fontSize: number): Promise<Uint8Array> {
  const face = fontkit.create(readFileSync(layerFile(family))) as unknown as { unitsPerEm: number; glyphForCodePoint(point: number): { advanceWidth: number } };
  const chars = [...text];
  const doc = await PDFDocument.create();
  const descriptor = doc.context.register(
    doc.context.obj({ Type: 'FontDescriptor', FontName: family.replace(/ /g, ''), Flags: 32, FontBBox: [0, -300, 1200, 1000], ItalicAngle: 0, Ascent: 1000, Descent: -300, CapHeight: 700, StemV: 80 }),
  );
  const font = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'TrueType',
      BaseFont: family.replace(/ /g, ''),
      FirstChar: 33,
      LastChar: 32 + chars.length,
      Widths: chars.map((char) => PDFNumber.of(Math.round((face.glyphForCodePoint(char.codePointAt(0) as number).advanceWidth * 1000) / face.unitsPerEm))),
      Encoding: doc.context.obj({ Type: 'Encoding', Differences: [PDFNumber.of(33), ...chars.map((char) => PDFName.of(`uni${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`))] }),
      FontDescriptor: descriptor,
    }),
  );
  const page = doc.addPage([Math.ceil(chars.length * fontSize * 0.9) + 48, fontSize * 2]);
  page.node.setFontDictionary(PDFName.of('F1'), font);
  const codes = chars.map((_, i) => (33 + i).toString(16).padStart(2, '0')).join('');
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(`BT /F1 ${fontSize} Tf 24 ${fontSize * 0.6} Td <${codes}> Tj ET`)));
  return doc.save();
}

describe('every script the layer covers', () => {
  let service: RunningService;

  before(async () => {
    service = await startService();
  });
  after(() => service?.stop());

  it('draws one sentence per script: the text extracts as given, the page has ink, and no glyph is .notdef', async () => {
    // Prepare
    const html = `<!doctype html><meta charset="utf-8"><body style="margin:0">${sentencePages(UDHR_ARTICLE_1)}</body>`;

    // Act
    const response = await service.request('/v1/pdf', { json: { page: { html: b64(html) } } });

    // Assess
    assert.equal(response.status, 200, service.output());
    const pdf = new Uint8Array(await response.arrayBuffer());
    assert.equal(pageCountOf(pdf), UDHR_ARTICLE_1.length);
    const texts = pdftotextPages(pdf, UDHR_ARTICLE_1.length);
    const images = pdftoppm(pdf, 36);
    UDHR_ARTICLE_1.forEach(({ language, text }, i) => {
      const extracted = texts[i] as string;
      if (POPPLER_REORDERS.has(language)) assert.equal(sortedLetters(extracted), sortedLetters(text), `${language}: extracted ${extracted}`);
      else assert.equal(letters(extracted), letters(text), `${language}: extracted ${extracted}`);
      // A 24 px line at 36 dpi: a few hundred dark pixels when drawn, none when blank
      assert.ok(inkPixels(images[i] as Buffer) > 150, `${language}: the page is blank where the text is`);
    });
    assert.deepEqual(await notdefGlyphs(pdf), []);
    // ...and the service's own reading agrees: no report of a missing glyph
    assert.equal(response.headers.get('x-missing-glyphs'), null);
  });

  it('draws an emoji sequence (ZWJ, keycap, skin tone, flag) as one colour glyph: none is .notdef, none falls apart in two', async () => {
    // Prepare: one sequence a row, 64 px, in the page's default font
    const sequences = ['👩‍💻', '👨‍👩‍👧', '1️⃣', '👍🏽', '🇩🇪', '🏳️‍🌈'];
    const rows = sequences.map((sequence) => `<div style="height:100px;font:64px/100px sans-serif">${sequence}</div>`).join('');
    const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#fff">${rows}</body>`;

    // Act
    const [pdfAnswer, shot] = await Promise.all([
      service.request('/v1/pdf', { json: { page: { html: b64(html) } } }),
      service.request('/v1/screenshot', { json: { page: { html: b64(html) }, screenshot: { viewport: { width: 400, height: 100 * sequences.length } } } }),
    ]);

    // Assess: the PDF draws no .notdef and the service reports none...
    assert.equal(pdfAnswer.status, 200, service.output());
    assert.equal(pdfAnswer.headers.get('x-missing-glyphs'), null);
    assert.deepEqual(await notdefGlyphs(new Uint8Array(await pdfAnswer.arrayBuffer())), []);
    // ...and each row's drawn pixels span one emoji (about 64 px), not two side by side (the family is grey: any pixel off white counts)
    assert.equal(shot.status, 200, service.output());
    const png = PNG.sync.read(Buffer.from(await shot.arrayBuffer()));
    sequences.forEach((sequence, row) => {
      let [left, right] = [png.width, -1];
      for (let y = row * 100; y < (row + 1) * 100; y += 1) {
        for (let x = 0; x < png.width; x += 1) {
          const i = (y * png.width + x) * 4;
          const [r, g, b] = [png.data[i] as number, png.data[i + 1] as number, png.data[i + 2] as number];
          if (Math.min(r, g, b) < 200) [left, right] = [Math.min(left, x), Math.max(right, x)];
        }
      }
      assert.ok(right >= 0, `${sequence}: nothing drawn`);
      assert.ok(right - left + 1 <= 96, `${sequence}: drawn ${right - left + 1} px wide, more than one glyph`);
    });
  });

  it('draws the generic serif and monospace families in faces of their own (Noto Serif, Noto Sans Mono), and their scripts beyond Latin by the fallbacks', async () => {
    // Prepare
    const html =
      '<!doctype html><meta charset="utf-8"><p style="font:16px sans-serif">Sans Ωmega</p><p style="font:16px serif">Serif Ωmega <b>bold</b></p>' +
      '<p style="font:16px monospace">iiii WWWW مرحبا</p><p style="font:16px \'Noto Serif\'">By name</p>';

    // Act
    const response = await service.request('/v1/pdf', { json: { page: { html: b64(html) } } });

    // Assess: each family's face embedded (subset-prefixed), Arabic in monospace still drawn by its script's face
    assert.equal(response.status, 200, service.output());
    const pdf = new Uint8Array(await response.arrayBuffer());
    const faces = embeddedFonts(pdf).map((name) => name.replace(/^[A-Z]{6}\+/, ''));
    for (const face of ['NotoSans-Regular', 'NotoSerif-Regular', 'NotoSerif-Bold', 'NotoSansMono-Regular', 'NotoSansArabic-Regular']) assert.ok(faces.includes(face), `${face} not in ${faces.join(', ')}`);
    assert.equal(response.headers.get('x-missing-glyphs'), null);
  });

  it('tells a character no font has: PDF.js reads its .notdef and the service reports it (the readings above are not blind)', async () => {
    // Act: a private-use character between Latin and Japanese text
    const response = await service.request('/v1/pdf', { json: { page: { html: b64('<p>Total \uE000 合計</p>') } } });

    // Assess
    assert.equal(response.status, 200, service.output());
    const notdefs = await notdefGlyphs(new Uint8Array(await response.arrayBuffer()));
    assert.equal(notdefs.length, 1);
    assert.equal(notdefs[0]?.page, 1);
    assert.match(response.headers.get('x-missing-glyphs') ?? '', /count=1; first-page=1; code-points=U\+E000/);
  });

  it('draws the same scripts in Chromium\'s header template, a band and a text stamp, with no glyph missing', async () => {
    // Prepare: the first words of a few scripts poppler reads in order, one line each
    const samples = ['hi', 'he', 'fa', 'th', 'ka', 'am', 'km', 'bo'].map((lang) => {
      const { text } = UDHR_ARTICLE_1.find((sample) => sample.lang === lang) as ScriptSample;
      return { lang, text: text.split(' ').slice(0, 3).join(' ') };
    });
    const lines = samples.map(({ lang, text }) => `<div lang="${lang}" dir="auto">${text}</div>`).join('');
    const body = b64('<!doctype html><meta charset="utf-8"><p>Body</p>');

    // Act: Chromium's own header and footer; then a band (real HTML) and a text watermark
    const [templates, band] = await Promise.all([
      service.request('/v1/pdf', {
        json: { page: { html: body }, pdf: { displayHeaderFooter: true, headerHtml: b64(`<div style="font-size:9px;width:100%">${lines}</div>`), footerHtml: b64('<span></span>'), margin: { top: '4cm', bottom: '1cm' } } },
      }),
      service.request('/v1/pdf', {
        json: {
          page: { html: body },
          pdf: { header: { html: b64(`<div style="font:9px sans-serif">${lines}</div>`) }, margin: { top: '4cm' }, watermark: { text: samples.map(({ text }) => text).join(' ') } },
        },
      }),
    ]);

    // Assess: every line extracts, PDF.js reads no .notdef, and the service reports none
    for (const [name, response] of [['header template', templates], ['band and stamp', band]] as const) {
      assert.equal(response.status, 200, service.output());
      const pdf = new Uint8Array(await response.arrayBuffer());
      const extracted = letters((pdftotextPages(pdf, 1)[0] as string));
      for (const { lang, text } of samples) assert.ok(extracted.includes(letters(text)), `${name}: ${lang} "${text}" not in ${extracted}`);
      assert.deepEqual(await notdefGlyphs(pdf), [], name);
      assert.equal(response.headers.get('x-missing-glyphs'), null, name);
    }
  });

  it('shapes Arabic and Devanagari as HarfBuzz does in the same face: joined letters, conjuncts and vowel signs in place', async () => {
    // Prepare: 48 CSS px is 36 pt, as hb-view draws at --font-size=36 in a PDF
    const lines = [
      { lang: 'ar', family: 'Noto Sans Arabic', text: (UDHR_ARTICLE_1.find((s) => s.lang === 'ar') as ScriptSample).text },
      { lang: 'hi', family: 'Noto Sans Devanagari', text: (UDHR_ARTICLE_1.find((s) => s.lang === 'hi') as ScriptSample).text.split(' ').slice(0, 6).join(' ') },
    ];
    const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;padding:24px">${lines
      .map(({ lang, text }) => `<section lang="${lang}" dir="auto" style="font:48px sans-serif;white-space:nowrap;break-after:page">${text}</section>`)
      .join('')}</body>`;

    // Act
    const response = await service.request('/v1/pdf', { json: { page: { html: b64(html) }, pdf: { width: '2000px' } } });

    // Assess
    assert.equal(response.status, 200, service.output());
    const images = pdftoppm(new Uint8Array(await response.arrayBuffer()), 128);
    lines.forEach(({ family, text }, i) => {
      // hb-view draws a PDF too: both lines then go through the same rasteriser (poppler), so only the shaping differs
      const reference = pdftoppm(execFileSync('hb-view', ['--font-size=36', '--output-format=pdf', layerFile(family), text]), 128)[0] as Buffer;
      const ssim = inkSsim(reference, images[i] as Buffer);
      assert.ok(ssim >= 0.95, `${family}: SSIM ${ssim.toFixed(3)} against hb-view`);
    });
  });

  it("draws the page images of a PDF whose Georgian and Armenian font is not embedded in the layer's faces (PDF.js's substitutes)", async () => {
    // Prepare: 36 pt text, drawn at 128 dpi on both sides (hb-view's PDF through poppler; the page image at 128 dpi)
    const lines = [
      { family: 'Noto Sans Georgian', text: 'ადამიანი' },
      { family: 'Noto Sans Armenian', text: 'մարդիկ' },
    ];
    for (const { family, text } of lines) {
      const pdf = await pdfWithoutEmbeddedFont(text, family, 36);
      const widthPt = (await PDFDocument.load(pdf)).getPage(0).getWidth();

      // Act
      const response = await service.request('/v1/pdf/process', {
        json: { document: Buffer.from(pdf).toString('base64'), output: 'PNG', image: { pages: '1', width: Math.round((widthPt / 72) * 128) } },
      });

      // Assess: the line is drawn, and in the layer's face, as HarfBuzz draws it
      assert.equal(response.status, 200, service.output().slice(-2000));
      const image = Buffer.from(await response.arrayBuffer());
      assert.ok(inkPixels(image) > 200, `${family}: the page image has ink`);
      const reference = pdftoppm(execFileSync('hb-view', ['--font-size=36', '--output-format=pdf', layerFile(family), text]), 128)[0] as Buffer;
      const ssim = inkSsim(reference, image);
      assert.ok(ssim >= 0.9, `${family}: SSIM ${ssim.toFixed(3)} against hb-view`);
    }
  });
});
