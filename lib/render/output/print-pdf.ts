import type { Page } from 'puppeteer-core';
import type { Deadline } from '../../deadline.js';
import { RenderError } from '../../errors.js';
import { PlanStepError } from '../errors.js';
import type { PdfPlan } from '../render-plan.js';

const HEADER_FOOTER_PROBLEM =
  'Chromium could not print with this header or footer: it may not load a stylesheet (<link rel="stylesheet"> or @import of a URL); put the CSS in a <style> element';

/** Prints the loaded page to a PDF as the plan asks. */
export async function printPdf(page: Page, plan: Pick<PdfPlan, 'print' | 'headerFooter'>, deadline: Deadline): Promise<Buffer> {
  try {
    const data = await page.pdf({ ...plan.print, timeout: Math.max(1, deadline.remaining()) });
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    const message = (error as Error).message;
    // Chromium checks ranges against the real page count, which validation cannot know.
    if (/page range/i.test(message)) {
      const problem = /exceeds/i.test(message) ? 'The document has fewer pages than the range asks for' : 'Not a valid page range';
      throw new PlanStepError('pageRanges', problem, { cause: error });
    }
    // A caller's header or footer that loads a stylesheet makes Chromium answer "Printing failed" at once: that
    // is the caller's input, a 400 on the field, not a 500 (which is refunded, so free to repeat). Printing again
    // without them to be sure is no option: after this failure the page hangs the next print until the deadline.
    const { header, footer } = plan.headerFooter;
    if ((header || footer) && /printing failed/i.test(message)) {
      throw new PlanStepError('headerFooter', HEADER_FOOTER_PROBLEM, { cause: error });
    }
    throw new RenderError('Printing the page to PDF failed', { cause: error });
  }
}
