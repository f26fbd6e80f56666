/**
 * The bands' finishing alone, in process (`ROUNDS=60 tsx bench/bands-finishing.ts`): the tests'
 * 30-page report with a header and a footer is printed once by Chromium (the body and both band
 * documents recorded), then the `bands` step and its save run ROUNDS times on those bytes, the band
 * printer replaying the recorded bands: the PDF library's share of the bands' cost (CPU ms per
 * render) and the file it makes, apart from Chromium's prints and the shared machine's load.
 */
import { unboundedBudget } from '../lib/budget/document-budget.js';
import { warmRenderer } from '../test/helpers/local-egress.js';
import { reportHtml } from '../test/helpers/report.js';
import { withFinishing } from '../lib/document-renderer.js';
import { buildRenderPlan } from '../lib/plan/build-plan.js';
import { loadTemplateRenderer } from '../lib/templates/template-engine.js';
import { finishPdf } from '../lib/finishing/pipeline/finish-pdf.js';
import { bandsStep } from '../lib/finishing/steps/bands/bands.js';
import type { Renderer, RenderResult } from '../lib/render/types.js';
import type { PdfPlan } from '../lib/render/render-plan.js';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const base = await warmRenderer();
const recorded: Array<{ plan: PdfPlan; result: RenderResult }> = [];
const recording: Renderer = {
  ...base,
  render: async (plan, options) => {
    const result = await base.render(plan, options);
    recorded.push({ plan: plan as PdfPlan, result });
    return result;
  },
};
const renderer = withFinishing(recording, 60_000);
// Bands of two heights: the replay tells them apart by their paper height.
const pdf = { header: { html: b64('<div style="font:9px sans-serif"><span class="section"></span> | <span class="title"></span></div>'), height: '2cm' }, footer: { htmlTemplate: b64('<div style="font:9px sans-serif;text-align:center">Page {{pageNumber}} of {{totalPages}}</div>') } };
const plan = buildRenderPlan({ output: 'PDF', page: { html: b64(reportHtml()) }, pdf } as never, await loadTemplateRenderer()) as PdfPlan;
const finished = await renderer.render(plan, { timeoutMs: 60_000 });
await base.close();
const [body, ...bandsPrinted] = recorded;
const byHeight = new Map(bandsPrinted.map(({ plan: p, result }) => [String(p.print.height), new Uint8Array(result.body)]));
if (byHeight.size !== 2) throw new Error('Expected two band prints of different heights');
const replay = async (_html: string, size: { width: number; height: number }) => byHeight.get(`${size.height / 72}in`)!;
const rounds = Number(process.env.ROUNDS ?? 40);
let size = 0;
const run = async () => {
  const out = await finishPdf(new Uint8Array(body!.result.body), { bands: bandsStep(plan.bands!, body!.result.bandFacts!, replay, () => new Date(), loadTemplateRenderer) }, unboundedBudget());
  size = out.byteLength;
};
for (let i = 0; i < 5; i++) await run();
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < rounds; i++) await run();
const c = process.cpuUsage(c0);
console.log(`bands finishing (printing replayed), ${rounds} rounds: ${((c.user + c.system) / rounds / 1000).toFixed(1)} ms CPU, ${((performance.now() - t0) / rounds).toFixed(1)} ms wall per render; ${size} bytes out (the full render: ${finished.body.byteLength} bytes, body alone ${body!.result.body.byteLength})`);
