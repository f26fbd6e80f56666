import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { PNG } from 'pngjs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { chromiumArgs } from '../../lib/render/browser/launch-args.js';
import { buildChromiumLayer } from '../../scripts/build-layer.js';

/**
 * Lambda has no system fonts: Chromium there sees the Open Sans that
 * @sparticuz/chromium unpacks and whatever the layer mounts at /opt/fonts.
 * These tests reproduce that: fontconfig gets @sparticuz/chromium's own
 * fonts.conf with /opt/fonts pointed at the built layer's fonts/ folder, and
 * nothing from the machine.
 */

const SAMPLES = {
  Japanese: ['語', 'の'],
  'Simplified Chinese': ['简', '进'],
  'Traditional Chinese': ['體', '灣'],
  Korean: ['한', '국'],
} as const;

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

function fontconfigFor(dir: string, fontsConf: string, layerFonts: string | undefined): string {
  const conf = fontsConf
    .replace('<dir>/opt/fonts</dir>', layerFonts ? `<dir>${layerFonts}</dir>` : '')
    .replace(/<cachedir>[^<]*<\/cachedir>/, `<cachedir>${join(dir, 'cache')}</cachedir>`);
  writeFileSync(join(dir, 'fonts.conf'), conf);
  return dir;
}

describe('Chromium layer fonts', () => {
  let work: string;
  let fontsConf: string;
  let withLayer: Browser;
  let withoutLayer: Browser;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'docrender-layer-fonts-'));
    await buildChromiumLayer(join(work, 'layer'));
    await chromium.executablePath(); // unpacks fonts.conf and Open Sans into <tmpdir>/fonts, as on Lambda
    fontsConf = readFileSync(join(tmpdir(), 'fonts', 'fonts.conf'), 'utf8');
    const confWith = mkdtempSync(join(work, 'with-'));
    const confWithout = mkdtempSync(join(work, 'without-'));
    [withLayer, withoutLayer] = await Promise.all([
      launchWith(fontconfigFor(confWith, fontsConf, join(work, 'layer', 'fonts'))),
      launchWith(fontconfigFor(confWithout, fontsConf, undefined)),
    ]);
  });

  after(async () => {
    await Promise.all([withLayer?.close(), withoutLayer?.close()]);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is looked for in /opt/fonts, where Lambda mounts the layer folder fonts/', () => {
    // Prepare / Act: the fonts.conf @sparticuz/chromium installs on Lambda (read in before)
    // Assess
    assert.match(fontsConf, /<dir>\/opt\/fonts<\/dir>/);
  });

  for (const [script, [first, second]] of Object.entries(SAMPLES)) {
    it(`draws ${script} text with real glyphs instead of tofu`, async () => {
      // Prepare / Act
      const [a, b] = await Promise.all([drawGlyph(withLayer, first), drawGlyph(withLayer, second)]);
      const [bareA, bareB] = await Promise.all([drawGlyph(withoutLayer, first), drawGlyph(withoutLayer, second)]);
      // Assess: with the layer, two different characters are two different drawings
      assert.ok(a.inkPixels > 200, `${first} painted ${a.inkPixels} pixels`);
      assert.notEqual(a.signature, b.signature, `${first} and ${second} look the same`);
      // ...and without it they are not (the check can tell tofu from text)
      assert.equal(bareA.signature, bareB.signature, 'without the layer fonts both characters should be the same placeholder');
    });
  }

  it('draws emoji in colour', async () => {
    // Prepare / Act
    const [emoji, bare] = await Promise.all([drawGlyph(withLayer, '😀'), drawGlyph(withoutLayer, '😀')]);
    // Assess
    assert.ok(emoji.colourPixels > 500, `only ${emoji.colourPixels} coloured pixels`);
    assert.ok(bare.colourPixels < 50, 'without the layer fonts the emoji should have no colour');
  });
});
