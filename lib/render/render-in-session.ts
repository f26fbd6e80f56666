import type { Deadline } from '../deadline.js';
import { finishingSteps } from '../finishing/finishing-plan.js';
import { finishPdf } from '../finishing/finish-pdf.js';
import type { PageSession } from './browser/browser-session.js';
import { captureScreenshot } from './output/capture-screenshot.js';
import { printPdf } from './output/print-pdf.js';
import { loadPage } from './page/load-page.js';
import type { RenderPlan } from './render-plan.js';
import type { RenderLog, RenderResult } from './types.js';

/** Renders one plan in a prepared session: the page layer loads the page, the output layer prints or captures it, a PDF is finished. */
export async function renderInSession(
  session: PageSession,
  plan: RenderPlan,
  deadline: Deadline,
  timings: Record<string, number>,
  log?: RenderLog,
): Promise<RenderResult> {
  if (plan.output === 'PDF') {
    await loadPage(session, plan.page, deadline, null, timings, log);
    const started = Date.now();
    const printed = await printPdf(session.page, plan, deadline);
    const finished = await finishPdf(printed, finishingSteps(plan.finishing));
    timings.capture = Date.now() - started;
    return { body: Buffer.isBuffer(finished) ? finished : Buffer.from(finished), contentType: 'application/pdf', output: 'PDF', timings };
  }
  await loadPage(session, plan.page, deadline, plan.screen, timings, log);
  const started = Date.now();
  const { body, contentType } = await captureScreenshot(session, plan, deadline);
  timings.capture = Date.now() - started;
  return { body, contentType, output: 'IMAGE', timings };
}
