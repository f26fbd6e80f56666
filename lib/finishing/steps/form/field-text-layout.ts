/**
 * A multi-line text field's appearance, laid out in one pass. pdf-lib's own
 * (`layoutMultilineText`) finds each line by measuring the whole rest of the
 * value, then ever shorter prefixes of it, with fontkit's shaping, for every
 * line: a value of the 10,000 characters the schema allows took 29 s. Here
 * every distinct word is measured once (its shaped width at 1,000 points,
 * scaled), the font size and the lines come from those widths, and each line
 * is shaped once more for its glyphs: the work is bounded by the value's size.
 * The result is pdf-lib's appearance (same font size rule, line height,
 * alignment, padding, border, background, /DA): only the layout is new.
 * Single-line and combed fields keep pdf-lib's provider, which measures the
 * value a bounded number of times.
 */
import {
  adjustDimsForRotation,
  cleanText,
  cmyk,
  componentsToColor,
  defaultTextFieldAppearanceProvider,
  drawTextField,
  grayscale,
  lineSplit,
  reduceRotation,
  rgb,
  rotateInPlace,
  setFillingColor,
  setFontAndSize,
  TextAlignment,
  type AppearanceProviderFor,
  type Color,
  type PDFFont,
  type PDFTextField,
  type TextPosition,
} from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';

/** pdf-lib's bounds for a field's automatic font size (layout.ts). */
const MIN_FONT_SIZE = 4;
const MAX_FONT_SIZE = 500;

/** The widths of words in one font, each measured once: fontkit shapes a string in time linear in its length. */
function wordWidths(font: PDFFont): (word: string, size: number) => number {
  const at1000 = new Map<string, number>();
  return (word, size) => {
    let width = at1000.get(word);
    if (width === undefined) at1000.set(word, (width = word === '' ? 0 : font.widthOfTextAtSize(word, 1000)));
    return (width * size) / 1000;
  };
}

/**
 * pdf-lib's automatic font size for a multi-line field (computeFontSize): the
 * largest size whose word-wrapped lines fit the bounds' height, from cached
 * word widths.
 */
function autoFontSize(paragraphs: string[][], font: PDFFont, width: (word: string, size: number) => number, bounds: { width: number; height: number }, budget: DocumentBudget): number {
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

/**
 * The appearance provider for a field's `updateAppearances`: a multi-line
 * text field laid out here, within `budget`; any other text field by pdf-lib.
 */
export function textFieldAppearance(budget: DocumentBudget): AppearanceProviderFor<PDFTextField> {
  return (field, widget, font) => {
    if (!field.isMultiline()) return defaultTextFieldAppearanceProvider(field, widget, font);
    const widgetColor = defaultColor(widget);
    const widgetFontSize = defaultFontSize(widget);
    const rectangle = widget.getRectangle();
    const characteristics = widget.getAppearanceCharacteristics();
    const borderWidth = widget.getBorderStyle()?.getWidth() ?? 0;
    const rotation = reduceRotation(characteristics?.getRotation());
    const { width, height } = adjustDimsForRotation(rectangle, rotation);
    const padding = 1;
    const bounds = { x: borderWidth + padding, y: borderWidth + padding, width: width - (borderWidth + padding) * 2, height: height - (borderWidth + padding) * 2 };

    const measure = wordWidths(font);
    const paragraphs = lineSplit(cleanText((field.getText() ?? '').replace(/\r\n/g, '\n'))).map((line) => line.split(' '));
    const given = widgetFontSize ?? defaultFontSize(field.acroField);
    const fontSize = given === undefined || given === 0 ? autoFontSize(paragraphs, font, measure, bounds, budget) : given;
    const textHeight = font.heightAtSize(fontSize);
    const lineHeight = textHeight + textHeight * 0.2;
    const alignment = field.getAlignment();
    let y = bounds.y + bounds.height;
    const textLines: TextPosition[] = wrap(paragraphs, measure, fontSize, bounds.width, budget).map((text) => {
      budget.check();
      const lineWidth = font.widthOfTextAtSize(text, fontSize);
      const x =
        alignment === TextAlignment.Center ? bounds.x + bounds.width / 2 - lineWidth / 2 : alignment === TextAlignment.Right ? bounds.x + bounds.width - lineWidth : bounds.x;
      y -= lineHeight;
      return { text, encoded: font.encodeText(text), width: lineWidth, height: textHeight, x, y };
    });

    // The /DA records the font and size drawn, where pdf-lib records them (the widget's when it has its own).
    const textColor = widgetColor ?? defaultColor(field.acroField) ?? rgb(0, 0, 0);
    const appearance = [setFillingColor(textColor).toString(), setFontAndSize(font.name, fontSize).toString()].join('\n');
    if (widgetColor || widgetFontSize !== undefined) widget.setDefaultAppearance(appearance);
    else field.acroField.setDefaultAppearance(appearance);

    return [
      ...rotateInPlace({ ...rectangle, rotation }),
      ...drawTextField({
        x: borderWidth / 2,
        y: borderWidth / 2,
        width: width - borderWidth,
        height: height - borderWidth,
        borderWidth,
        borderColor: componentsToColor(characteristics?.getBorderColor()),
        textColor,
        font: font.name,
        fontSize,
        color: componentsToColor(characteristics?.getBackgroundColor()),
        textLines,
        padding,
      }),
    ];
  };
}
