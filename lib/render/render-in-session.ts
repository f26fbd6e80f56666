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
import type { PdfPlan } from './render-plan.js';
import { MissingGlyphsError, type MissingGlyphReport } from '../glyphs/glyph-report.js';
import { MAX_REPORTED_CODE_POINTS, scanBudget, scanMissingGlyphs } from './output/missing-glyphs.js';
import { probeMissingGlyphs, PROBE_TIME_MS } from './page/glyph-probe.js';

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
    const glyphsStarted = Date.now();
    const missingGlyphs = plan.missingGlyphs ? await printedGlyphReport(session, plan, body, deadline) : undefined;
    if (plan.missingGlyphs) timings.glyphs = Date.now() - glyphsStarted;
    return {
      body,
      contentType: 'application/pdf',
      output: 'PDF',
      timings,
      ...(pageFacts ? { pageFacts } : {}),
      ...(bandFacts ? { bandFacts } : {}),
      ...(missingGlyphs ? { missingGlyphs } : {}),
    };
  }
  await loadPage(session, plan.page, deadline, plan.screen, timings, log);
  const started = Date.now();
  const { body, contentType, bodies } = await captureScreenshot(session, plan, deadline);
  timings.capture = Date.now() - started;
  let missingGlyphs: MissingGlyphReport | undefined;
  if (plan.missingGlyphs) {
    const probeStarted = Date.now();
    const probe = await probeMissingGlyphs(session.page, { timeMs: probeTime(deadline) });
    timings.glyphs = Date.now() - probeStarted;
    if (probe.count > 0 || probe.partial) missingGlyphs = { count: probe.count, codePoints: probe.codePoints.slice(0, MAX_REPORTED_CODE_POINTS), ...(probe.partial ? { partial: true as const } : {}) };
    if (plan.missingGlyphs === 'fail' && probe.count > 0 && missingGlyphs) throw new MissingGlyphsError(missingGlyphs, 'screenshot.missingGlyphs');
  }
  return { body, contentType, output: 'IMAGE', timings, ...(bodies ? { bodies } : {}), ...(missingGlyphs ? { missingGlyphs } : {}) };
}

/** Time the probe or the scan may take: a slice of what is left, so a check never costs the render its answer. */
const probeTime = (deadline: Deadline) => Math.max(50, Math.min(PROBE_TIME_MS, deadline.remaining() / 4));

/**
 * What the printed body draws with no glyph: its own scan (output/missing-glyphs.ts), and when the file
 * does not name every such character (Skia keeps the first per font to itself) the page's probe names them,
 * Chromium's header and footer templates included. The document renderer scans again once the finishing
 * has laid bands and stamps on it; this report is what it names characters with.
 */
async function printedGlyphReport(session: PageSession, plan: PdfPlan, body: Buffer, deadline: Deadline): Promise<MissingGlyphReport | undefined> {
  const scan = scanMissingGlyphs(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), scanBudget(deadline));
  const codePoints = [...scan.codePoints];
  let partial = scan.partial;
  if (scan.unnamed > 0) {
    const templates = plan.print.displayHeaderFooter ? [plan.print.headerTemplate, plan.print.footerTemplate].filter((html): html is string => typeof html === 'string') : [];
    const probe = await probeMissingGlyphs(session.page, { extraHtml: templates, timeMs: probeTime(deadline) });
    for (const point of probe.codePoints) if (!codePoints.includes(point) && codePoints.length < MAX_REPORTED_CODE_POINTS) codePoints.push(point);
    partial ||= probe.partial;
  }
  if (scan.count === 0 && !partial) return undefined;
  return { count: scan.count, codePoints, ...(scan.firstPage ? { firstPage: scan.firstPage } : {}), ...(partial ? { partial: true as const } : {}) };
}

/** Reads the page's title and language (the `lang` of its root element). */
async function readPageFacts(session: PageSession): Promise<PageFacts> {
  const facts = await session.page.evaluate(() => ({ title: document.title, language: document.documentElement.lang }));
  return { ...(facts.title ? { title: facts.title } : {}), ...(facts.language ? { language: facts.language } : {}) };
}
