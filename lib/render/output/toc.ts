import type { Page } from 'puppeteer-core';
import type { Deadline } from '../../deadline.js';
import type { PdfPlan } from '../render-plan.js';
import { printPdf } from './print-pdf.js';

/** Prints at most this many times: the first print places the anchors, the next ones settle the numbers. */
export const MAX_TOC_PRINTS = 3;

/**
 * Marks the table of contents' entries (`[data-toc-page="#anchor"]`, and
 * `a.toc-page[href="#anchor"]`) and links each anchor from a hidden element,
 * so that Chromium writes a named destination for it (the printed PDF then
 * says on which page it landed). Answers each entry's anchor id, in document
 * order. A string: a build step's helpers would not exist in the page.
 */
const MARK_ENTRIES = `(() => {
  const entries = Array.from(document.querySelectorAll('[data-toc-page], a.toc-page[href^="#"]'));
  const links = document.createElement('div');
  links.hidden = true;
  const ids = entries.map((entry, index) => {
    entry.setAttribute('data-docrender-toc', String(index));
    const target = (entry.getAttribute('data-toc-page') || entry.getAttribute('href') || '').replace(/^#/, '');
    let id = '';
    try { id = decodeURIComponent(target); } catch { id = target; }
    const link = document.createElement('a');
    link.href = '#' + encodeURIComponent(id);
    links.append(link);
    return id;
  });
  document.body.append(links);
  return ids;
})()`;

/** Fills each entry with its page number (empty for an anchor that is not in the printed document). */
function fill(page: Page, numbers: Array<number | null>): Promise<void> {
  return page.evaluate((numbers) => {
    for (const entry of Array.from(document.querySelectorAll('[data-docrender-toc]'))) {
      const number = numbers[Number(entry.getAttribute('data-docrender-toc'))];
      entry.textContent = number == null ? '' : String(number);
    }
  }, numbers);
}

/** The page (1-based) each anchor landed on in `pdf`, null where it did not. */
async function landedOn(pdf: Buffer, anchors: string[]): Promise<Array<number | null>> {
  // Loaded with the first table of contents: the PDF library is no part of the renders without one.
  const [{ PDFDocument }, { destinationPages }] = await Promise.all([import('@cantoo/pdf-lib'), import('../../finishing/objects/named-destinations.js')]);
  const pages = destinationPages(await PDFDocument.load(pdf, { updateMetadata: false }));
  return anchors.map((anchor) => {
    const index = pages.get(anchor);
    return index === undefined ? null : index + 1;
  });
}

/**
 * Prints a page whose table of contents gets the page numbers its anchors
 * land on: prints, reads where each anchor landed, fills the numbers and
 * prints again until the numbers it filled are the numbers it finds (at most
 * MAX_TOC_PRINTS prints, each within the render's budget). Answers the last print.
 */
export async function printWithToc(page: Page, plan: Pick<PdfPlan, 'print' | 'headerFooter'>, deadline: Deadline): Promise<{ pdf: Buffer; prints: number }> {
  const anchors = (await page.evaluate(MARK_ENTRIES)) as string[];
  let pdf = await printPdf(page, plan, deadline);
  if (anchors.length === 0) return { pdf, prints: 1 };
  let filled: Array<number | null> | undefined;
  for (let prints = 1; ; prints++) {
    const found = await landedOn(pdf, anchors);
    if (filled && found.every((number, index) => number === filled?.[index])) return { pdf, prints };
    if (prints === MAX_TOC_PRINTS) return { pdf, prints };
    await fill(page, found);
    filled = found;
    pdf = await printPdf(page, plan, deadline);
  }
}
