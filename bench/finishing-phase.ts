/**
 * The finishing phase alone, in process (`tsx bench/finishing-phase.ts
 * <printed.pdf> [runs]`): the same printed PDF finished as PDF/A-3b, as an
 * e-invoice (PDF/A-3b with the invoice XML attached), protected and
 * watermarked by the service's own pipeline, `runs` times each after a
 * warm-up, in rotating order; medians in ms. Without the file, Chromium
 * prints the bench's one-page invoice into it first (and the watermark's
 * text into `<printed.pdf>.stamp.pdf`, as the service prints it once per
 * process), so that runs on different commits finish the very same bytes.
 */
import { unboundedBudget } from '../lib/budget/document-budget.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { invoiceXml } from '../test/conformance/invoices.js';
import { finishPdf } from '../lib/finishing/pipeline/finish-pdf.js';
import { finishingSteps } from '../lib/finishing/pipeline/registry.js';
import { watermarkTextPage } from '../lib/finishing/steps/stamp/watermark-text.js';
import { createEgressPolicy, startEgressProxy } from '../lib/net/index.js';
import { buildRenderPlan } from '../lib/plan/build-plan.js';
import { pdfFinishingPlan } from '../lib/plan/pdf-finishing-plan.js';
import { createRenderer } from '../lib/render/index.js';
import { SMALL_HTML } from './pages.js';
import { summarize } from './stats.js';

const [file, runsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/finishing-phase.ts <printed.pdf> [runs]');
const runs = Number(runsArg ?? 30);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const stampFile = `${file}.stamp.pdf`;
const STAMP = { text: 'PAID', fontSize: 72, color: '#cc0000' };
if (!existsSync(file) || !existsSync(stampFile)) {
  const egress = startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: [] }) });
  const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 60_000, egress: () => egress });
  const printed = await renderer.render(buildRenderPlan({ output: 'PDF', page: { html: b64(SMALL_HTML) } }));
  writeFileSync(file, printed.body);
  const stamp = await renderer.render(
    buildRenderPlan({ output: 'PDF', page: { html: b64(watermarkTextPage(STAMP)), waitUntil: 'load', adblock: false }, pdf: { preferCSSPageSize: true, omitBackground: true } }),
  );
  writeFileSync(stampFile, stamp.body);
  await renderer.close();
  await (await egress).close();
}
const pdf = new Uint8Array(readFileSync(file));
const stampPdf = new Uint8Array(readFileSync(stampFile));

const variants = {
  'PDF/A-3b': pdfFinishingPlan({ pdfa: 'PDF/A-3b' }),
  'e-invoice (EN 16931)': pdfFinishingPlan({ eInvoice: { standard: 'Factur-X', xml: b64(invoiceXml('EN 16931')) } }),
  protected: pdfFinishingPlan({ protection: { userPassword: 'bench-user', ownerPassword: 'bench-owner', permissions: { copy: false } } }),
  watermarked: pdfFinishingPlan({ watermark: { text: STAMP.text, fontSize: STAMP.fontSize, color: STAMP.color, rotation: 45, opacity: 0.3 } }),
};
// The text's drawing as the service keeps it after its first print (watermark-text.ts).
const drawnText = async () => stampPdf;
const times = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
const warmup = 5;
for (let i = 0; i < warmup + runs; i += 1) {
  const entries = Object.entries(variants);
  const order = entries.map((_, k) => entries[(k + i) % entries.length] as (typeof entries)[number]);
  for (const [name, plan] of order) {
    const started = performance.now();
    await finishPdf(pdf, await finishingSteps(plan, { now: new Date(), facts: { title: 'Invoice 2024-0042', language: 'en' }, drawText: drawnText }), unboundedBudget());
    if (i >= warmup) times.get(name)?.push(performance.now() - started);
  }
}
console.log(`finishing phase, ${pdf.length} bytes printed, ${runs} runs each (ms):`);
for (const [name, ms] of times) {
  const s = summarize(ms.map((value) => Math.round(value * 100) / 100));
  console.log(`  ${name.padEnd(22)} median ${s.median}  p90 ${s.p90}  min ${s.min}  max ${s.max}`);
}
