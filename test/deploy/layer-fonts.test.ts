import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { PNG } from 'pngjs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { LAYER_EMOJI, LAYER_FONTS, layerFileName } from '../../lib/fonts/layer-fonts.js';
import { chromiumArgs } from '../../lib/render/browser/launch-args.js';
import { layerLicenceFile, writeLayerFontconfig, writeLayerFonts } from '../../scripts/build-layer.js';
import { lambdaFontsConf, layerFontsCacheKey, layerFontsConf } from '../../scripts/layer-fontconfig.js';

/**
 * Lambda has no system fonts: Chromium there sees the layer's fonts
 * (/opt/fonts) through the layer's fonts.conf (/opt/fontconfig) and the Open
 * Sans @sparticuz/chromium unpacks. These tests build the layer's fonts and
 * fontconfig folder as build:layer does, copy them elsewhere (new paths and
 * mtimes, as where Lambda unpacks the layer) and render with the generated
 * configuration, the layer's folder read as /opt/fonts, and nothing of this machine.
 */

/** Two characters per script of the catalogue (and the gap fillers'), each drawn by a layer face. */
const SAMPLES: Record<string, [string, string]> = {
  Latin: ['A', 'ŋ'],
  Greek: ['Ω', 'λ'],
  Cyrillic: ['Ж', 'я'],
  Arabic: ['ع', 'ش'],
  Hebrew: ['א', 'ש'],
  Devanagari: ['क', 'ष'],
  Bengali: ['ক', 'ষ'],
  Gurmukhi: ['ਕ', 'ਖ'],
  Gujarati: ['ક', 'ખ'],
  Oriya: ['କ', 'ଖ'],
  Tamil: ['க', 'ஞ'],
  Telugu: ['క', 'ఖ'],
  Kannada: ['ಕ', 'ಖ'],
  Malayalam: ['ക', 'ഖ'],
  Sinhala: ['ක', 'ඛ'],
  Thai: ['ก', 'ข'],
  Lao: ['ກ', 'ຂ'],
  Khmer: ['ក', 'ខ'],
  Myanmar: ['က', 'ခ'],
  Georgian: ['ა', 'ბ'],
  Armenian: ['Ա', 'Բ'],
  Ethiopic: ['ሀ', 'ለ'],
  Thaana: ['ހ', 'ށ'],
  Tibetan: ['ཀ', 'ཁ'],
  Hiragana: ['あ', 'の'],
  Katakana: ['カ', 'ナ'],
  Han: ['語', '简'],
  Hangul: ['한', '국'],
  'currency signs': ['₹', '₿'],
  'math symbols': ['∀', 'ℝ'],
  arrows: ['⟶', '⇶'],
};

type Glyph = { png: PNG; inkPixels: number; colourPixels: number; signature: string };

async function launchWith(fontconfigDir: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: chromiumArgs(chromium.args, 'multi-process'),
    headless: 'shell',
    env: { ...process.env, FONTCONFIG_PATH: fontconfigDir },
  });
}

/** Draws one character alone, big, and measures what got painted. */
async function drawGlyph(browser: Browser, text: string): Promise<Glyph> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 120, height: 120 });
    await page.setContent(
      `<body style="margin:0;background:#fff"><div style="font:80px/120px sans-serif;text-align:center">${text}</div></body>`,
    );
    const png = PNG.sync.read(Buffer.from(await page.screenshot({ type: 'png' })));
    let inkPixels = 0;
    let colourPixels = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [r, g, b] = [png.data[i] as number, png.data[i + 1] as number, png.data[i + 2] as number];
      if (r < 200 || g < 200 || b < 200) inkPixels += 1;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colourPixels += 1;
    }
    // Coarse 12x12 ink map: two different glyphs differ, two tofu boxes (or two blanks) do not.
    const cells: number[] = [];
    for (let y = 0; y < 120; y += 10) {
      for (let x = 0; x < 120; x += 10) {
        let ink = 0;
        for (let dy = 0; dy < 10; dy += 1) {
          for (let dx = 0; dx < 10; dx += 1) if ((png.data[((y + dy) * 120 + x + dx) * 4] as number) < 128) ink += 1;
        }
        cells.push(ink > 20 ? 1 : 0);
      }
    }
    return { png, inkPixels, colourPixels, signature: cells.join('') };
  } finally {
    await page.close();
  }
}

/** The PostScript names of the fonts a PDF embeds, without their subset prefix. */
async function embeddedFonts(browser: Browser, html: string): Promise<string[]> {
  const page = await browser.newPage();
  try {
    await page.setContent(html);
    const doc = await PDFDocument.load(await page.pdf());
    const names = new Set<string>();
    for (const [, object] of doc.context.enumerateIndirectObjects()) {
      if (!(object instanceof PDFDict) || object.get(PDFName.of('Type'))?.toString() !== '/FontDescriptor') continue;
      names.add(String(object.get(PDFName.of('FontName'))).replace(/^\/([A-Z]{6}\+)?/, ''));
    }
    return [...names].sort();
  } finally {
    await page.close();
  }
}

/** The run-time configuration as the local runtime writes it: the generated one, the layer's fonts read as /opt/fonts, a fresh writable cache. */
function fontconfigFor(dir: string, layerFonts: string, prebuiltCache: string): string {
  writeFileSync(
    join(dir, 'fonts.conf'),
    layerFontsConf({ layerFontsDir: layerFonts, after: [join(tmpdir(), 'fonts')], cacheDirs: [join(dir, 'cache'), prebuiltCache] }),
  );
  return dir;
}

/** A configuration without the folders and caches: what must be the same on Lambda and here. */
const rules = (conf: string) => conf.split('\n').filter((line) => !/<(dir|remap-dir|cachedir)\b/.test(line)).join('\n');

describe('Chromium layer fonts', () => {
  let work: string;
  let layer: string;
  let runTime: string;
  let browser: Browser;
  let tofu: Glyph;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'docrender-layer-fonts-'));
    // Built in one place, then used from another with other mtimes, as Lambda unpacks the layer.
    const built = join(work, 'built');
    await writeLayerFonts(join(built, 'fonts'));
    await writeLayerFontconfig(join(built, 'fontconfig'), join(built, 'fonts'));
    layer = join(work, 'layer');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    cpSync(built, layer, { recursive: true });
    rmSync(built, { recursive: true, force: true });
    await chromium.executablePath(); // unpacks Open Sans into <tmpdir>/fonts, as on Lambda
    runTime = mkdtempSync(join(work, 'conf-'));
    mkdirSync(join(runTime, 'cache'));
    browser = await launchWith(fontconfigFor(runTime, join(layer, 'fonts'), join(layer, 'fontconfig', 'cache')));
    // No font has a private-use character: what Chromium draws for it is the default face's .notdef.
    tofu = await drawGlyph(browser, '\uE000');
  });

  after(async () => {
    await browser?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships the generated fonts.conf, looking in /opt/fonts, with the rules the local runtime and these tests use', () => {
    // Prepare / Act
    const shipped = readFileSync(join(layer, 'fontconfig', 'fonts.conf'), 'utf8');
    // Assess
    assert.equal(shipped, lambdaFontsConf());
    assert.match(shipped, /<dir>\/opt\/fonts<\/dir>/);
    assert.match(shipped, /<cachedir>\/opt\/fontconfig\/cache<\/cachedir>/);
    assert.equal(rules(readFileSync(join(runTime, 'fonts.conf'), 'utf8')), rules(shipped));
  });

  it('has a sample for every script of the catalogue', () => {
    // Assess: a face added to the catalogue must be drawn by this test
    assert.deepEqual(LAYER_FONTS.flatMap((font) => font.scripts).filter((script) => !(script in SAMPLES)), []);
  });

  it('draws the .notdef of the default face as a visible box, not a blank', () => {
    // Assess: the reader sees that a character is missing
    assert.ok(tofu.inkPixels > 200, `the missing glyph painted ${tofu.inkPixels} pixels`);
  });

  for (const [script, [first, second]] of Object.entries(SAMPLES)) {
    it(`draws ${script} with real glyphs, neither blank nor tofu`, async () => {
      // Prepare / Act
      const [a, b] = await Promise.all([drawGlyph(browser, first), drawGlyph(browser, second)]);
      // Assess
      for (const [text, glyph] of [[first, a], [second, b]] as const) {
        assert.ok(glyph.inkPixels > 150, `${text} painted ${glyph.inkPixels} pixels`);
        assert.notEqual(glyph.signature, tofu.signature, `${text} looks like the missing-glyph box`);
      }
      assert.notEqual(a.signature, b.signature, `${first} and ${second} look the same`);
    });
  }

  it('draws emoji in colour', async () => {
    // Prepare / Act
    const emoji = await drawGlyph(browser, '😀');
    // Assess
    assert.ok(emoji.colourPixels > 500, `only ${emoji.colourPixels} coloured pixels`);
  });

  it('draws Latin text in Noto Sans by default, and a page that names Open Sans still gets it', async () => {
    // Act
    const [plain, named] = await Promise.all([
      embeddedFonts(browser, '<p style="font-family:sans-serif">Invoice ₹ 1,200</p>'),
      embeddedFonts(browser, '<p style="font-family:\'Open Sans\'">Invoice</p>'),
    ]);
    // Assess
    assert.deepEqual(plain, ['NotoSans-Regular']);
    assert.deepEqual(named, ['OpenSans-Regular']);
  });

  it('draws the generic serif in Noto Serif and monospace in Noto Sans Mono, and what they lack in the script\'s face', async () => {
    // Act
    const [serif, mono, monoArabic] = await Promise.all([
      embeddedFonts(browser, '<p style="font-family:serif">Invoice</p>'),
      embeddedFonts(browser, '<p style="font-family:monospace">Invoice</p>'),
      embeddedFonts(browser, '<p style="font-family:monospace">عربي</p>'),
    ]);
    // Assess
    assert.deepEqual(serif, ['NotoSerif-Regular']);
    assert.deepEqual(mono, ['NotoSansMono-Regular']);
    assert.deepEqual(monoArabic, ['NotoSansArabic-Regular']);
  });

  it('draws the same Han character with the Japanese face for lang=ja and the Chinese ones for lang=zh-CN, zh-TW, zh-Hans and zh-Hant', async () => {
    // Act
    const [ja, zhCN, zhTW, zhHans, zhHantTW] = await Promise.all(
      ['ja', 'zh-CN', 'zh-TW', 'zh-Hans', 'zh-Hant-TW'].map((lang) => embeddedFonts(browser, `<p lang="${lang}" style="font-family:sans-serif">語</p>`)),
    );
    // Assess
    assert.deepEqual(ja, ['NotoSansJP-Regular']);
    assert.deepEqual(zhCN, ['NotoSansHans-Regular']);
    assert.deepEqual(zhTW, ['NotoSansHant-Regular']);
    assert.deepEqual(zhHans, ['NotoSansHans-Regular']);
    assert.deepEqual(zhHantTW, ['NotoSansHant-Regular']);
  });

  it('draws Urdu in Nastaliq, Persian in Naskh and Arabic in Noto Sans Arabic, by lang', async () => {
    // Act
    const [ur, fa, ar] = await Promise.all(
      [['ur', 'اردو'], ['fa', 'فارسی'], ['ar', 'عربي']].map(([lang, text]) => embeddedFonts(browser, `<p lang="${lang}">${text}</p>`)),
    );
    // Assess
    assert.deepEqual(ur, ['NotoNastaliqUrdu-Regular']);
    assert.deepEqual(fa, ['NotoNaskhArabic-Regular']);
    assert.deepEqual(ar, ['NotoSansArabic-Regular']);
  });

  it('takes fontconfig\'s cache of the layer fonts from the layer, built at build time: a first render writes none', () => {
    // Prepare / Act: the browser launched in before() with an empty writable cache has rendered
    const written = readdirSync(join(runTime, 'cache'));
    // Assess: the layer's folder was read from the prebuilt cache (only <tmp>/fonts, Open Sans, got one now)
    assert.deepEqual(
      written.filter((name) => name.startsWith(`${layerFontsCacheKey()}-`)),
      [],
      `fontconfig rebuilt the layer's cache at run time: ${written.join(', ')}`,
    );
    assert.ok(readdirSync(join(layer, 'fontconfig', 'cache')).some((name) => name.startsWith(`${layerFontsCacheKey()}-`)));
  });

  it('carries the licence of every font file it ships', () => {
    // Prepare
    const fontsDir = join(layer, 'fonts');
    const packageOf = (file: string) =>
      file === LAYER_EMOJI.name
        ? LAYER_EMOJI.pkg
        : LAYER_FONTS.find((font) => [font.files.regular, font.files.bold].some((path) => path !== undefined && layerFileName(path) === file))?.pkg;
    // Act
    const files = readdirSync(fontsDir).filter((file) => /\.(ttf|otf)$/.test(file));
    // Assess
    assert.equal(files.length, LAYER_FONTS.reduce((sum, font) => sum + (font.files.bold ? 2 : 1), 0) + 1);
    for (const file of files) {
      const pkg = packageOf(file);
      assert.ok(pkg, `${file} is in no catalogue entry`);
      const licence = readFileSync(join(fontsDir, 'licenses', layerLicenceFile(pkg)), 'utf8');
      assert.match(licence, /SIL Open Font License/i, `${file}: licenses/${layerLicenceFile(pkg)} is not the OFL`);
    }
  });
});
