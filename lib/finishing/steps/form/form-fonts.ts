import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import fontkit from '@cantoo/fontkit';
import type { PDFDocument, PDFFont } from '@cantoo/pdf-lib';

/**
 * The fonts a filled field's appearance is drawn in: the Noto Sans CJK
 * families the rendering layer carries (`/opt/fonts` on Lambda, the npm
 * packages the layer is built from elsewhere; layers/README.md). Each has
 * Latin, Greek and Cyrillic besides its national character set, so one of
 * them draws a value in any of those scripts; the file is embedded as a
 * subset of the glyphs the values use, so PDF/A holds.
 */
const FONTS = {
  jp: { pkg: '@embedpdf/fonts-jp', file: 'NotoSansJP-Regular.otf' },
  sc: { pkg: '@embedpdf/fonts-sc', file: 'NotoSansHans-Regular.otf' },
  tc: { pkg: '@embedpdf/fonts-tc', file: 'NotoSansHant-Regular.otf' },
  kr: { pkg: '@embedpdf/fonts-kr', file: 'NotoSansKR-Regular.otf' },
} as const;

type FontKey = keyof typeof FONTS;

/** Where the rendering layer's fonts are on Lambda. */
const LAYER_FONTS = '/opt/fonts';

const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;
const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u;
const HAN = /\p{Script=Han}/u;

/** The fonts to try for a value, best first: the one its script points to, then the others. */
function candidates(text: string): FontKey[] {
  if (HANGUL.test(text)) return ['kr', 'jp', 'sc', 'tc'];
  if (KANA.test(text)) return ['jp', 'sc', 'tc', 'kr'];
  if (HAN.test(text)) return ['sc', 'tc', 'jp', 'kr'];
  return ['jp', 'sc', 'tc', 'kr'];
}

type LoadedFont = { bytes: Uint8Array; face: { hasGlyphForCodePoint(codePoint: number): boolean } };

// Read once per instance: the files are megabytes, the same for every render.
const loaded = new Map<FontKey, Promise<LoadedFont | undefined>>();

async function fontFile(key: FontKey): Promise<LoadedFont | undefined> {
  const { pkg, file } = FONTS[key];
  const places = [path.join(LAYER_FONTS, file)];
  try {
    // The package exports its dist/ entry only: its fonts/ folder sits beside dist/.
    places.push(path.join(path.dirname(createRequire(import.meta.url).resolve(pkg)), '..', 'fonts', file));
  } catch {
    // Not installed here (a Lambda bundle): the layer's copy is the one.
  }
  for (const place of places) {
    try {
      const bytes = new Uint8Array(await readFile(place));
      return { bytes, face: fontkit.create(bytes) as unknown as LoadedFont['face'] };
    } catch {
      // The next place.
    }
  }
  return undefined;
}

const load = (key: FontKey) => {
  let font = loaded.get(key);
  if (!font) loaded.set(key, (font = fontFile(key)));
  return font;
};

/**
 * Embeds fonts in `document` for field values, each family once: `fontFor`
 * answers the font that has every glyph of a value, or undefined when none
 * of them has (a script the layer has no font for, emoji).
 */
export function formFonts(document: PDFDocument): { fontFor: (text: string) => Promise<PDFFont | undefined> } {
  document.registerFontkit(fontkit);
  const embedded = new Map<FontKey, Promise<PDFFont>>();
  return {
    fontFor: async (text) => {
      const codePoints = [...text].map((char) => char.codePointAt(0) as number).filter((cp) => cp >= 0x20 && cp !== 0x7f);
      for (const key of candidates(text)) {
        const font = await load(key);
        if (!font || !codePoints.every((cp) => font.face.hasGlyphForCodePoint(cp))) continue;
        let pdfFont = embedded.get(key);
        if (!pdfFont) embedded.set(key, (pdfFont = document.embedFont(font.bytes, { subset: true })));
        return pdfFont;
      }
      return undefined;
    },
  };
}
