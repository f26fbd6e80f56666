/**
 * Handlebars for the plan builder, loaded by the first request that has a
 * template: the library is about 25 ms of a renderer's cold start at its CPU
 * share (compiled and evaluated), and most renders have no template.
 */
import type { DocumentInput } from '../schemas/merge-requests.js';
import type { PdfOptionsOutput } from '../schemas/render-options.js';

/** Renders a caller's base64 Handlebars template with its data (see `renderHandlebars`). */
export type TemplateRenderer = (templateBase64: string, data: unknown, options?: { field?: string; xml?: boolean }) => string;

let renderer: Promise<TemplateRenderer> | undefined;

/** The template renderer, loaded once. */
export function loadTemplateRenderer(): Promise<TemplateRenderer> {
  return (renderer ??= import('./handlebars.js').then(({ renderHandlebars }) => renderHandlebars));
}

/** A template's renderer, which the planner's caller must have loaded (`templatesFor`): planning a template without it is a bug. */
export function needTemplates(templates: TemplateRenderer | undefined): TemplateRenderer {
  if (!templates) throw new Error('A template was planned without the template renderer (see templatesFor)');
  return templates;
}

const invoiceTemplate = (pdf: Pick<PdfOptionsOutput, 'eInvoice'> | null | undefined) => pdf?.eInvoice?.xmlTemplate != null;
const bandTemplate = (pdf: Pick<PdfOptionsOutput, 'header' | 'footer'> | null | undefined) =>
  [pdf?.header, pdf?.footer].some((band) => band != null && [band, band.firstPage, band.evenPages].some((source) => source?.htmlTemplate != null));

/**
 * The template renderer when `input` has a template anywhere (a page's
 * `htmlTemplate`, an invoice's `xmlTemplate`, a header's or footer's `htmlTemplate`, in a merge's parts too), else
 * undefined, without loading it.
 */
export function templatesFor(input: DocumentInput): Promise<TemplateRenderer | undefined> {
  // A process request has no page, and its invoice is given as XML (the schema refuses xmlTemplate).
  if ('process' in input) return Promise.resolve(undefined);
  const renders = 'parts' in input ? input.parts.flatMap((part) => ('page' in part ? [{ page: part.page, pdf: part.pdf }] : [])) : [{ page: input.page, pdf: 'pdf' in input ? input.pdf : undefined }];
  const used = renders.some(({ page, pdf }) => page.htmlTemplate != null || invoiceTemplate(pdf) || bandTemplate(pdf)) || ('parts' in input && (invoiceTemplate(input.pdf) || bandTemplate(input.pdf)));
  return used ? loadTemplateRenderer() : Promise.resolve(undefined);
}
