import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import chromium from '@sparticuz/chromium';
import { PDFDocument } from '@cantoo/pdf-lib';
import puppeteer, { type Browser } from 'puppeteer-core';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { formStep } from '../../../lib/finishing/steps/form/form.js';
import { OptionError } from '../../../lib/pdf/errors.js';
import { inkSsim } from '../../helpers/ink-ssim.js';
import { embeddedFonts, pdftoppm, pdftotext } from '../../helpers/pdf-tools.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One value per script the issue found blank, with the layer face that must draw it. */
const VALUES: Record<string, { text: string; face: string }> = {
  arabic: { text: 'محمد عبد الله', face: 'NotoSansArabic-Regular' },
  hebrew: { text: 'שלום עולם', face: 'NotoSansHebrew-Regular' },
  devanagari: { text: 'क्षत्रिय किताब', face: 'NotoSansDevanagari-Regular' },
  bengali: { text: 'আমার সোনার বাংলা', face: 'NotoSansBengali-Regular' },
  tamil: { text: 'வணக்கம் உலகம்', face: 'NotoSansTamil-Regular' },
  thai: { text: 'สวัสดีชาวโลก', face: 'NotoSansThai-Regular' },
  georgian: { text: 'გამარჯობა', face: 'NotoSansGeorgian-Regular' },
  armenian: { text: 'Բարեւ աշխարհ', face: 'NotoSansArmenian-Regular' },
  ethiopic: { text: 'ሰላም ልዑል', face: 'NotoSansEthiopic-Regular' },
  khmer: { text: 'សួស្តីពិភពលោក', face: 'NotoSansKhmer-Regular' },
};

const FONT_SIZE = 24;

/** A one-page form with one single-line text field per name, 40 points high, at a fixed font size. */
async function scriptForm(names: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const form = doc.getForm();
  names.forEach((name, i) => {
    const field = form.createTextField(name);
    field.addToPage(page, { x: 40, y: 780 - i * 60, width: 500, height: 40, borderWidth: 0 });
    field.setFontSize(FONT_SIZE);
  });
  return doc.save();
}

const fill = async (values: Record<string, string>, flatten: 'none' | 'fields' = 'fields') =>
  finishPdf(await scriptForm(Object.keys(values)), { form: formStep({ fields: values, flatten }) }, unboundedBudget());

/** The layer face's TrueType file, as the form step reads it off the machine without /opt/fonts. */
const layerFace = (pkg: string, face: string) => readFileSync(join(dirname(createRequire(import.meta.url).resolve(`@expo-google-fonts/${pkg}/package.json`)), '400Regular', `${face}_400Regular.ttf`));

describe('form values in the scripts of the layer', () => {
  it('fills and flattens a value in each script: no 400, the text extracts, its face is embedded as a subset', async () => {
    // Act
    const out = await fill(Object.fromEntries(Object.entries(VALUES).map(([name, { text }]) => [name, text])));

    // Assess
    const text = pdftotext(out).stdout;
    const fonts = embeddedFonts(out);
    for (const [name, value] of Object.entries(VALUES)) {
      // Right-to-left lines: poppler reads the glyphs in the order they stand and turns them round itself.
      for (const word of value.text.split(' ')) assert.ok(text.includes(word), `${name}: ${word} in ${text}`);
      assert.ok(fonts.includes(value.face), `${name}: ${value.face} among ${fonts.join(', ')}`);
    }
    // pdffonts' "sub" column: every face is a subset (a tag before its name).
    const pdffontsRows = (await import('node:child_process')).spawnSync('pdffonts', ['-'], { input: out, encoding: 'utf8' }).stdout;
    for (const { face } of Object.values(VALUES)) assert.match(pdffontsRows, new RegExp(`[A-Z]{6}\\+${face}\\s+CID TrueType\\s+Identity-H\\s+yes yes yes`));
  });

  it('keeps a filled value a field (its /V as given, editable) and draws a mixed value in several faces', async () => {
    // Act: Hindi with a rupee amount, an Arabic name with Latin digits.
    const out = await fill({ hindi: 'कुल राशि ₹ 500', arabic: 'Invoice فاتورة 42' }, 'none');

    // Assess
    const doc = await PDFDocument.load(out);
    assert.equal(doc.getForm().getTextField('hindi').getText(), 'कुल राशि ₹ 500');
    assert.equal(doc.getForm().getTextField('arabic').getText(), 'Invoice فاتورة 42');
    const fonts = embeddedFonts(out);
    for (const face of ['NotoSansDevanagari-Regular', 'NotoSansArabic-Regular', 'NotoSans-Regular']) assert.ok(fonts.includes(face), `${face} among ${fonts.join(', ')}`);
  });

  it('refuses a private-use character, naming the field and U+E000', async () => {
    try {
      await fill({ arabic: 'محمد \uE000' });
      assert.fail('no OptionError');
    } catch (error) {
      assert.ok(error instanceof OptionError, String(error));
      assert.match(error.fields['form.fields.arabic'] ?? '', /U\+E000/);
    }
  });

  describe('shaped as Chromium shapes the same text in the same face', () => {
    let browser: Browser;
    before(async () => {
      browser = await puppeteer.launch({
        env: { ...process.env, TMPDIR: tempDir('docrender-chromium-test-') },
        executablePath: await chromium.executablePath(),
        headless: 'shell',
        args: [...chromium.args.filter((arg) => !['--single-process', '--headless'].includes(arg.split('=')[0] ?? arg)), '--no-first-run'],
      });
    });
    after(async () => browser?.close());

    /** The text printed by Chromium in the face (loaded from its file, no fallback) at the field's size, as PNG at 150 dpi. */
    async function chromiumLine(text: string, face: Buffer): Promise<Buffer> {
      const page = await browser.newPage();
      try {
        await page.setContent(
          `<!doctype html><meta charset="utf-8"><style>@font-face{font-family:F;src:url(data:font/ttf;base64,${face.toString('base64')})}
          @page{size:595pt 200pt;margin:0}body{margin:40pt;font:${FONT_SIZE}pt F;white-space:pre}</style><div dir="auto">${text}</div>`,
        );
        await page.evaluate(() => document.fonts.ready);
        const pdf = await page.pdf({ width: '595pt', height: '200pt', printBackground: false });
        return pdftoppm(new Uint8Array(pdf), 150)[0] as Buffer;
      } finally {
        await page.close();
      }
    }

    for (const [name, pkg, face] of [
      ['arabic', 'noto-sans-arabic', 'NotoSansArabic'],
      ['devanagari', 'noto-sans-devanagari', 'NotoSansDevanagari'],
    ] as const) {
      it(`draws ${name} joined and ordered as Chromium does (SSIM of the line ≥ 0.95)`, async () => {
        // Prepare
        const text = (VALUES[name] as { text: string }).text;
        const reference = await chromiumLine(text, layerFace(pkg, face));

        // Act
        const out = await fill({ [name]: text });

        // Assess: the field's line on the flattened page against Chromium's.
        const drawn = pdftoppm(out, 150, ['-x', '0', '-y', '0', '-W', '1240', '-H', '200'])[0] as Buffer;
        const ssim = inkSsim(reference, drawn);
        assert.ok(ssim >= 0.95, `SSIM ${ssim}`);
      });
    }
  });
});
