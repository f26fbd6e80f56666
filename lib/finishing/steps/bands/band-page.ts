/**
 * The page that prints a band (a running header or footer) for a whole
 * document at once: the caller's HTML document, loaded once like any page
 * (its stylesheets, web fonts, images and scripts), then laid out as one
 * band-sized PDF page per body page with that page's variables filled in.
 * One Chromium print per band kind, not one per body page.
 */

/** What a band shows on one page: Chromium's header variables, and the running section. */
export type BandVariables = { pageNumber: number; totalPages: number; title: string; date: string; url: string; section: string };

/**
 * The band's content on each body page: which of `sources` (HTML documents) it shows with which variables, or null
 * (no band there); and each band page's width in points (`widths`, one per body page: a merge's pages differ).
 */
export type BandLayout = { sources: string[]; pages: Array<{ source: number; variables: BandVariables } | null>; widths: number[] };

/**
 * Set on the band page once every body page's band is laid out; the print waits for it, or for a page that is
 * no longer the band's (it navigated away: no band style), which then fails the check of the marks.
 */
export const BANDS_READY = "window.__docrenderBandsReady === true || (document.readyState === 'complete' && !document.getElementById('docrender-band-style'))";

/** How long a band's page may take, after its load event, to be laid out: a band that is not ready by then is a 400 naming it. */
export const BAND_LAYOUT_WAIT_MS = 10_000;

/** The named destination at the top of band page `index` (0-based): the printed PDF proves each band is on its page. */
export const bandMark = (index: number) => `docrender-band-${index}`;

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The band document: `layout.sources[0]` with the size of a band page and a
 * script that, once the page has loaded (fonts included) and its own scripts
 * have had their turn, replaces the body by one section per body page: the
 * live body for source 0, the body of another source's document otherwise
 * (its stylesheets joining the head), each with the elements of class
 * pageNumber, totalPages, title, date, url and section filled in.
 */
export function bandDocument(layout: BandLayout, height: number): string {
  // One named page per width (CSS Paged Media: the print prefers CSS page sizes), so that band page i is as wide
  // as body page i: a merge of A4 and Letter pages gets bands of both widths, not one stretched over the other.
  const widths = [...new Set(layout.widths)];
  const named = widths.map((width, index) => `@page docrender-w${index}{size:${width}pt ${height}pt;margin:0}\n.docrender-w${index}{page:docrender-w${index};width:${width}pt}`);
  const style = `<style id="docrender-band-style">@page{size:${widths[0] ?? 612}pt ${height}pt;margin:0}
${named.join('\n')}
html,body{margin:0!important;padding:0!important}
.docrender-band{height:calc(${height}pt - 1px);overflow:hidden;break-after:page;break-inside:avoid;position:relative;box-sizing:border-box}
.docrender-band:last-child{break-after:auto}</style>`;
  const classes = layout.widths.map((width) => `docrender-w${widths.indexOf(width)}`);
  const script = `<script type="application/json" id="docrender-bands">${escapeJson({ ...layout, classes })}</script><script>${LAY_OUT}</script>`;
  const [main = ''] = layout.sources;
  const withStyle = /<head[^>]*>/i.test(main) ? main.replace(/<head[^>]*>/i, (head) => head + style) : style + main;
  return /<\/body>/i.test(withStyle) ? withStyle.replace(/<\/body>(?![\s\S]*<\/body>)/i, `${script}</body>`) : withStyle + script;
}

/**
 * Runs in the band page: lays the bands out, then sets the flag BANDS_READY
 * waits for. A string, not a serialized function: a build step's helpers
 * (esbuild's __name) would not exist in the page.
 */
const LAY_OUT = `(async () => {
  try {
  if (document.readyState !== 'complete') await new Promise((done) => addEventListener('load', done, { once: true }));
  await document.fonts.ready;
  await new Promise((done) => setTimeout(done, 0));
  const layout = JSON.parse(document.getElementById('docrender-bands').textContent);
  for (const script of Array.from(document.querySelectorAll('script'))) script.remove();
  const parser = new DOMParser();
  const seen = new Set(Array.from(document.head.querySelectorAll('style, link')).map((node) => node.outerHTML));
  const bodies = layout.sources.map((html, index) => {
    if (index === 0) return document.body.innerHTML;
    const parsed = parser.parseFromString(html, 'text/html');
    for (const node of Array.from(parsed.head.querySelectorAll('style, link[rel~="stylesheet"]'))) {
      if (seen.has(node.outerHTML)) continue;
      seen.add(node.outerHTML);
      document.head.append(node);
    }
    return parsed.body.innerHTML;
  });
  const marks = document.createElement('div');
  marks.hidden = true;
  const sections = layout.pages.map((page, index) => {
    const section = document.createElement('div');
    section.className = 'docrender-band ' + layout.classes[index];
    if (!page) return section;
    section.innerHTML = bodies[page.source] || '';
    // A mark at the band's top, linked from a hidden element: a named destination on this band page.
    const mark = document.createElement('span');
    mark.id = 'docrender-band-' + index;
    section.prepend(mark);
    const link = document.createElement('a');
    link.href = '#' + mark.id;
    marks.append(link);
    for (const [name, value] of Object.entries(page.variables)) {
      for (const node of Array.from(section.getElementsByClassName(name))) node.textContent = String(value);
    }
    return section;
  });
  document.body.replaceChildren(marks, ...sections);
  // Images and CSS backgrounds of the new sections decoded before the print (the print does not wait for them).
  const urls = new Set(Array.from(document.images).map((image) => image.currentSrc || image.src));
  for (const node of Array.from(document.body.querySelectorAll('*'))) {
    for (const match of getComputedStyle(node).backgroundImage.matchAll(/url\\("?(.*?)"?\\)/g)) urls.add(match[1]);
  }
  await Promise.all(Array.from(urls).map((url) => { const image = new Image(); image.src = url; return image.decode().catch(() => undefined); }));
  await document.fonts.ready;
  } finally {
    // Set even when the layout failed (the page replaced itself): the page count then tells, without waiting out the budget.
    window.__docrenderBandsReady = true;
  }
})();`;
