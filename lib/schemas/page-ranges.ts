/**
 * Page ranges in Chromium's `pageRanges` syntax ("1-5, 8, 11-13", open at
 * either end: "-3", "5-"), shared by `pdf.pageRanges` (what Chromium prints)
 * and `pdf.watermark.pages` (which pages the finishing stage stamps), so the
 * two accept exactly the same strings.
 */
import * as v from 'valibot';

const PAGE_RANGE = /^(?:(\d+)(?:-(\d*))?|-(\d+))$/;

function pageRangesProblem(ranges: string): string | undefined {
  if (ranges.trim() === '') return undefined;
  for (const part of ranges.split(',')) {
    const match = PAGE_RANGE.exec(part.trim());
    if (!match) return 'Must be pages and ranges separated by commas, e.g. "1-5, 8, 11-13"';
    const [, first, last, upTo] = match;
    const numbers = [first, last, upTo].filter((n): n is string => n !== undefined && n !== '').map(Number);
    if (numbers.some((page) => page < 1)) return 'Page numbers start at 1';
    if (first !== undefined && last && Number(first) > Number(last)) {
      return `Range ${part.trim()} ends before it starts`;
    }
  }
  return undefined;
}

/** A `pageRanges` string; the empty string means every page. */
export const PageRangesSchema = v.pipe(
  v.string('Must be a string'),
  v.maxLength(1000, 'Must be at most 1000 characters'),
  v.check(
    (ranges) => pageRangesProblem(ranges) === undefined,
    (issue) => pageRangesProblem(issue.input) ?? 'Invalid page ranges',
  ),
);

/**
 * The 0-based indexes of the pages a valid `ranges` string selects in a
 * document of `pageCount` pages, in page order; every page for an empty
 * string. `beyond` is true when a range names a page past the end (Chromium
 * refuses such a range; callers decide).
 */
export function selectPages(ranges: string, pageCount: number): { pages: number[]; beyond: boolean } {
  if (ranges.trim() === '') return { pages: Array.from({ length: pageCount }, (_, i) => i), beyond: false };
  const chosen = new Set<number>();
  let beyond = false;
  for (const part of ranges.split(',')) {
    const match = PAGE_RANGE.exec(part.trim());
    if (!match) continue;
    const [, first, last, upTo] = match;
    const from = upTo !== undefined ? 1 : Number(first);
    const to = upTo !== undefined ? Number(upTo) : last === undefined ? from : last === '' ? pageCount : Number(last);
    if (from > pageCount || to > pageCount) beyond = true;
    for (let page = from; page <= Math.min(to, pageCount); page += 1) chosen.add(page - 1);
  }
  return { pages: [...chosen].sort((a, b) => a - b), beyond };
}
