import type { PDFDocument, PDFPage } from '@cantoo/pdf-lib';
import { OptionError } from '../../../pdf/errors.js';
import { orderPages, selectPages } from '../../../validation/page-ranges.js';
import { bandForms, drawBandForm } from './band-forms.js';
import { bandDocument, bandMark, type BandLayout, type BandVariables } from './band-page.js';
import type { AssemblyPart } from '../assemble/assemble.js';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import type { BandFacts, BandPlan, BandSource, BandsPlan, BandTemplateRenderer } from './bands-plan.js';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import { malformedInput } from '../../pipeline/malformed-input.js';
import { BandPrintRefusedError } from '../../pipeline/errors.js';
import { destinationPages } from '../../objects/named-destinations.js';
import { cropBox, pageRotation, shownSize } from '../../../pdf/page-box.js';
import { openPdf } from '../../pipeline/pdf-document.js';
import { isolatePageContent } from '../stamp/watermark.js';

/**
 * Prints a band document (band-page.ts) to a PDF of band-sized pages, within the render's time left. What the
 * band's own HTML made fail is a `BandPrintRefusedError` (the step names the band with its reason); anything
 * else the printer throws (a timeout, a busy or broken browser) passes through the step as it is.
 */
export type BandPrinter = (html: string, size: { width: number; height: number }) => Promise<Uint8Array>;

/** Most section headings a document's bands read, and the characters of each kept (a band shows one line of it). */
export const MAX_HEADINGS = 10_000;
export const MAX_HEADING_CHARS = 500;

/**
 * The `bands` step: prints the running header and footer, each once for the
 * whole document (one band page per body page, as wide as that page is shown,
 * with that page's number, total, title, date, URL and section), and lays
 * each band page on its body page as a form XObject marked as an artifact
 * (decoration, not content: PDF/UA), on the page as a reader shows it (its
 * crop box, turned by its /Rotate). The header sits in the top margin, the
 * footer in the bottom one. `facts` may be read within the step (a merge's,
 * from its parts: within the deadline and the budget).
 */
export function bandsStep(
  plan: BandsPlan,
  facts: BandFacts | ((budget: DocumentBudget) => Promise<BandFacts>),
  print: BandPrinter,
  now: () => Date,
  /** The template renderer, loaded when a band is a template (Handlebars is no part of a render without one). */
  templates: () => Promise<BandTemplateRenderer>,
): DocumentEdit {
  return {
    edit: async (document, budget) => {
      const read = typeof facts === 'function' ? await facts(budget) : facts;
      try {
        await layBands(document, plan, read, { print, now, templates }, budget);
      } catch (error) {
        // What pdf-lib throws on a caller's malformed page (a merge part's) is the document's problem, not the service's.
        throw malformedInput(error, 'The bands could not be laid');
      }
    },
  };
}

/** Where a band goes on a page as it is shown: its lower-left corner in default user space, its width, and its turn. */
export function bandPlace(page: PDFPage, height: number, top: boolean): { x: number; y: number; width: number; height: number; rotate: number } {
  const { x, y, width: w, height: h } = cropBox(page);
  const rotate = pageRotation(page);
  const shown = shownSize(page);
  // The band's lower-left corner in the shown page's coordinates (u right, v up), then in user space: the
  // reader turns the page clockwise by /Rotate, so the shown page's axes are user space's turned back.
  const v = top ? shown.height - height : 0;
  const corner =
    rotate === 0 ? { x: x, y: y + v } : rotate === 90 ? { x: x + w - v, y } : rotate === 180 ? { x: x + w, y: y + h - v } : { x: x + v, y: y + h };
  return { ...corner, width: shown.width, height, rotate };
}

async function layBands(
  document: PDFDocument,
  plan: BandsPlan,
  facts: BandFacts,
  { print, now, templates }: { print: BandPrinter; now: () => Date; templates: () => Promise<BandTemplateRenderer> },
  budget: DocumentBudget,
): Promise<void> {
  const pages = document.getPages();
  if (pages.length === 0) return;
  const sizes = pages.map((page) => {
    budget.check();
    return shownSize(page);
  });
  // The shortest page bounds the bands: each must leave some of every page's body.
  const height = Math.min(...sizes.map((size) => size.height));
  const bands = [plan.header, plan.footer].filter((band): band is BandPlan => band != null);
  for (const band of bands) {
    if (band.height >= height) throw new OptionError({ [`${band.name}.height`]: `Must be less than the page's height (${Math.round(height)}pt)` });
  }
  if (plan.header && plan.footer && plan.header.height + plan.footer.height >= height) {
    const message = `The header and footer together must be less than the page's height (${Math.round(height)}pt)`;
    throw new OptionError({ 'header.height': message, 'footer.height': message });
  }
  const variables = pageVariables(document, facts, now(), plan.timeZone, budget);
  const widths = sizes.map((size) => size.width);
  await Promise.all(
    bands.map(async (band) => {
      const layout = await bandLayout(band, variables, widths, plan.templateData, templates);
      if (layout.pages.every((page) => page === null)) return;
      const size = { width: widths[0] as number, height: band.height };
      const printed = await printBand(band, bandDocument(layout, band.height), size, print);
      const bandPdf = await openPdf(printed, 'bands');
      const carrying = layout.pages.flatMap((page, index) => (page ? [index] : []));
      // Each band page carries its mark: proof that the layout ran and that band page i is body page i.
      const marks = destinationPages(bandPdf);
      if (bandPdf.getPageCount() !== pages.length || carrying.some((index) => marks.get(bandMark(index)) !== index)) {
        throw new OptionError({ [band.name]: 'The band did not lay out one page per body page: its page did not finish loading (a script that fails or navigates away)' });
      }
      const forms = await bandForms(document, bandPdf, carrying);
      carrying.forEach((index, at) => {
        budget.check();
        const page = pages[index];
        const form = forms[at];
        if (!page || !form) return;
        isolatePageContent(page);
        drawBandForm(page, form, bandPlace(page, band.height, band === plan.header));
      });
    }),
  );
}

/**
 * The band printed; what the printer refused because of the band's own HTML names the band's option (a 400 at
 * the edge), anything else (a timeout stays a timeout) passes as it is.
 */
async function printBand(band: BandPlan, html: string, size: { width: number; height: number }, print: BandPrinter): Promise<Uint8Array> {
  try {
    return await print(html, size);
  } catch (error) {
    if (!(error instanceof BandPrintRefusedError)) throw error;
    throw new OptionError({ [band.name]: `The band could not be printed: ${error.reason}` }, { cause: error });
  }
}

/**
 * Each body page's variables: number, total, the page's title, date and URL, and the last section heading
 * starting on or before it. One pass: the headings (at most MAX_HEADINGS, each counted against the budget's
 * `headings`, their texts cut to MAX_HEADING_CHARS) sorted by page, then followed page by page.
 */
function pageVariables(document: PDFDocument, facts: BandFacts, now: Date, timeZone: string | undefined, budget: DocumentBudget): BandVariables[] {
  const starts = destinationPages(document);
  const located = locatedHeadings(facts.headings, (id) => starts.get(id), budget);
  const totalPages = document.getPageCount();
  const date = now.toLocaleDateString('en-US', { timeZone: timeZone ?? 'UTC' });
  return sectionsByPage(located, totalPages, budget).map((section, index) => ({ pageNumber: index + 1, totalPages, title: facts.title, date, url: facts.url, section }));
}

/** The headings with their page (0-based), the first MAX_HEADINGS of them, texts cut; each counted against the budget. */
function locatedHeadings(headings: BandFacts['headings'], pageOf: (id: string) => number | undefined, budget: DocumentBudget): Array<{ page: number; text: string }> {
  const located: Array<{ page: number; text: string }> = [];
  for (const heading of headings.slice(0, MAX_HEADINGS)) {
    budget.spend('headings', 1);
    const page = 'page' in heading ? heading.page : pageOf(heading.id);
    if (page !== undefined) located.push({ page, text: heading.text.slice(0, MAX_HEADING_CHARS) });
  }
  return located;
}

/**
 * Each page's section: the text of the last heading (in the headings' order) on or before it, '' before the
 * first. The headings sorted by page once (stable: their order kept within a page), then a pointer moves
 * along them page by page: pages + headings steps, not pages × headings.
 */
export function sectionsByPage(headings: Array<{ page: number; text: string }>, pageCount: number, budget: DocumentBudget): string[] {
  const sorted = headings.map((heading, order) => ({ ...heading, order })).sort((a, b) => a.page - b.page || a.order - b.order);
  const sections: string[] = [];
  let section = '';
  let next = 0;
  // Of the headings starting on or before the page, the one listed last: its place in the list.
  let latest = -1;
  for (let page = 0; page < pageCount; page += 1) {
    budget.check();
    while (next < sorted.length && (sorted[next] as (typeof sorted)[number]).page <= page) {
      const heading = sorted[next] as (typeof sorted)[number];
      if (heading.order > latest) {
        latest = heading.order;
        section = heading.text;
      }
      next += 1;
    }
    sections.push(section);
  }
  return sections;
}

/**
 * Which source each page shows: the first-page or even-page variant where given, none off `pages`; templates
 * rendered per page with the render's `templateData` and the page's variables (which win on a name both have).
 */
async function bandLayout(
  band: BandPlan,
  variables: BandVariables[],
  widths: number[],
  templateData: Record<string, unknown> | undefined,
  templates: () => Promise<BandTemplateRenderer>,
): Promise<BandLayout> {
  const { pages: carrying } = selectPages(band.pages, variables.length);
  const carries = new Set(carrying);
  const sources: string[] = [];
  const indexOfHtml = new Map<string, number>();
  const needsTemplates = [band.main, band.firstPage, band.evenPages].some((source) => source?.kind === 'template');
  const render = needsTemplates ? await templates() : undefined;
  const sourceOf = (source: BandSource, page: BandVariables, field: string): number => {
    if (source.kind === 'html') {
      const known = indexOfHtml.get(source.html);
      if (known !== undefined) return known;
      indexOfHtml.set(source.html, sources.length);
    } else if (!render) throw new Error('A band template without the template renderer');
    sources.push(source.kind === 'html' ? source.html : (render as NonNullable<typeof render>)(source.template, { ...templateData, ...page }, { field: `${field}.htmlTemplate` }));
    return sources.length - 1;
  };
  const pages = variables.map((page, index) => {
    if (!carries.has(index)) return null;
    if (index === 0 && band.firstPage) return { source: sourceOf(band.firstPage, page, `${band.name}.firstPage`), variables: page };
    if (page.pageNumber % 2 === 0 && band.evenPages) return { source: sourceOf(band.evenPages, page, `${band.name}.evenPages`), variables: page };
    return { source: sourceOf(band.main, page, band.name), variables: page };
  });
  return { sources, pages, widths };
}

/**
 * The facts of a merge's bands, over the merged pages: each part's headings located on its own pages (its
 * named destinations, which the assembly does not carry over) and moved by the pages before it. A part
 * begins with its `title` as the section (empty without one), so an existing PDF's pages, whose headings
 * are unknown, show their part's title; a printed part's headings follow. `title` is the merged file's
 * (`metadata.title`, else the first printed part's page title), `url` the first printed part's.
 */
export async function mergedBandFacts(
  parts: AssemblyPart[],
  partFacts: Array<BandFacts | undefined>,
  title: string | undefined,
  order: string | undefined,
  budget: DocumentBudget,
): Promise<BandFacts> {
  const headings: Array<{ page: number; text: string }> = [];
  let offset = 0;
  for (const [index, part] of parts.entries()) {
    budget.check();
    const source = await openPdf(part.pdf, 'bands');
    headings.push({ page: offset, text: part.title ?? '' });
    const starts = destinationPages(source);
    for (const heading of locatedHeadings(partFacts[index]?.headings ?? [], (id) => starts.get(id), budget)) headings.push({ page: offset + heading.page, text: heading.text });
    offset += source.getPageCount();
  }
  const first = partFacts.find((facts) => facts !== undefined);
  return { title: title ?? first?.title ?? '', url: first?.url ?? '', headings: order ? reordered(headings, order, offset) : headings };
}

/**
 * The headings moved with their pages when `pdf.pages` chose and ordered the merged pages (the pages stage
 * runs before the bands): a heading on a dropped page is gone, the others are sorted by where they now are.
 */
function reordered(headings: Array<{ page: number; text: string }>, order: string, pageCount: number): Array<{ page: number; text: string }> {
  const moved = new Map(orderPages(order, pageCount).pages.map((page, index) => [page, index]));
  return headings
    .flatMap((heading) => {
      const page = moved.get(heading.page);
      return page === undefined ? [] : [{ page, text: heading.text }];
    })
    .sort((a, b) => a.page - b.page);
}
