/**
 * A text field's (or a combo box's) appearance, drawn in the layer's faces
 * (form-fonts.ts) with each line shaped and ordered as a browser would
 * (shaped-line.ts): one appearance may use several faces, as a value mixing
 * scripts needs (an Arabic name with Latin digits, Hindi with a ₹ amount).
 * The layout keeps pdf-lib's rules (font size, line height, alignment,
 * padding, border, background, /DA); only the measuring and drawing differ.
 *
 * A multi-line text field is laid out in one pass. pdf-lib's own
 * (`layoutMultilineText`) finds each line by measuring the whole rest of the
 * value, then ever shorter prefixes of it, with fontkit's shaping, for every
 * line: a value of the 10,000 characters the schema allows took 29 s. Here
 * every distinct word is measured once (its shaped width at 1,000 points,
 * scaled), the font size and the lines come from those widths, and each line
 * is shaped once more for its glyphs: the work is bounded by the value's size.
 */
import {
  adjustDimsForRotation,
  beginMarkedContent,
  cleanText,
  clip,
  closePath,
  cmyk,
  componentsToColor,
  degrees,
  drawRectangle,
  endMarkedContent,
  endPath,
  grayscale,
  lineSplit,
  lineTo,
  mergeLines,
  moveTo,
  popGraphicsState,
  pushGraphicsState,
  reduceRotation,
  rgb,
  rotateInPlace,
  setFillingColor,
  setFontAndSize,
  TextAlignment,
  type AppearanceProviderFor,
  type Color,
  type PDFDropdown,
  type PDFFont,
  type PDFOperator,
  type PDFTextField,
  type PDFWidgetAnnotation,
} from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import type { FormFonts } from './form-fonts.js';
import { drawShapedLine, lineFonts, shapeLine, type ShapedLine } from './shaped-line.js';

/** pdf-lib's bounds for a field's automatic font size (layout.ts). */
const MIN_FONT_SIZE = 4;
const MAX_FONT_SIZE = 500;

/** The widths of words, each shaped once: fontkit shapes a string in time linear in its length. */
function wordWidths(fonts: FormFonts): (word: string, size: number) => number {
  const atOne = new Map<string, number>();
  return (word, size) => {
    let width = atOne.get(word);
    if (width === undefined) atOne.set(word, (width = word === '' ? 0 : shapeLine(fonts, word).width));
    return width * size;
  };
}

/**
 * pdf-lib's automatic font size (computeFontSize): the largest size whose
 * word-wrapped lines fit the bounds' height (and, for a single line, whose
 * words fit its width without wrapping), from cached word widths.
 */
function autoFontSize(
  paragraphs: string[][],
  font: PDFFont,
  width: (word: string, size: number) => number,
  bounds: { width: number; height: number },
  budget: DocumentBudget,
  multiline = true,
): number {
  const space = (size: number) => width(' ', size);
  for (let size = MIN_FONT_SIZE; size < MAX_FONT_SIZE; size += 1) {
    budget.check();
    let linesUsed = 0;
    for (const words of paragraphs) {
      linesUsed += 1;
      let remaining = bounds.width;
      words.forEach((word, index) => {
        const wordWidth = width(word, size) + (index === words.length - 1 ? 0 : space(size));
        remaining -= wordWidth;
        if (remaining <= 0) {
          linesUsed += 1;
          remaining = bounds.width - wordWidth;
        }
      });
    }
    if (!multiline && linesUsed > paragraphs.length) return size - 1;
    const height = font.heightAtSize(size);
    // Written as pdf-lib writes it, so that the sums round alike.
    if (linesUsed * (height + height * 0.2) > Math.abs(bounds.height)) return size - 1;
  }
  return MAX_FONT_SIZE;
}

/**
 * The value's lines at `size`: each paragraph (a line of the value) wrapped
 * at spaces, greedily, as pdf-lib wraps it (a line narrower than the bounds,
 * the spaces at a break dropped); a word wider than the bounds gets a line of
 * its own (pdf-lib put the whole rest of the paragraph there).
 */
function wrap(paragraphs: string[][], width: (word: string, size: number) => number, size: number, maxWidth: number, budget: DocumentBudget): string[] {
  const lines: string[] = [];
  const space = width(' ', size);
  for (const words of paragraphs) {
    budget.check();
    let line: string[] = [];
    let lineWidth = 0;
    let broken = false;
    for (const word of words) {
      // A line the paragraph broke into starts at its first word: the spaces of the break are gone.
      if (line.length === 0 && broken && word === '') continue;
      if (line.length === 0) {
        line.push(word);
        lineWidth = width(word, size);
        continue;
      }
      const next = lineWidth + space + width(word, size);
      if (next < maxWidth) {
        line.push(word);
        lineWidth = next;
        continue;
      }
      lines.push(line.join(' '));
      broken = true;
      line = word === '' ? [] : [word];
      lineWidth = width(word, size);
    }
    lines.push(line.join(' '));
  }
  return lines;
}

/** The /DA's font size and colour, read as pdf-lib reads them (appearances.ts). */
const DA_SIZE = /\/([^\0\t\n\f\r ]+)[\0\t\n\f\r ]+(\d*\.\d+|\d+)[\0\t\n\f\r ]+Tf/g;
const DA_COLOR = /(\d*\.\d+|\d+)[\0\t\n\f\r ]*(\d*\.\d+|\d+)?[\0\t\n\f\r ]*(\d*\.\d+|\d+)?[\0\t\n\f\r ]*(\d*\.\d+|\d+)?[\0\t\n\f\r ]+(g|rg|k)/g;

const lastMatch = (text: string, pattern: RegExp): RegExpExecArray | undefined => {
  let last: RegExpExecArray | undefined;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    last = match;
    if (match[0] === '') pattern.lastIndex += 1;
  }
  return last;
};

function defaultFontSize(field: { getDefaultAppearance(): string | undefined }): number | undefined {
  const size = Number(lastMatch(field.getDefaultAppearance() ?? '', DA_SIZE)?.[2]);
  return Number.isFinite(size) ? size : undefined;
}

function defaultColor(field: { getDefaultAppearance(): string | undefined }): Color | undefined {
  const [, c1, c2, c3, c4, space] = lastMatch(field.getDefaultAppearance() ?? '', DA_COLOR) ?? [];
  if (space === 'g' && c1) return grayscale(Number(c1));
  if (space === 'rg' && c1 && c2 && c3) return rgb(Number(c1), Number(c2), Number(c3));
  if (space === 'k' && c1 && c2 && c3 && c4) return cmyk(Number(c1), Number(c2), Number(c3), Number(c4));
  return undefined;
}

/** Where the appearance's fonts are recorded, per widget: pdf-lib gives an appearance the resources of one font. */
export type FontsUsed = (widget: PDFWidgetAnnotation, fonts: Set<PDFFont>) => void;

type FieldLike = { acroField: { getDefaultAppearance(): string | undefined; setDefaultAppearance(appearance: string): void } };

/** The box, colours and /DA of a widget, read as pdf-lib reads them (appearances.ts). */
function widgetFrame(field: FieldLike, widget: PDFWidgetAnnotation, padding: number) {
  const widgetColor = defaultColor(widget);
  const widgetFontSize = defaultFontSize(widget);
  const rectangle = widget.getRectangle();
  const characteristics = widget.getAppearanceCharacteristics();
  const borderWidth = widget.getBorderStyle()?.getWidth() ?? 0;
  const rotation = reduceRotation(characteristics?.getRotation());
  const { width, height } = adjustDimsForRotation(rectangle, rotation);
  const bounds = { x: borderWidth + padding, y: borderWidth + padding, width: width - (borderWidth + padding) * 2, height: height - (borderWidth + padding) * 2 };
  const textColor = widgetColor ?? defaultColor(field.acroField) ?? rgb(0, 0, 0);
  return {
    bounds,
    textColor,
    fontSize: widgetFontSize ?? defaultFontSize(field.acroField),
    /** Records the font and size drawn in the /DA, where pdf-lib records them (the widget's when it has its own). */
    recordAppearance: (font: PDFFont, fontSize: number) => {
      const appearance = [setFillingColor(textColor).toString(), setFontAndSize(font.name, fontSize).toString()].join('\n');
      if (widgetColor || widgetFontSize !== undefined) widget.setDefaultAppearance(appearance);
      else field.acroField.setDefaultAppearance(appearance);
    },
    /** pdf-lib's drawTextField, with the lines drawn by `drawLines`. */
    draw: (drawLines: PDFOperator[]): PDFOperator[] => {
      const x = borderWidth / 2;
      const y = borderWidth / 2;
      const [w, h] = [width - borderWidth, height - borderWidth];
      const [clipX, clipY] = [x + borderWidth / 2 + padding, y + borderWidth / 2 + padding];
      const [clipWidth, clipHeight] = [w - (borderWidth / 2 + padding) * 2, h - (borderWidth / 2 + padding) * 2];
      return [
        ...rotateInPlace({ ...rectangle, rotation }),
        pushGraphicsState(),
        ...drawRectangle({
          x,
          y,
          width: w,
          height: h,
          borderWidth,
          color: componentsToColor(characteristics?.getBackgroundColor()),
          borderColor: componentsToColor(characteristics?.getBorderColor()),
          rotate: degrees(0),
          xSkew: degrees(0),
          ySkew: degrees(0),
        }),
        moveTo(clipX, clipY),
        lineTo(clipX, clipY + clipHeight),
        lineTo(clipX + clipWidth, clipY + clipHeight),
        lineTo(clipX + clipWidth, clipY),
        closePath(),
        clip(),
        endPath(),
        beginMarkedContent('Tx'),
        pushGraphicsState(),
        setFillingColor(textColor),
        ...drawLines,
        popGraphicsState(),
        endMarkedContent(),
        popGraphicsState(),
      ];
    },
  };
}

/** Where a line of `width` starts in `bounds` under the field's alignment. */
function alignedX(alignment: TextAlignment, bounds: { x: number; width: number }, width: number): number {
  if (alignment === TextAlignment.Center) return bounds.x + bounds.width / 2 - width / 2;
  if (alignment === TextAlignment.Right) return bounds.x + bounds.width - width;
  return bounds.x;
}

/** A single line of text across the field's box, vertically centred (pdf-lib's layoutSinglelineText). */
function singleLine(
  text: string,
  frame: ReturnType<typeof widgetFrame>,
  font: PDFFont,
  fonts: FormFonts,
  alignment: TextAlignment,
  budget: DocumentBudget,
): { fontSize: number; lines: Array<{ line: ShapedLine; x: number; y: number }> } {
  const line = mergeLines(cleanText(text));
  const measure = wordWidths(fonts);
  const fontSize = frame.fontSize === undefined || frame.fontSize === 0 ? autoFontSize([line.split(' ')], font, measure, frame.bounds, budget, false) : frame.fontSize;
  const shaped = shapeLine(fonts, line);
  const height = font.heightAtSize(fontSize, { descender: false });
  return { fontSize, lines: [{ line: shaped, x: alignedX(alignment, frame.bounds, shaped.width * fontSize), y: frame.bounds.y + (frame.bounds.height / 2 - height / 2) }] };
}

/** One grapheme per cell, each centred in its cell (pdf-lib's layoutCombedText). */
function combedCells(text: string, cellCount: number, frame: ReturnType<typeof widgetFrame>, font: PDFFont, fonts: FormFonts, budget: DocumentBudget) {
  const cells = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(mergeLines(cleanText(text)))].map(({ segment }) => shapeLine(fonts, segment));
  const { bounds } = frame;
  const cellWidth = bounds.width / Math.max(1, cellCount);
  let fontSize = frame.fontSize ?? 0;
  if (fontSize === 0) {
    // pdf-lib's computeCombedFontSize: the largest size at which every cell's glyphs fit its cell and the box's height.
    const widest = Math.max(0, ...cells.map((cell) => cell.width));
    for (fontSize = MIN_FONT_SIZE; fontSize < MAX_FONT_SIZE; fontSize += 1) {
      budget.check();
      if (widest * fontSize > cellWidth * 0.75 || font.heightAtSize(fontSize, { descender: false }) > bounds.height) {
        fontSize -= 1;
        break;
      }
    }
  }
  const height = font.heightAtSize(fontSize, { descender: false });
  const y = bounds.y + (bounds.height / 2 - height / 2);
  return { fontSize, lines: cells.slice(0, cellCount).map((line, i) => ({ line, x: bounds.x + cellWidth * i + cellWidth / 2 - (line.width * fontSize) / 2, y })) };
}

/**
 * The appearance provider for a text field's `updateAppearances`, given the
 * document's prepared faces: single-line, combed and multi-line (laid out
 * here, within `budget`). `font` is the value's primary face, the one its /DA
 * names; `used` learns every face a widget's appearance shows.
 */
export function textFieldAppearance(budget: DocumentBudget, fonts: FormFonts, used: FontsUsed): AppearanceProviderFor<PDFTextField> {
  return (field, widget, font) => {
    const combed = field.isCombed();
    const frame = widgetFrame(field, widget, combed ? 0 : 1);
    const text = field.getText() ?? '';
    let layout: { fontSize: number; lines: Array<{ line: ShapedLine; x: number; y: number }> };
    if (field.isMultiline()) layout = multiLine(text, frame, font, fonts, field.getAlignment(), budget);
    else if (combed) layout = combedCells(text, field.getMaxLength() ?? 0, frame, font, fonts, budget);
    else layout = singleLine(text, frame, font, fonts, field.getAlignment(), budget);
    return finish(widget, frame, font, layout, used);
  };
}

/** The appearance provider for a combo box: its chosen value on one line, as pdf-lib draws it (left-aligned). */
export function dropdownAppearance(budget: DocumentBudget, fonts: FormFonts, used: FontsUsed): AppearanceProviderFor<PDFDropdown> {
  return (field, widget, font) => {
    const frame = widgetFrame(field, widget, 1);
    const layout = singleLine(field.getSelected()[0] ?? '', frame, font, fonts, TextAlignment.Left, budget);
    return finish(widget, frame, font, layout, used);
  };
}

function finish(
  widget: PDFWidgetAnnotation,
  frame: ReturnType<typeof widgetFrame>,
  font: PDFFont,
  { fontSize, lines }: { fontSize: number; lines: Array<{ line: ShapedLine; x: number; y: number }> },
  used: FontsUsed,
): PDFOperator[] {
  frame.recordAppearance(font, fontSize);
  const faces = new Set<PDFFont>([font]);
  for (const { line } of lines) for (const face of lineFonts(line)) faces.add(face);
  used(widget, faces);
  return frame.draw(lines.flatMap(({ line, x, y }) => drawShapedLine(line, x, y, fontSize)));
}

/** The value's lines, word-wrapped (see the top of this file). */
function multiLine(
  text: string,
  frame: ReturnType<typeof widgetFrame>,
  font: PDFFont,
  fonts: FormFonts,
  alignment: TextAlignment,
  budget: DocumentBudget,
): { fontSize: number; lines: Array<{ line: ShapedLine; x: number; y: number }> } {
  const { bounds } = frame;
  const measure = wordWidths(fonts);
  const paragraphs = lineSplit(cleanText(text.replace(/\r\n/g, '\n'))).map((line) => line.split(' '));
  const fontSize = frame.fontSize === undefined || frame.fontSize === 0 ? autoFontSize(paragraphs, font, measure, bounds, budget) : frame.fontSize;
  const textHeight = font.heightAtSize(fontSize);
  const lineHeight = textHeight + textHeight * 0.2;
  let y = bounds.y + bounds.height;
  const lines = wrap(paragraphs, measure, fontSize, bounds.width, budget).map((lineText) => {
    budget.check();
    const line = shapeLine(fonts, lineText);
    y -= lineHeight;
    return { line, x: alignedX(alignment, bounds, line.width * fontSize), y };
  });
  return { fontSize, lines };
}
