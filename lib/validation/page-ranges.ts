/**
 * Page ranges in Chromium's `pageRanges` syntax ("1-5, 8, 11-13", open at
 * either end: "-3", "5-"), shared by `pdf.pageRanges` (what Chromium prints)
 * and the finishing stage's page choices (`pdf.watermark.pages`,
 * `pdf.rotate.pages`, a band's pages), so they accept exactly the same
 * strings; `pdf.pages` reads the same syntax in the order it is written.
 */
import * as v from 'valibot';

const PAGE_RANGE = /^(?:(\d+)(?:-(\d*))?|-(\d+))$/;

/**
 * Highest page number a range may name: six digits (leading zeros aside), a
 * rule the OpenAPI document's pattern states too. No document the service
 * makes or reads comes near it, and it keeps every number exact: without
 * it, 309 digits read as Infinity and "1-999…9" meant "1-" (every page).
 */
export const MAX_PAGE_NUMBER = 999_999;

/** Digits of MAX_PAGE_NUMBER: a page number with more (leading zeros aside) is beyond it. */
export const MAX_PAGE_DIGITS = String(MAX_PAGE_NUMBER).length;

function pageRangesProblem(ranges: string): string | undefined {
  if (ranges.trim() === '') return undefined;
  for (const part of ranges.split(',')) {
    const match = PAGE_RANGE.exec(part.trim());
    if (!match) return 'Must be pages and ranges separated by commas, e.g. "1-5, 8, 11-13"';
    const [, first, last, upTo] = match;
    const digits = [first, last, upTo].filter((n): n is string => n !== undefined && n !== '');
    // Compared as digits before they become numbers: a long string of them is no safe integer.
    if (digits.some((n) => n.replace(/^0+/, '').length > MAX_PAGE_DIGITS)) {
      return `Page numbers go up to ${MAX_PAGE_NUMBER}`;
    }
    const numbers = digits.map(Number);
    if (numbers.some((page) => page < 1)) return 'Page numbers start at 1';
    if (first !== undefined && last && Number(first) > Number(last)) {
      return `Range ${part.trim()} ends before it starts`;
    }
  }
  return undefined;
}

/** A string of pages and ranges, refused with the reason `problem` gives. */
function pagesString(problem: (pages: string) => string | undefined) {
  return v.pipe(
    v.string('Must be a string'),
    v.maxLength(1000, 'Must be at most 1000 characters'),
    v.check(
      (pages) => problem(pages) === undefined,
      (issue) => problem(issue.input) ?? 'Invalid page ranges',
    ),
  );
}

/** A `pageRanges` string; the empty string means every page. */
export const PageRangesSchema = pagesString(pageRangesProblem);

/**
 * The 0-based indexes of the pages a valid `ranges` string selects in a
 * document of `pageCount` pages, in page order; every page for an empty
 * string. `beyond` is true when a range names a page past the end (Chromium
 * refuses such a range; callers decide).
 */
export function selectPages(ranges: string, pageCount: number): { pages: number[]; beyond: boolean } {
  const { pages, beyond } = orderPages(ranges, pageCount);
  return { pages: [...new Set(pages)].sort((a, b) => a - b), beyond };
}

/** A part of a valid ranges string as the pages it spans, 1-based; `to` is Infinity for an open end ("5-"). */
function spans(ranges: string): Array<{ part: string; from: number; to: number }> {
  if (ranges.trim() === '') return [];
  return ranges.split(',').flatMap((raw) => {
    const part = raw.trim();
    const match = PAGE_RANGE.exec(part);
    if (!match) return [];
    const [, first, last, upTo] = match;
    if (upTo !== undefined) return [{ part, from: 1, to: Number(upTo) }];
    const from = Number(first);
    return [{ part, from, to: last === undefined ? from : last === '' ? Infinity : Number(last) }];
  });
}

/** Why a `pages` string is refused: a pageRanges problem, or a page that two of its parts both name. */
function pageOrderProblem(order: string): string | undefined {
  const problem = pageRangesProblem(order);
  if (problem) return problem;
  const parts = spans(order);
  for (const [index, a] of parts.entries()) {
    for (const b of parts.slice(index + 1)) {
      const page = Math.max(a.from, b.from);
      if (page <= Math.min(a.to, b.to)) {
        return a.part === b.part ? `Page ${page} is named twice: a page may appear once` : `"${a.part}" and "${b.part}" both take page ${page}: a page may appear once`;
      }
    }
  }
  return undefined;
}

/** `pdf.pages`: pageRanges syntax read in the order written ("3, 1-2, 5-"), each page at most once; the empty string keeps every page. */
export const PageOrderSchema = pagesString(pageOrderProblem);

/**
 * The 0-based indexes a valid `pages` string keeps of a document of
 * `pageCount` pages, in the order it names them (an empty string keeps every
 * page in order). `beyond` is true when a part names a page past the end.
 */
export function orderPages(order: string, pageCount: number): { pages: number[]; beyond: boolean } {
  const parts = spans(order);
  if (parts.length === 0) return { pages: Array.from({ length: pageCount }, (_, i) => i), beyond: false };
  const pages: number[] = [];
  let beyond = false;
  for (const { from, to } of parts) {
    if (from > pageCount || (to !== Infinity && to > pageCount)) beyond = true;
    for (let page = from; page <= Math.min(to, pageCount); page += 1) pages.push(page - 1);
  }
  return { pages, beyond };
}
