/**
 * The in-page probe of characters no font draws (issue 46): a screenshot has
 * no PDF to read glyph ids from, and a PDF names not every `.notdef` it draws
 * (output/missing-glyphs.ts: Skia keeps the first one per font to itself).
 * The page's rendered text (text nodes, `::before`/`::after` content, form
 * values, and any extra HTML such as Chromium's header and footer templates)
 * is read once; each distinct character is drawn on a canvas in its element's
 * computed font next to U+0378, a code point no font has: the same advance
 * and the same pixels mean the character got `.notdef` as well. Bounded in
 * characters and in time; what the bound left unread makes the answer `partial`,
 * as does a probe the page's own scripts made fail.
 */
import type { Page } from 'puppeteer-core';

/** Distinct (character, font) pairs drawn at most; a page with more is answered `partial`. */
export const MAX_PROBED_CHARACTERS = 8_000;
/** Characters of text read at most. */
export const MAX_PROBED_TEXT = 2_000_000;
/** Time the probe may take in the page. */
export const PROBE_TIME_MS = 1_500;

/** What the probe found: characters drawn as `.notdef`, each occurrence counted, distinct code points in order. */
export type ProbeResult = { count: number; codePoints: string[]; partial: boolean };

type ProbeLimits = { characters: number; text: number; timeMs: number; extraHtml: string[] };

/**
 * Runs in the page, given the limits. A string, not a serialized function: a
 * build step's helpers (esbuild's __name, with keepNames) would not exist in the page.
 */
const PROBE_IN_PAGE = `(limits) => {
  const started = performance.now();
  const ignorable = /^[\\p{Default_Ignorable_Code_Point}\\p{Cc}\\p{Cf}\\p{White_Space}]$/u;
  // An HTML canvas in any document: in an SVG or XML document createElement would make an element of no namespace.
  const canvas = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
  canvas.width = 64;
  canvas.height = 64;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const result = { count: 0, codePoints: [], partial: false };
  if (!context) return { ...result, partial: true };
  let read = 0;
  // (font → character → occurrences) of the text read.
  const byFont = new Map();
  let pairs = 0;
  const fontOf = (style) => style.fontStyle + ' ' + style.fontWeight + ' 40px ' + style.fontFamily;
  const take = (text, font) => {
    if (read >= limits.text) {
      result.partial = true;
      return;
    }
    read += text.length;
    let chars = byFont.get(font);
    if (!chars) byFont.set(font, (chars = new Map()));
    for (const char of text) {
      if (ignorable.test(char) || char.charCodeAt(0) < 0x80) continue;
      const seen = chars.get(char);
      if (seen === undefined) {
        if (pairs >= limits.characters) {
          result.partial = true;
          continue;
        }
        pairs++;
      }
      chars.set(char, (seen ?? 0) + 1);
    }
  };
  const contentText = (value) => {
    // Only quoted strings of content are text (counters, attr() and images are not read).
    let text = '';
    for (const match of value.matchAll(/"((?:[^"\\\\]|\\\\.)*)"/g)) text += (match[1] || '').replace(/\\\\([0-9a-fA-F]{1,6}) ?|\\\\(.)/g, (_, hex, other) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : other));
    return text;
  };
  const walk = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (performance.now() - started > limits.timeMs) {
        result.partial = true;
        return;
      }
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement;
        if (!parent || parent.closest('script, style, noscript, template')) continue;
        take(node.nodeValue ?? '', fontOf(getComputedStyle(parent)));
        continue;
      }
      const element = node;
      for (const pseudo of ['::before', '::after']) {
        const style = getComputedStyle(element, pseudo);
        if (style.content && style.content !== 'none' && style.content !== 'normal') take(contentText(style.content), fontOf(style));
      }
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) take(element.value, fontOf(getComputedStyle(element)));
    }
  };
  walk(document.documentElement);
  // HTML drawn outside the document (Chromium's header and footer): in the body's font, as those print by default.
  const bodyFont = fontOf(getComputedStyle(document.body ?? document.documentElement));
  for (const html of limits.extraHtml) take(new DOMParser().parseFromString(html, 'text/html').body?.textContent ?? '', bodyFont);

  const pixels = (text) => {
    context.clearRect(0, 0, 64, 64);
    context.fillText(text, 8, 48);
    return context.getImageData(0, 0, 64, 64).data;
  };
  const NOTHING = '\\u0378';
  for (const [font, chars] of byFont) {
    context.font = font;
    const notdefWidth = context.measureText(NOTHING).width;
    let notdefPixels;
    for (const [char, occurrences] of chars) {
      if (performance.now() - started > limits.timeMs) {
        result.partial = true;
        return result;
      }
      if (context.measureText(char).width !== notdefWidth) continue;
      notdefPixels ??= pixels(NOTHING);
      const drawn = pixels(char);
      let same = true;
      for (let i = 0; i < drawn.length && same; i++) same = drawn[i] === notdefPixels[i];
      if (!same) continue;
      result.count += occurrences;
      const name = 'U+' + char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
      if (!result.codePoints.includes(name)) result.codePoints.push(name);
    }
  }
  return result;
}`;

/**
 * Probes the loaded page (and `extraHtml`, drawn in the body's font) for
 * characters no font draws. Answers what it found within its bounds.
 */
export async function probeMissingGlyphs(page: Page, options: { extraHtml?: string[]; timeMs?: number } = {}): Promise<ProbeResult> {
  const limits: ProbeLimits = { characters: MAX_PROBED_CHARACTERS, text: MAX_PROBED_TEXT, timeMs: options.timeMs ?? PROBE_TIME_MS, extraHtml: options.extraHtml ?? [] };
  try {
    return (await page.evaluate(`(${PROBE_IN_PAGE})(${JSON.stringify(limits)})`)) as ProbeResult;
  } catch {
    // The probe runs among the page's own scripts, which may have replaced what it calls (getComputedStyle,
    // the canvas): a check the page defeated is a partial report, never the render's failure.
    return { count: 0, codePoints: [], partial: true };
  }
}
