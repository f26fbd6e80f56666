import type { Deadline } from './deadline.js';
import { captureScreenshot, screenFor } from './capture-screenshot.js';
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
    await loadPage(session, input.page, source, deadline, null, timings);
    const started = Date.now();
    const body = await printPdf(session.page, input.pdf, deadline);
    timings.capture = Date.now() - started;
    return { body, contentType: 'application/pdf', output: 'PDF', timings };
  }
  const screen = screenFor(input.screenshot);
  await loadPage(session, input.page, source, deadline, screen, timings);
  const started = Date.now();
  const { body, contentType } = await captureScreenshot(session, input.screenshot, screen, deadline);
  timings.capture = Date.now() - started;
  return { body, contentType, output: 'IMAGE', timings };
}
