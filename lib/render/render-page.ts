import type { Deadline } from './deadline.js';
import { finishPdf } from '../finishing/finish-pdf.js';
import { captureScreenshot, screenFor } from './capture-screenshot.js';
import { finishingSteps, readPageFacts, resolveInvoice, wantsFinishing } from './finishing-plan.js';
import { loadPage } from './load-page.js';
import { resolvePageSource } from './page-source.js';
import type { PageSession } from './page-session.js';
import { printPdf } from './print-pdf.js';
import type { RenderInput, RenderResult } from './types.js';

/** Renders one input in a prepared session: load the page, then print or capture it. */
export async function renderInSession(
  session: PageSession,
  input: RenderInput,
  deadline: Deadline,
  timings: Record<string, number>,
): Promise<RenderResult> {
  const source = resolvePageSource(input.page);
  if (input.output === 'PDF') {
    // The invoice XML is checked before the page loads: a bad one is a 400 with nothing rendered.
    const invoice = resolveInvoice(input.pdf, input.page);
    await loadPage(session, input.page, source, deadline, null, timings);
    const facts = wantsFinishing(input.pdf) ? await readPageFacts(session.page) : {};
    const started = Date.now();
    const printed = await printPdf(session.page, input.pdf, deadline);
    timings.capture = Date.now() - started;
    if (!wantsFinishing(input.pdf)) return { body: printed, contentType: 'application/pdf', output: 'PDF', timings };
    const finishing = Date.now();
    const finished = await finishPdf(printed, finishingSteps(input.pdf, facts, invoice));
    timings.finish = Date.now() - finishing;
    return { body: Buffer.from(finished.buffer, finished.byteOffset, finished.byteLength), contentType: 'application/pdf', output: 'PDF', timings };
  }
  const screen = screenFor(input.screenshot);
  await loadPage(session, input.page, source, deadline, screen, timings);
  const started = Date.now();
  const { body, contentType } = await captureScreenshot(session, input.screenshot, screen, deadline);
  timings.capture = Date.now() - started;
  return { body, contentType, output: 'IMAGE', timings };
}
