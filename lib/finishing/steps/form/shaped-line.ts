/**
 * One line of a field's value, shaped as a browser shapes it: cut into
 * runs of one direction (bidi-line.ts) and of one face (form-fonts.ts), each
 * run shaped by fontkit (Arabic joining, Indic reordering and conjuncts, the
 * faces' GSUB and GPOS), and the glyphs placed where the shaper put them,
 * marks included. pdf-lib's own `drawText` shows a run's glyphs one after
 * the other by their widths, which drops the marks' positioning and knows a
 * single font; the operators here switch faces and move the text position
 * where a glyph does not sit where the previous one ends.
 */
import {
  PDFHexString,
  PDFOperator,
  PDFOperatorNames,
  beginText,
  endText,
  setFontAndSize,
  setTextMatrix,
  showText,
  type PDFFont,
} from '@cantoo/pdf-lib';
import { visualRuns } from './bidi-line.js';
import type { EmbeddedFace, FormFonts } from './form-fonts.js';

/** A glyph placed on the line: at font size 1, `x` from the line's start and `y` from its baseline. */
type PlacedGlyph = { font: PDFFont; cid: string; x: number; y: number; advance: number };

/** A run of one direction on a shaped line: its text as read, its glyphs left to right. */
type ShapedRun = { text: string; rtl: boolean; glyphs: PlacedGlyph[] };

/** A shaped line: its width at font size 1, and its runs left to right. */
export type ShapedLine = { width: number; runs: ShapedRun[] };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The glyphs of `text` in one face, in drawing order. fontkit takes a run's
 * direction from its script: where that is not the direction bidi gave it
 * (Arabic-Indic digits run left to right inside Arabic; a bracket alone in a
 * right-to-left stretch), the run is shaped one grapheme at a time, in the
 * order bidi gave.
 */
function shapeRun({ font, face }: EmbeddedFace, text: string, rtl: boolean): Array<Omit<PlacedGlyph, 'x'> & { xAdvance: number; xOffset: number }> {
  const run = face.layout(text);
  if ((run.direction === 'rtl') !== rtl && [...graphemes.segment(text)].length > 1) {
    const pieces = [...graphemes.segment(text)].map(({ segment }) => segment);
    if (rtl) pieces.reverse();
    return pieces.flatMap((piece) => shapeRun({ font, face }, piece, rtl));
  }
  // pdf-lib's encoding of the same text runs the same fontkit layout, so its glyph ids are these glyphs, in this order.
  const hex = font.encodeText(text).asString();
  if (hex.length !== run.glyphs.length * 4) throw new Error('The font encoded another number of glyphs than it shaped');
  const scale = 1 / face.unitsPerEm;
  return run.glyphs.map((glyph, i) => {
    const position = run.positions[i] ?? { xAdvance: glyph.advanceWidth, xOffset: 0, yOffset: 0 };
    return {
      font,
      cid: hex.slice(i * 4, i * 4 + 4),
      y: position.yOffset * scale,
      advance: glyph.advanceWidth * scale,
      xAdvance: position.xAdvance * scale,
      xOffset: position.xOffset * scale,
    };
  });
}

/** Shapes one line of a prepared value (no line breaks in it). */
export function shapeLine(fonts: FormFonts, text: string): ShapedLine {
  const runs: ShapedRun[] = [];
  let pen = 0;
  for (const { text: runText, rtl } of visualRuns(text)) {
    const glyphs: PlacedGlyph[] = [];
    runs.push({ text: runText, rtl, glyphs });
    const faceRuns = fonts.split(runText);
    // A right-to-left stretch in several faces: the face runs, logical in order, stand right to left.
    if (rtl) faceRuns.reverse();
    for (const { text: faceText, face } of faceRuns) {
      for (const { xAdvance, xOffset, ...glyph } of shapeRun(face, faceText, rtl)) {
        glyphs.push({ ...glyph, x: pen + xOffset });
        pen += xAdvance;
      }
    }
  }
  return { width: pen, runs };
}

/** A number as content streams write it. */
const decimal = (n: number) => (Math.abs(n) < 1e-6 ? '0' : n.toFixed(4).replace(/\.?0+$/, ''));

/**
 * The text a run's glyphs stand for, as extraction reads it: the run's own
 * characters, so that a conjunct or an Indic vowel sign drawn before its
 * consonant reads as typed. A right-to-left run's characters are given in the
 * order its glyphs stand, as every PDF of right-to-left text has them: readers
 * (poppler, PDF.js) turn such runs round themselves, and would turn logical
 * text back to front.
 */
const actualText = (run: ShapedRun) => {
  if (!run.rtl) return run.text;
  // Graphemes keep their marks after their letters.
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(run.text)].map(({ segment }) => segment).reverse().join('');
};

/**
 * The operators that draw `line` at `size` with its baseline starting at
 * (x, y): one text object, each run marked with its text (/ActualText), so
 * that text extraction reads the value as typed (not the glyphs' own
 * characters, which a shaper's ligatures and split dots do not tell).
 */
export function drawShapedLine(line: ShapedLine, x: number, y: number, size: number): PDFOperator[] {
  const operators: PDFOperator[] = [beginText()];
  let font: PDFFont | undefined;
  // Where the text position is after the last glyph shown, at size 1 (undefined: not set yet).
  let cursor: { x: number; y: number } | undefined;
  let pending = '';
  const flush = () => {
    if (pending) operators.push(showText(PDFHexString.of(pending)));
    pending = '';
  };
  for (const run of line.runs) {
    if (run.glyphs.length === 0) continue;
    operators.push(PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, ['/Span', `<< /ActualText ${PDFHexString.fromText(actualText(run)).toString()} >>`]));
    for (const glyph of run.glyphs) {
    if (glyph.font !== font) {
      flush();
      font = glyph.font;
      operators.push(setFontAndSize(font.name, size));
    }
    if (!cursor || Math.abs(cursor.x - glyph.x) * size > 0.001 || cursor.y !== glyph.y) {
      flush();
      operators.push(setTextMatrix(1, 0, 0, 1, Number(decimal(x + glyph.x * size)), Number(decimal(y + glyph.y * size))));
    }
    pending += glyph.cid;
    cursor = { x: glyph.x + glyph.advance, y: glyph.y };
    }
    flush();
    operators.push(PDFOperator.of(PDFOperatorNames.EndMarkedContent));
  }
  operators.push(endText());
  return operators;
}

/** The fonts a line shows, for the appearance's resources. */
export function lineFonts(line: ShapedLine): Set<PDFFont> {
  return new Set(line.runs.flatMap((run) => run.glyphs.map((glyph) => glyph.font)));
}
