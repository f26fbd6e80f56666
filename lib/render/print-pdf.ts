import type { Page, PDFOptions } from 'puppeteer-core';
import { RenderError, RenderTimeoutError, ValidationError } from '../errors.js';
import type { PdfOptionsOutput } from '../schemas/render-options.js';
import type { Deadline } from './deadline.js';
import { step } from '../step-bound.js';
import { toPdfOptions } from './pdf-options.js';

const HEADER_FOOTER_PROBLEM =
  'Chromium could not print with this header or footer: it may not load a stylesheet (<link rel="stylesheet"> or @import of a URL); put the CSS in a <style> element';

/** The header and footer fields the caller filled in, as they are named in the request. */
function headerFooterFields(pdf: PdfOptionsOutput | null | undefined, options: PDFOptions): string[] {
  if (!options.displayHeaderFooter) return [];
  const fields: string[] = [];
  if (pdf?.headerHtml && options.headerTemplate !== undefined) fields.push('pdf.headerHtml');
  if (pdf?.footerHtml && options.footerTemplate !== undefined) fields.push('pdf.footerHtml');
  return fields;
}

/** Prints the loaded page to a PDF as the `pdf` options ask. */
export async function printPdf(page: Page, pdf: PdfOptionsOutput | null | undefined, deadline: Deadline): Promise<Buffer> {
  const options = toPdfOptions(pdf);
  const printing = page.pdf({ ...options, timeout: Math.max(1, deadline.remaining()) });
  try {
    // Printing is bounded by what is left of the budget rather than the capture bound: a long document
    // prints for as long as it needs, and a print that hangs still fails naming its step.
    const data = await step(deadline, 'capture', printing, { boundMs: deadline.remaining() });
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    if (error instanceof RenderTimeoutError) throw error;
    const message = (error as Error).message;
    // Chromium checks ranges against the real page count, which validation cannot know.
    if (/page range/i.test(message)) {
      const problem = /exceeds/i.test(message) ? 'The document has fewer pages than the range asks for' : 'Not a valid page range';
      throw new ValidationError({ 'pdf.pageRanges': problem }, { cause: error });
    }
    // A caller's header or footer that loads a stylesheet makes Chromium answer "Printing failed" at once: that
    // is the caller's input, a 400 on the field, not a 500 (which is refunded, so free to repeat). Printing again
    // without them to be sure is no option: after this failure the page hangs the next print until the deadline.
    const fields = headerFooterFields(pdf, options);
    if (fields.length > 0 && /printing failed/i.test(message)) {
      throw new ValidationError(Object.fromEntries(fields.map((field) => [field, HEADER_FOOTER_PROBLEM])), { cause: error });
    }
    throw new RenderError('Printing the page to PDF failed', { cause: error });
  }
}
