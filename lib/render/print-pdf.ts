import type { Page } from 'puppeteer-core';
import { RenderError, ValidationError } from '../errors.js';
import type { PdfOptionsOutput } from '../schemas/render-options.js';
import type { Deadline } from './deadline.js';
import { toPdfOptions } from './pdf-options.js';

/** Prints the loaded page to a PDF as the `pdf` options ask. */
export async function printPdf(page: Page, pdf: PdfOptionsOutput | null | undefined, deadline: Deadline): Promise<Buffer> {
  const options = toPdfOptions(pdf);
  try {
    const data = await page.pdf({ ...options, timeout: Math.max(1, deadline.remaining()) });
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    const message = (error as Error).message;
    // Chromium checks ranges against the real page count, which validation cannot know.
    if (/page range/i.test(message)) {
      const problem = /exceeds/i.test(message) ? 'The document has fewer pages than the range asks for' : 'Not a valid page range';
      throw new ValidationError({ 'pdf.pageRanges': problem }, { cause: error });
    }
    throw new RenderError('Printing the page to PDF failed', { cause: error });
  }
}
