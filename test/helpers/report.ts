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
    const blocks = Array.from({ length: BLOCKS[index] ?? 16 }, (_, b) => `<p class="block">Paragraph ${b + 1} of ${name}.</p>`).join('');
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
