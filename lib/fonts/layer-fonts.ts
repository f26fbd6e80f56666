/**
 * The fonts the rendering layer carries, one catalogue for everything that
 * needs to know them: the layer build (scripts/build-layer.ts copies the
 * files and writes fontconfig's configuration from it), the local runtime
 * (the same configuration, pointed at the local folder), the form step (it
 * picks the face for a value's script) and the docs' table of scripts.
 *
 * Every face comes from an npm package with its OFL licence, copied as it
 * is: `@expo-google-fonts/*` ship Google Fonts' own static TrueType files
 * per weight; `@embedpdf/fonts-*` the Noto Sans CJK faces subset to the
 * national character sets; `@fontsource/noto-color-emoji` its colour emoji
 * as one WOFF2, which the build decodes (fontconfig reads no WOFF2).
 */

/** One face of the layer: a family in one or two weights, and what it is for. */
export type LayerFont = {
  /** The family name fontconfig and CSS know it by (the font's own `name` table: its typographic family). */
  family: string;
  /** The npm package the files come from (a pinned devDependency). */
  pkg: string;
  /** Files inside the package: the regular weight, and the bold when the family has one (else Chromium synthesises bold). */
  files: { regular: string; bold?: string };
  /**
   * Unicode scripts (`\p{Script=…}` names) the face is the layer's choice for;
   * empty for faces that only fill gaps (symbols, math).
   */
  scripts: readonly string[];
  /**
   * Languages (BCP 47 primary tags, or tags with a region) for which fontconfig
   * puts this face first whatever the page's font-family says: the `lang`
   * attribute picks Japanese rather than Chinese Han glyphs, Nastaliq for Urdu.
   */
  langs?: readonly string[];
  /**
   * The CSS generic family this face heads (`font-family: serif` or
   * `monospace`), before the catalogue's order; the rest (sans-serif,
   * system-ui and any family the layer lacks) start with the default face.
   */
  generic?: 'serif' | 'monospace';
  /** The licence file in the package, copied beside the fonts (the OFL asks for it to travel with them). */
  licence: string;
};

const expo = (pkg: string, face: string, scripts: readonly string[], options: { bold?: false; langs?: readonly string[]; generic?: LayerFont['generic'] } = {}): LayerFont => ({
  family: face.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([a-z])(\d)/g, '$1 $2'),
  pkg: `@expo-google-fonts/${pkg}`,
  files: {
    regular: `400Regular/${face}_400Regular.ttf`,
    ...(options.bold === false ? {} : { bold: `700Bold/${face}_700Bold.ttf` }),
  },
  scripts,
  ...(options.langs ? { langs: options.langs } : {}),
  ...(options.generic ? { generic: options.generic } : {}),
  licence: 'LICENSE_FONT',
});

const embedpdf = (pkg: string, family: string, face: string, scripts: readonly string[], langs: readonly string[]): LayerFont => ({
  family,
  pkg: `@embedpdf/${pkg}`,
  files: { regular: `fonts/${face}-Regular.otf`, bold: `fonts/${face}-Bold.otf` },
  scripts,
  langs,
  licence: 'LICENSE',
});

/**
 * The layer's text faces in fontconfig's fallback order: the default face
 * first (Latin, Greek, Cyrillic and the currency signs), then one face per
 * script, then CJK, then the gap fillers, then the faces that head the
 * generic serif and monospace families. A character is drawn by the first
 * face in this order that has it, unless the page's `lang` or its own
 * font-family says otherwise.
 */
export const LAYER_FONTS: readonly LayerFont[] = [
  expo('noto-sans', 'NotoSans', ['Latin', 'Greek', 'Cyrillic']),
  expo('noto-sans-arabic', 'NotoSansArabic', ['Arabic'], { langs: ['ar'] }),
  expo('noto-naskh-arabic', 'NotoNaskhArabic', [], { langs: ['fa'] }),
  expo('noto-nastaliq-urdu', 'NotoNastaliqUrdu', [], { langs: ['ur'] }),
  expo('noto-sans-hebrew', 'NotoSansHebrew', ['Hebrew']),
  expo('noto-sans-devanagari', 'NotoSansDevanagari', ['Devanagari']),
  expo('noto-sans-bengali', 'NotoSansBengali', ['Bengali']),
  expo('noto-sans-gurmukhi', 'NotoSansGurmukhi', ['Gurmukhi']),
  expo('noto-sans-gujarati', 'NotoSansGujarati', ['Gujarati']),
  expo('noto-sans-oriya', 'NotoSansOriya', ['Oriya']),
  expo('noto-sans-tamil', 'NotoSansTamil', ['Tamil']),
  expo('noto-sans-telugu', 'NotoSansTelugu', ['Telugu']),
  expo('noto-sans-kannada', 'NotoSansKannada', ['Kannada']),
  expo('noto-sans-malayalam', 'NotoSansMalayalam', ['Malayalam']),
  expo('noto-sans-sinhala', 'NotoSansSinhala', ['Sinhala']),
  expo('noto-sans-thai', 'NotoSansThai', ['Thai']),
  expo('noto-sans-lao', 'NotoSansLao', ['Lao']),
  expo('noto-sans-khmer', 'NotoSansKhmer', ['Khmer']),
  expo('noto-sans-myanmar', 'NotoSansMyanmar', ['Myanmar']),
  expo('noto-sans-georgian', 'NotoSansGeorgian', ['Georgian']),
  expo('noto-sans-armenian', 'NotoSansArmenian', ['Armenian']),
  expo('noto-sans-ethiopic', 'NotoSansEthiopic', ['Ethiopic']),
  expo('noto-sans-thaana', 'NotoSansThaana', ['Thaana']),
  // Google Fonts has no sans-serif Tibetan: the serif face is Noto's only one.
  expo('noto-serif-tibetan', 'NotoSerifTibetan', ['Tibetan'], { bold: false }),
  embedpdf('fonts-jp', 'Noto Sans Japanese', 'NotoSansJP', ['Hiragana', 'Katakana'], ['ja']),
  embedpdf('fonts-sc', 'Noto Sans S Chinese', 'NotoSansHans', ['Han'], ['zh', 'zh-cn', 'zh-sg', 'zh-hans']),
  embedpdf('fonts-tc', 'Noto Sans T Chinese', 'NotoSansHant', [], ['zh-tw', 'zh-hk', 'zh-mo', 'zh-hant']),
  embedpdf('fonts-kr', 'Noto Sans Korean', 'NotoSansKR', ['Hangul'], ['ko']),
  expo('noto-sans-math', 'NotoSansMath', [], { bold: false }),
  expo('noto-sans-symbols', 'NotoSansSymbols', []),
  expo('noto-sans-symbols-2', 'NotoSansSymbols2', [], { bold: false }),
  // The generic serif and monospace families' own faces (Latin, Greek, Cyrillic): what Noto Sans lacks they leave to the order above.
  expo('noto-serif', 'NotoSerif', [], { generic: 'serif' }),
  expo('noto-sans-mono', 'NotoSansMono', [], { generic: 'monospace' }),
];

/**
 * Noto Color Emoji: the whole face (Fontsource's `emoji` subset), one WOFF2
 * decoded to TrueType by the build, its OT-SVG table dropped (Chromium draws
 * the COLR glyphs; the SVG copy is 20 of its 25 MB). One face, not Google
 * Fonts' slices: a sequence (👩‍💻, 1️⃣, 👍🏽, 🇩🇪) is one glyph only in a face
 * that holds all its code points, and fontconfig picks a face per code point.
 */
export const LAYER_EMOJI = {
  family: 'Noto Color Emoji',
  pkg: '@fontsource/noto-color-emoji',
  file: 'files/noto-color-emoji-emoji-400-normal.woff2',
  name: 'NotoColorEmoji.ttf',
  dropTables: ['SVG '],
  licence: 'LICENSE',
} as const;

/** Where the layer's fonts are on Lambda (the layer's fonts/ folder). */
export const LAYER_FONTS_DIR = '/opt/fonts';

/** The file name a layer font's file has in the layer's fonts/ folder (its base name). */
export function layerFileName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}
