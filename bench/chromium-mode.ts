/**
 * Single-process versus multi-process Chromium, measured in one run: for
 * each mode a renderer is created and warmed, then renders the same pages;
 * the Chromium process tree's memory (idle after warm-up, peak while
 * rendering) and the render times are recorded. Modes alternate round by
 * round so machine load falls on both alike. Usage:
 *   npx tsx bench/chromium-mode.ts [--rounds N] [--renders N]
 */
import { parseArgs } from 'node:util';
import { createEgressPolicy, startEgressProxy } from '../lib/net/index.js';
import { createRenderer } from '../lib/render/index.js';
import { buildRenderPlan } from '../lib/plan/build-plan.js';
import { childrenMatching, samplePeakMemory, treeMemory, type TreeMemory } from './process-memory.js';
import { LONG_HTML, SMALL_HTML, TABLE_HTML } from './pages.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, renders: { type: 'string' } } });
const rounds = Number(values.rounds ?? 3);
const renders = Number(values.renders ?? 8);
const b64 = (html: string) => Buffer.from(html).toString('base64');
const plans = [
  buildRenderPlan({ output: 'PDF', page: { html: b64(SMALL_HTML) } }),
  buildRenderPlan({ output: 'PDF', page: { html: b64(TABLE_HTML) } }),
  buildRenderPlan({ output: 'IMAGE', page: { html: b64(LONG_HTML) }, screenshot: { fullPage: true } }),
];
const modes = ['multi-process', 'single-process'] as const;
type Row = { idle: TreeMemory; peak: TreeMemory; ms: number[] };
const results: Record<string, Row[]> = { 'multi-process': [], 'single-process': [] };
const egress = startEgressProxy({ policy: createEgressPolicy({ allowPrivateHosts: [] }) });

for (let round = 0; round < rounds; round += 1) {
  for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
    const renderer = createRenderer({ mode, timeoutMs: 90_000, egress: () => egress });
    await renderer.warm();
    const [browserPid] = childrenMatching(process.pid, 'chrom');
    if (browserPid === undefined) throw new Error('no Chromium child process found');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = treeMemory(browserPid);
    const sampler = samplePeakMemory(browserPid, 50);
    const ms: number[] = [];
    for (let i = 0; i < renders; i += 1) {
      const started = performance.now();
      await renderer.render(plans[i % plans.length]!);
      ms.push(performance.now() - started);
    }
    const peak = sampler.stop();
    await renderer.close();
    results[mode]!.push({ idle, peak, ms });
    console.log(`round ${round + 1} ${mode}: idle PSS ${idle.pssMiB} MiB (${idle.processes} processes), peak PSS ${peak.pssMiB} MiB / RSS ${peak.rssMiB} MiB, median ${median(ms)} ms`);
  }
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0);
}
for (const mode of modes) {
  const rows = results[mode]!;
  console.log(
    `${mode}: idle PSS median ${median(rows.map((r) => r.idle.pssMiB))} MiB, peak PSS median ${median(rows.map((r) => r.peak.pssMiB))} MiB, peak RSS median ${median(rows.map((r) => r.peak.rssMiB))} MiB, render median ${median(rows.flatMap((r) => r.ms))} ms`,
  );
}
process.exit(0);
