import type { PDFDocument } from '@cantoo/pdf-lib';
import { RenderTimeoutError, ServiceError, ValidationError } from '../errors.js';
import { orderPages, selectPages } from '../validation/page-ranges.js';
import { loadTemplateRenderer } from '../templates/template-engine.js';
import { bandForms, drawBandForm } from './band-forms.js';
import { bandDocument, bandMark, type BandLayout, type BandVariables } from './band-page.js';
import type { AssemblyPart } from './assemble.js';
import type { BandFacts, BandPlan, BandSource, BandsPlan } from './bands-plan.js';
import type { DocumentEdit } from './finish-pdf.js';
import { destinationPages } from './named-destinations.js';
import { openPdf } from './pdf-document.js';
import { isolatePageContent } from './watermark.js';

/** Prints a band document (band-page.ts) to a PDF of band-sized pages, within the render's time left. */
export type BandPrinter = (html: string, size: { width: number; height: number }) => Promise<Uint8Array>;

/**
 * The `bands` step: prints the running header and footer, each once for the
 * whole document (one band page per body page, with that page's number,
 * total, title, date, URL and section), and lays each band page on its body
 * page as a form XObject marked as an artifact (decoration, not content:
 * PDF/UA). The header sits in the top margin, the footer in the bottom one.
 */
export function bandsStep(plan: BandsPlan, facts: BandFacts, print: BandPrinter, now: () => Date): DocumentEdit {
  return { edit: (document) => layBands(document, plan, facts, print, now) };
}

async function layBands(document: PDFDocument, plan: BandsPlan, facts: BandFacts, print: BandPrinter, now: () => Date): Promise<void> {
  const pages = document.getPages();
  const [first] = pages;
  if (!first) return;
  const { width, height } = first.getSize();
  const bands = [plan.header, plan.footer].filter((band): band is BandPlan => band != null);
  for (const band of bands) {
    if (band.height >= height) throw new ValidationError({ [`${band.field}.height`]: `Must be less than the page's height (${Math.round(height)}pt)` });
  }
  if (plan.header && plan.footer && plan.header.height + plan.footer.height >= height) {
    const message = `The header and footer together must be less than the page's height (${Math.round(height)}pt)`;
    throw new ValidationError({ 'pdf.header.height': message, 'pdf.footer.height': message });
  }
  const variables = pageVariables(document, facts, now(), plan.timeZone);
  await Promise.all(
    bands.map(async (band) => {
      const layout = await bandLayout(band, variables, plan.templateData);
      if (layout.pages.every((page) => page === null)) return;
      const size = { width, height: band.height };
      const printed = await printBand(band, bandDocument(layout, size), size, print);
      const bandPdf = await openPdf(printed, 'bands');
      const carrying = layout.pages.flatMap((page, index) => (page ? [index] : []));
      // Each band page carries its mark: proof that the layout ran and that band page i is body page i.
      const marks = destinationPages(bandPdf);
      if (bandPdf.getPageCount() !== pages.length || carrying.some((index) => marks.get(bandMark(index)) !== index)) {
        throw new ValidationError({ [band.field]: 'The band did not lay out one page per body page: its page did not finish loading (a script that fails or navigates away)' });
      }
      const forms = await bandForms(document, bandPdf, carrying);
      carrying.forEach((index, at) => {
        const page = pages[index];
        const form = forms[at];
        if (!page || !form) return;
        const box = page.getMediaBox();
        const y = band === plan.header ? box.y + box.height - band.height : box.y;
        isolatePageContent(page);
        drawBandForm(page, form, { x: box.x, y, width: box.width, height: band.height });
      });
    }),
  );
}

/** The band printed; what fails because of the band's own HTML is a 400 naming it, a timeout stays a timeout. */
async function printBand(band: BandPlan, html: string, size: { width: number; height: number }, print: BandPrinter): Promise<Uint8Array> {
  try {
    return await print(html, size);
  } catch (error) {
    if (error instanceof RenderTimeoutError || !(error instanceof ServiceError) || error.statusCode >= 500) throw error;
    throw new ValidationError({ [band.field]: `The band could not be printed: ${error.message}` }, { cause: error });
  }
}

/** Each body page's variables: number, total, the page's title, date and URL, and the last section heading starting on or before it. */
function pageVariables(document: PDFDocument, facts: BandFacts, now: Date, timeZone: string | undefined): BandVariables[] {
  const starts = destinationPages(document);
  const located = facts.headings.flatMap((heading) => {
    const page = 'page' in heading ? heading.page : starts.get(heading.id);
    return page === undefined ? [] : [{ page, text: heading.text }];
  });
  const totalPages = document.getPageCount();
  const date = now.toLocaleDateString('en-US', { timeZone: timeZone ?? 'UTC' });
  return Array.from({ length: totalPages }, (_, index) => {
    let section = '';
    for (const heading of located) if (heading.page <= index) section = heading.text;
    return { pageNumber: index + 1, totalPages, title: facts.title, date, url: facts.url, section };
  });
}

/**
 * Which source each page shows: the first-page or even-page variant where given, none off `pages`; templates
 * rendered per page with the render's `templateData` and the page's variables (which win on a name both have).
 */
async function bandLayout(band: BandPlan, variables: BandVariables[], templateData: Record<string, unknown> | undefined): Promise<BandLayout> {
  const { pages: carrying } = selectPages(band.pages, variables.length);
  const carries = new Set(carrying);
  const sources: string[] = [];
  const indexOfHtml = new Map<string, number>();
  const needsTemplates = [band.main, band.firstPage, band.evenPages].some((source) => source?.kind === 'template');
  const render = needsTemplates ? await loadTemplateRenderer() : undefined;
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
    if (index === 0 && band.firstPage) return { source: sourceOf(band.firstPage, page, `${band.field}.firstPage`), variables: page };
    if (page.pageNumber % 2 === 0 && band.evenPages) return { source: sourceOf(band.evenPages, page, `${band.field}.evenPages`), variables: page };
    return { source: sourceOf(band.main, page, band.field), variables: page };
  });
  return { sources, pages };
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
  order?: string,
): Promise<BandFacts> {
  const headings: Array<{ page: number; text: string }> = [];
  let offset = 0;
  for (const [index, part] of parts.entries()) {
    const source = await openPdf(part.pdf, 'bands');
    headings.push({ page: offset, text: part.title ?? '' });
    const starts = destinationPages(source);
    for (const heading of partFacts[index]?.headings ?? []) {
      const page = 'page' in heading ? heading.page : starts.get(heading.id);
      if (page !== undefined) headings.push({ page: offset + page, text: heading.text });
    }
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
