import type { Deadline } from '../deadline.js';
import type { PageFacts } from '../finishing/pipeline/finishing-plan.js';
import { needsPageFacts } from '../finishing/pipeline/registry.js';
import type { PageSession } from './browser/browser-session.js';
import { captureScreenshot } from './output/capture-screenshot.js';
import { printPdf } from './output/print-pdf.js';
import { printWithToc } from './output/toc.js';
import { readBandFacts } from './page/band-facts.js';
import { loadPage } from './page/load-page.js';
import type { RenderPlan } from './render-plan.js';
import type { RenderLog, RenderResult } from './types.js';

/**
 * Renders one plan in a prepared session: the page layer loads the page, the
 * output layer prints or captures it. What the finishing needs from the page
 * (its title and language) is read here, as data: the finishing itself runs
 * after the session (renderer.ts), on bytes.
 */
export async function renderInSession(
  session: PageSession,
  plan: RenderPlan,
  deadline: Deadline,
  timings: Record<string, number>,
  log?: RenderLog,
): Promise<RenderResult> {
  if (plan.output === 'PDF') {
    await loadPage(session, plan.page, deadline, null, timings, log);
    // Before the print: it marks where the section headings are, for the printed PDF to tell their pages.
    const headings = plan.bands?.sectionHeadings ?? plan.sectionHeadings;
    const bandFacts = headings !== undefined ? await readBandFacts(session.page, headings) : undefined;
    // Asked alongside the print rather than before it: the title and language are the page's as it
    // was loaded either way, and the render saves a round trip through Node.
    const reading = needsPageFacts(plan.finishing) ? readPageFacts(session) : undefined;
    // A failed print must not leave the reading's rejection unhandled.
    reading?.catch(() => undefined);
    const started = Date.now();
    let body: Buffer;
    if (plan.toc) {
      const printed = await printWithToc(session.page, plan, deadline);
      body = printed.pdf;
      timings.tocPrints = printed.prints;
    } else body = await printPdf(session.page, plan, deadline);
    timings.capture = Date.now() - started;
    const pageFacts = await reading;
    return { body, contentType: 'application/pdf', output: 'PDF', timings, ...(pageFacts ? { pageFacts } : {}), ...(bandFacts ? { bandFacts } : {}) };
  }
  await loadPage(session, plan.page, deadline, plan.screen, timings, log);
  const started = Date.now();
  const { body, contentType, bodies } = await captureScreenshot(session, plan, deadline);
  timings.capture = Date.now() - started;
  return { body, contentType, output: 'IMAGE', timings, ...(bodies ? { bodies } : {}) };
}

/** Reads the page's title and language (the `lang` of its root element). */
async function readPageFacts(session: PageSession): Promise<PageFacts> {
  const facts = await session.page.evaluate(() => ({ title: document.title, language: document.documentElement.lang }));
  return { ...(facts.title ? { title: facts.title } : {}), ...(facts.language ? { language: facts.language } : {}) };
}
