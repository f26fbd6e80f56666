import type { PageFontsPlan } from '../../../fonts/user-fonts/page-fonts.js';
import { cssFamilyList } from '../../../fonts/family-names.js';
import type { TextDrawer, WatermarkText } from './watermark.js';

/**
 * Prints an HTML page to a PDF within the given time: the service's own Chromium renderer, the page sized by
 * its CSS @page and its background left transparent (the edge turns this into a render: lib/document-renderer.ts).
 */
export type PrintHtml = (html: string, timeoutMs: number, fonts?: PageFontsPlan) => Promise<{ body: Uint8Array }>;

/** Drawn watermark texts kept per process: a stamp such as "PAID" is printed once, then reused. */
const CACHE_SIZE = 32;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/**
 * The page that prints a watermark text: the text alone, in its `fontFamily`
 * (an account font or a layer family) and then the layer's sans-serif (with
 * its fallbacks for every script), on a page sized to the text
 * by a script that measures it before printing. Whitespace and line breaks
 * are kept as given.
 */
export function watermarkTextPage({ text, fontSize, color, fontFamily }: WatermarkText): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;padding:0;background:transparent}
#w{display:inline-block;white-space:pre;font-family:${cssFamilyList(fontFamily)};font-size:${fontSize}pt;line-height:1.25;color:${color};padding:0 0.05em}
</style></head><body><span id="w">${escapeHtml(text)}</span><script>
const box = document.getElementById('w').getBoundingClientRect();
const page = document.createElement('style');
page.textContent = '@page{margin:0;size:' + (Math.ceil(box.width) + 1) + 'px ' + (Math.ceil(box.height) + 1) + 'px}';
document.head.appendChild(page);
</script></body></html>`;
}

/**
 * TextDrawers (one per render, reading that render's time left) that print the text with the service's Chromium: real text,
 * shaped in any script with the layer's fonts (pdf-lib alone could embed a
 * CJK font but not shape complex scripts or draw colour emoji). Each drawing
 * is kept for every render of the process, so repeating a stamp costs no
 * second print. The page of a render whose account has fonts of its own
 * (issue 46) has them too, and its drawings are kept under that font set's
 * key: another account's stamp of the same text is never one drawn with them.
 */
export function chromiumTextDrawer(print: PrintHtml): (timeLeftMs: () => number, fonts?: PageFontsPlan) => TextDrawer {
  const drawn = new Map<string, Promise<Uint8Array>>();
  return (timeLeftMs, fonts) => (text) => {
    const key = JSON.stringify([fonts?.key ?? '', text.text, text.fontSize, text.color.toLowerCase(), text.fontFamily ?? '']);
    const cached = drawn.get(key);
    if (cached) {
      // Most recently used last, so the oldest goes first when the cache is full.
      drawn.delete(key);
      drawn.set(key, cached);
      return cached;
    }
    const printing = print(watermarkTextPage(text), timeLeftMs(), fonts).then((result) => new Uint8Array(result.body));
    drawn.set(key, printing);
    // A failed print (a timeout) is not kept: the next request prints again.
    printing.catch(() => drawn.delete(key));
    if (drawn.size > CACHE_SIZE) drawn.delete(drawn.keys().next().value as string);
    return printing;
  };
}
