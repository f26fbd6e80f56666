import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import fontkit from '@cantoo/fontkit';
import type { PDFDocument, PDFFont } from '@cantoo/pdf-lib';
import { LAYER_FONTS, LAYER_FONTS_DIR, layerFileName, type LayerFont } from '../../../fonts/layer-fonts.js';

/**
 * The fonts filled fields are drawn in: the rendering layer's own faces
 * (lib/fonts/layer-fonts.ts), in its fallback order, so that a value looks
 * as the same text printed by Chromium does. Each face is read from
 * `/opt/fonts` on Lambda, else from the npm package the layer is built from,
 * once per instance, and embedded in a document as a subset of the glyphs
 * its values use (PDF/A holds: every font embedded).
 */

/** A face as fontkit reads it: enough to choose it for a character and to shape and place a run in it. */
export type FormFace = {
  postscriptName: string | null;
  hasGlyphForCodePoint(codePoint: number): boolean;
  unitsPerEm: number;
  ascent: number;
  descent: number;
  bbox: { minY: number; maxY: number };
  layout(text: string): FontkitRun;
};

/** A shaped run: glyphs in the order they are drawn, left to right, with their positions in font units. */
export type FontkitRun = {
  glyphs: Array<{ id: number; advanceWidth: number }>;
  positions: Array<{ xAdvance: number; xOffset: number; yOffset: number }>;
  direction: 'ltr' | 'rtl';
};

type LoadedFace = { bytes: Uint8Array; face: FormFace };

/** The folder of an installed package (its `package.json`), found from its entry point: some packages export no package.json. */
function packageDir(pkg: string): string | undefined {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    try {
      entry = require.resolve(`${pkg}/package.json`);
    } catch {
      // Not installed here (a Lambda bundle): the layer's copy is the one.
      return undefined;
    }
  }
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && dir.endsWith(path.join(...pkg.split('/')))) return dir;
  }
  return undefined;
}

async function readFace(font: LayerFont): Promise<LoadedFace | undefined> {
  const places = [path.join(LAYER_FONTS_DIR, layerFileName(font.files.regular))];
  const dir = packageDir(font.pkg);
  if (dir) places.push(path.join(dir, font.files.regular));
  for (const place of places) {
    try {
      const bytes = new Uint8Array(await readFile(place));
      return { bytes, face: fontkit.create(bytes) as unknown as FormFace };
    } catch {
      // The next place.
    }
  }
  return undefined;
}

// Read once per instance: the files are the same for every render, the CJK ones megabytes.
const loading = new Map<LayerFont, Promise<LoadedFace | undefined>>();
/** The faces read so far, for the layout's measuring, which cannot wait: `prepare` reads every face a value may need first. */
const read = new Map<LayerFont, LoadedFace | undefined>();

const load = (font: LayerFont) => {
  let face = loading.get(font);
  if (!face) {
    loading.set(font, (face = readFace(font)));
    void face.then((loadedFace) => read.set(font, loadedFace));
  }
  return face;
};

const scriptPatterns = new Map<string, RegExp>();
/** Whether `char` is written in one of `scripts` (`\p{Script=…}` names). */
function inScripts(char: string, scripts: readonly string[]): boolean {
  return scripts.some((script) => {
    let pattern = scriptPatterns.get(script);
    if (!pattern) scriptPatterns.set(script, (pattern = new RegExp(`^\\p{Script=${script}}`, 'u')));
    return pattern.test(char);
  });
}

/** Characters that belong to no script of their own (spaces, digits, punctuation, marks, joiners): they go with their neighbours' face. */
const SHARED = /^[\p{Script=Common}\p{Script=Inherited}]/u;
/** Characters that draw nothing and need no glyph (controls, joiners, direction marks, variation selectors): left out where the face lacks them. */
const INVISIBLE = /^[\p{Cc}\p{Cf}\u{fe00}-\u{fe0f}\u{e0100}-\u{e01ef}]/u;

/** One embedded face of a document: the PDF font, the face it was read from. */
export type EmbeddedFace = { font: PDFFont; face: FormFace };

/** A stretch of a value drawn in one face. */
export type FaceRun = { text: string; face: EmbeddedFace };

/** The code point as the Unicode standard names it: U+0041, U+1F600. */
export const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** A character of a value that no face of the layer has: the 400's subject. */
export class MissingGlyphError extends Error {
  constructor(readonly codePoint: number) {
    super(`No font of the layer has ${codePointName(codePoint)}`);
    this.name = 'MissingGlyphError';
  }
}

/**
 * The name a subset is embedded under: a tag of six capitals, a plus and the
 * face's PostScript name (ISO 32000-1, 9.6.4), so that readers and checkers
 * (pdffonts' "sub" column, PDF/A validators) know the font is a subset; the
 * tag is random, as two subsets of a face in one file need two tags.
 */
function subsetName(face: FormFace): string {
  const tag = [...randomBytes(6)].map((byte) => String.fromCharCode(65 + (byte % 26))).join('');
  return `${tag}+${face.postscriptName ?? 'Font'}`;
}

/** The faces a document draws values in, chosen per character. */
export type FormFonts = {
  /** Reads and embeds every face `text` needs; throws `MissingGlyphError` for a character no face has. */
  prepare: (text: string) => Promise<void>;
  /** Cuts a piece of a prepared value into runs of one face, in logical order. */
  split: (text: string) => FaceRun[];
  /** The face a prepared value's /DA names and its lines are measured by: the face of its first letter, else the layer's default face. */
  primary: (text: string) => EmbeddedFace;
};

/**
 * The layer's faces for the values of `document`, each embedded once.
 * A character of a script goes to the face the catalogue names for its
 * script (Arabic to Noto Sans Arabic, not to a later face that also has it),
 * else to the first face in fallback order that has it; digits, spaces,
 * punctuation and marks stay in the face of the text around them when it has
 * them, so "₹ 500" after Hindi is drawn in the Devanagari face, as Chromium
 * draws it.
 */
export function formFonts(document: PDFDocument): FormFonts {
  document.registerFontkit(fontkit);
  const embedded = new Map<LayerFont, EmbeddedFace>();
  const has = (font: LayerFont | undefined, codePoint: number) => font !== undefined && (read.get(font)?.face.hasGlyphForCodePoint(codePoint) ?? false);

  /** The catalogue's face for a character of a script, from the faces read (`prepare` read the ones it needs). */
  function faceOf(char: string): LayerFont | undefined {
    const codePoint = char.codePointAt(0) as number;
    const owner = LAYER_FONTS.find((font) => inScripts(char, font.scripts));
    if (has(owner, codePoint)) return owner;
    return LAYER_FONTS.find((font) => has(font, codePoint));
  }

  /** Each character's face (undefined: an invisible character no face around it draws, left out). */
  function choose(chars: readonly string[], among: (font: LayerFont, codePoint: number) => boolean): Array<LayerFont | undefined> {
    const chosen: Array<LayerFont | undefined> = chars.map((char) => {
      if (SHARED.test(char)) return undefined;
      const font = faceOf(char);
      if (!font) throw new MissingGlyphError(char.codePointAt(0) as number);
      return font;
    });
    for (let i = 0; i < chars.length; i += 1) {
      const char = chars[i] as string;
      if (!SHARED.test(char)) continue;
      const codePoint = char.codePointAt(0) as number;
      const before = chosen[i - 1];
      const after = chosen.slice(i + 1).find((font) => font !== undefined);
      const font = has(before, codePoint) ? before : has(after, codePoint) ? after : LAYER_FONTS.find((candidate) => among(candidate, codePoint));
      if (!font && !INVISIBLE.test(char)) throw new MissingGlyphError(codePoint);
      chosen[i] = font;
    }
    return chosen;
  }

  return {
    prepare: async (text) => {
      const chars = [...new Set(text)];
      // Every face up to the one that has a character is read, in the catalogue's order, so that choosing can be done without waiting.
      for (const char of chars) {
        const codePoint = char.codePointAt(0) as number;
        const owner = LAYER_FONTS.find((font) => inScripts(char, font.scripts));
        if (owner && (await load(owner))?.face.hasGlyphForCodePoint(codePoint)) continue;
        for (const font of LAYER_FONTS) if ((await load(font))?.face.hasGlyphForCodePoint(codePoint)) break;
      }
      await load(LAYER_FONTS[0] as LayerFont);
      const used = new Set(choose([...text], (font, codePoint) => has(font, codePoint) && (embedded.has(font) || faceOf(String.fromCodePoint(codePoint)) === font)));
      const letter = [...text].find((char) => !SHARED.test(char));
      used.add((letter && faceOf(letter)) || (LAYER_FONTS[0] as LayerFont));
      for (const font of used) {
        const face = font && read.get(font);
        if (!font || !face || embedded.has(font)) continue;
        embedded.set(font, { font: await document.embedFont(face.bytes, { subset: true, customName: subsetName(face.face) }), face: face.face });
      }
    },
    split: (text) => {
      const chars = [...text];
      // A piece of a prepared value: a character at its edge chooses among the faces the value already uses.
      const chosen = choose(chars, (font, codePoint) => embedded.has(font) && has(font, codePoint));
      const runs: FaceRun[] = [];
      chars.forEach((char, i) => {
        const font = chosen[i];
        if (!font) return;
        const face = embedded.get(font);
        if (!face) throw new Error(`${font.family} was not prepared for this value`);
        const last = runs.at(-1);
        if (last && last.face === face) last.text += char;
        else runs.push({ text: char, face });
      });
      return runs;
    },
    primary: (text) => {
      const letter = [...text].find((char) => !SHARED.test(char));
      const font = (letter && faceOf(letter)) || (LAYER_FONTS[0] as LayerFont);
      const face = embedded.get(font);
      if (!face) throw new Error(`${font.family} was not prepared for this value`);
      return face;
    },
  };
}
