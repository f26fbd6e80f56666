/**
 * The report the header, footer and TOC proofs print: a cover, then five
 * chapters each starting on a new page. Each chapter's heading is followed by
 * a marker (`START-k`) that the bands never show, so a page's text tells
 * which chapters started on it.
 */
export const CHAPTERS = ['Overview', 'Growth', 'Operations', 'Risks', 'Outlook'] as const;

/** Blocks of text per chapter: with a 1.5 cm header and footer on US letter, the report is 30 pages. */
const BLOCKS = [17, 17, 16, 17, 17];

/** The report's HTML; `toc` is put after the cover (its own page or pages). */
export function reportHtml(toc = ''): string {
  const chapters = CHAPTERS.map((name, index) => {
    const blocks = Array.from({ length: BLOCKS[index] ?? 16 }, (_, b) => `<p class="block" id="ch${index + 1}-p${b + 1}">Paragraph ${b + 1} of ${name}.</p>`).join('');
    return `<h1 id="ch${index + 1}" style="break-before:page;break-after:avoid">${name}</h1><p>START-${index + 1}</p>${blocks}`;
  }).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Annual report</title>
<style>body{font-family:sans-serif;margin:0} .block{height:280px;margin:0} .cover{font-size:40px;padding-top:200px}</style></head>
<body><div class="cover">The annual report</div>${toc}${chapters}</body></html>`;
}

/** The chapter (1-based) that starts on each page, from each page's text: the running section every page should show. */
export function expectedSections(pageTexts: string[]): string[] {
  let current = '';
  return pageTexts.map((text) => {
    for (const match of text.matchAll(/START-(\d)/g)) current = CHAPTERS[Number(match[1]) - 1] ?? '';
    return current;
  });
}

/** Entries of the report's table of contents: each chapter, and every fourth paragraph of it (enough to fill two pages). */
export const TOC_ENTRIES = CHAPTERS.flatMap((name, index) => [
  { label: name, anchor: `ch${index + 1}`, text: `START-${index + 1}` },
  ...[4, 8, 12, 16].map((p) => ({ label: `${name} ${p}`, anchor: `ch${index + 1}-p${p}`, text: `Paragraph ${p} of ${name}.` })),
]);

/**
 * A table of contents two pages long: entries as data-toc-page spans, the
 * third chapter's as an a.toc-page link, and one entry whose anchor is not
 * in the document (it stays empty).
 */
export function reportToc(options: { growing?: boolean } = {}): string {
  const entries = TOC_ENTRIES.map(({ label, anchor }) =>
    anchor === 'ch3'
      ? `<div class="toc-line">ENTRY ${label}: <a class="toc-page" href="#${anchor}"></a>.</div>`
      : `<div class="toc-line">ENTRY ${label}: <span data-toc-page="#${anchor}"></span>.</div>`,
  ).join('');
  // Growing: each number on a line of its own, so filling them in makes the TOC a page longer and moves every chapter.
  const style = options.growing ? '.toc-line{font-size:14px;min-height:20px} .toc-line [data-toc-page], .toc-line .toc-page{display:block;font-size:30px}' : '.toc-line{height:45px;font-size:14px}';
  return `<nav style="break-before:page"><style>${style}</style><h1>Contents</h1>${entries}<div class="toc-line">ENTRY Missing: <span data-toc-page="#nowhere"></span>.</div></nav>`;
}
