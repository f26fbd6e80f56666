import type { ColdRun } from './cold-start.js';
import type { TreeMemory } from './process-memory.js';
import { ratio, summarize, type Summary } from './stats.js';

export type LatencyResult = {
  id: string;
  title: string;
  service: Summary;
  bare: Summary;
  bareReusedPage?: Summary | undefined;
  bytes: { service: number; bare: number };
  /** Medians of the service's own figures: the API emulation, the handler, the renderer and its phases. */
  serverSide?: { samples: number; apiMs: number; handlerMs: number; renderMs: number; phases: Record<string, number> } | undefined;
  raw: { service: number[]; bare: number[]; bareReusedPage?: number[] | undefined };
};

export type ThroughputLevel = {
  concurrency: number;
  renders: number;
  service: { pagesPerSecond: number; failures: number; peakMemory: TreeMemory };
  bare: { pagesPerSecond: number; failures: number; peakMemory: TreeMemory };
  bareReusedPage: { pagesPerSecond: number; failures: number };
};

export type CpuShareResult =
  | { available: false; reason: string }
  | {
      available: true;
      method: string;
      rows: Array<{ memoryMb: number; vcpu: number; scenario: string; service: Summary; bare: Summary; handlerMs: number }>;
    };

export type BenchResults = {
  date: string;
  machine: { cpu: string; cpus: number; memoryGiB: number; kernel: string; node: string; chromium: string };
  options: { quick: boolean; runs: number; warmup: number; pauseMs: number };
  checks?: Record<string, unknown>;
  latency?: LatencyResult[];
  throughput?: { idle: Record<string, TreeMemory>; levels: ThroughputLevel[] };
  cpuShare?: CpuShareResult;
  coldStart?: ColdRun[];
};

/** Lambda x86_64 prices (us-east-1) the cost figures use. */
export const PRICES = { gbSecond: 0.0000166667, perRequest: 0.2 / 1e6, httpApiPerRequest: 1.0 / 1e6 };
/** Memory of the rendering functions in serverless.yml. */
export const CONFIGURED_MEMORY_MB = 2048;

/** Dollars per 1,000 renders of `durationMs` each at `memoryMb`: Lambda compute and requests plus HTTP API requests. */
export function costPer1000(durationMs: number, memoryMb: number): number {
  const billedSeconds = Math.ceil(durationMs) / 1000;
  const perRender = billedSeconds * (memoryMb / 1024) * PRICES.gbSecond + PRICES.perRequest + PRICES.httpApiPerRequest;
  return Math.round(perRender * 1000 * 10000) / 10000;
}

export type Target = { name: string; value: string; goal: string; met: boolean };

const fmt = (s: Summary | undefined) => (s && s.n ? `${s.median} (${s.min}–${s.max})` : '–');
const pad = (text: string, width: number) => (text.length >= width ? text : text + ' '.repeat(width - text.length));
const padStart = (text: string, width: number) => (text.length >= width ? text : ' '.repeat(width - text.length) + text);

function table(headers: string[], rows: string[][], rightAligned: number[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (rightAligned.includes(i) ? padStart(c, widths[i] ?? 0) : pad(c, widths[i] ?? 0))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (rightAligned.includes(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Cold-start runs grouped by side and unpack state. */
export function coldSummaries(runs: ColdRun[]) {
  const pick = (side: string, unpacked: boolean) => runs.filter((r) => r.side === side && r.unpacked === unpacked);
  const summary = (list: ColdRun[]) => summarize(list.map((r) => r.totalMs));
  return {
    unpacked: { service: summary(pick('service', true)), bare: summary(pick('bare', true)) },
    fresh: { service: summary(pick('service', false)), bare: summary(pick('bare', false)) },
  };
}

/** The issue's targets, judged from one run's figures. */
export function judgeTargets(results: BenchResults): Target[] {
  const targets: Target[] = [];
  const latency = new Map((results.latency ?? []).map((l) => [l.id, l]));
  for (const id of ['pdf-small', 'png-1280x800']) {
    const l = latency.get(id);
    if (!l) continue;
    const r = ratio(l.service.median, l.bare.median);
    targets.push({ name: `${id} p50 vs bare (fresh context)`, value: `${r}×`, goal: '≤ 1.10× (stretch ≤ 0.75×)', met: r <= 1.1 });
  }
  const c4 = results.throughput?.levels.find((t) => t.concurrency === 4);
  if (c4) {
    const r = ratio(c4.service.pagesPerSecond, c4.bare.pagesPerSecond);
    targets.push({ name: 'throughput at concurrency 4 vs bare', value: `${r}×`, goal: '≥ 0.90×', met: r >= 0.9 });
  }
  const auto = latency.get('url-auto');
  const idle = latency.get('url-networkidle0');
  if (auto && idle) {
    const r = ratio(idle.service.median, auto.service.median);
    const caught = (results.checks?.['url-auto'] as { lateContentCaught?: boolean } | undefined)?.lateContentCaught === true;
    targets.push({ name: 'auto vs networkidle0 (service), late content caught', value: `${r}× faster, ${caught ? 'caught' : 'MISSED'}`, goal: '≥ 2× and caught', met: r >= 2 && caught });
  }
  if (results.coldStart?.length) {
    const cold = coldSummaries(results.coldStart);
    for (const [label, pair] of [['binary unpacked', cold.unpacked], ['fresh /tmp', cold.fresh]] as const) {
      if (!pair.service.n || !pair.bare.n) continue;
      const r = ratio(pair.service.median, pair.bare.median);
      targets.push({ name: `cold first PDF vs bare (${label})`, value: `${r}×`, goal: '≤ 1.5×', met: r <= 1.5 });
    }
  }
  const table20 = results.checks?.['pdf-table-20p'] as { bytes?: number; pages?: number } | undefined;
  if (table20?.bytes) {
    targets.push({ name: `20-page PDF size (${table20.pages} pages)`, value: `${Math.round(table20.bytes / 1024)} KB`, goal: '< 250 KB', met: table20.bytes < 250 * 1024 });
  }
  return targets;
}

/** The human-readable report: latency table, throughput, cold start, CPU shares, targets, cost. */
export function printReport(results: BenchResults): string {
  const out: string[] = [];
  const m = results.machine;
  out.push(`\nDocRender benchmark, ${results.date.slice(0, 10)} — ${m.cpus}× ${m.cpu}, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}, ${m.chromium}`);
  out.push(`${results.options.runs} runs per side after ${results.options.warmup} warm-up, alternating; milliseconds: median (min–max). Bare = puppeteer-core, fresh incognito context per render.\n`);

  if (results.latency?.length) {
    out.push(
      table(
        ['Scenario', 'Service', 'Bare', 'Ratio', 'Bare, reused page'],
        results.latency.map((l) => [l.title, fmt(l.service), fmt(l.bare), `${ratio(l.service.median, l.bare.median)}×`, l.bareReusedPage ? fmt(l.bareReusedPage) : '']),
        [3],
      ),
    );
    out.push('\nWhere the service time goes (medians, ms): client sees → local API emulation → handler (middy stack) → renderer phases');
    out.push(
      table(
        ['Scenario', 'Client', 'API emulation', 'Handler', 'Renderer', 'Phases'],
        results.latency.map((l) => {
          const s = l.serverSide;
          if (!s) return [l.id, String(l.service.median), '', '', '', ''];
          return [
            l.id,
            String(l.service.median),
            String(s.apiMs),
            String(s.handlerMs),
            String(s.renderMs),
            Object.entries(s.phases).map(([k, v]) => `${k} ${v}`).join(', '),
          ];
        }),
        [1, 2, 3, 4],
      ),
    );
  }

  if (results.throughput) {
    out.push('\nThroughput, small PDF (pages/s) and peak memory of the process tree (RSS summed / PSS, MiB)');
    out.push(
      table(
        ['Concurrency', 'Service', 'Bare', 'Ratio', 'Bare, reused pages', 'Service peak', 'Bare peak'],
        results.throughput.levels.map((t) => [
          String(t.concurrency),
          String(t.service.pagesPerSecond),
          String(t.bare.pagesPerSecond),
          `${ratio(t.service.pagesPerSecond, t.bare.pagesPerSecond)}×`,
          String(t.bareReusedPage.pagesPerSecond),
          `${t.service.peakMemory.rssMiB} / ${t.service.peakMemory.pssMiB}`,
          `${t.bare.peakMemory.rssMiB} / ${t.bare.peakMemory.pssMiB}`,
        ]),
        [1, 2, 3, 4],
      ),
    );
    const idle = results.throughput.idle;
    out.push(`Idle before: service ${idle.service?.rssMiB} / ${idle.service?.pssMiB} MiB (includes the emulators), bare ${idle.bare?.rssMiB} / ${idle.bare?.pssMiB} MiB.`);
  }

  if (results.coldStart?.length) {
    const cold = coldSummaries(results.coldStart);
    out.push('\nCold start: a fresh process (bundled, as on Lambda) to its first small PDF, ms');
    out.push(
      table(
        ['Chromium binary', 'Service handler', 'Bare', 'Ratio'],
        [
          ['already unpacked', fmt(cold.unpacked.service), fmt(cold.unpacked.bare), `${ratio(cold.unpacked.service.median, cold.unpacked.bare.median)}×`],
          ['unpacked first (fresh /tmp)', fmt(cold.fresh.service), fmt(cold.fresh.bare), `${ratio(cold.fresh.service.median, cold.fresh.bare.median)}×`],
        ],
        [3],
      ),
    );
    const phaseMedians = (side: string, unpacked: boolean) => {
      const list = results.coldStart?.filter((r) => r.side === side && r.unpacked === unpacked) ?? [];
      const names = [...new Set(list.flatMap((r) => Object.keys(r.phases)))];
      return names.map((n) => `${n} ${Math.round(summarize(list.map((r) => r.phases[n] ?? NaN)).median)}`).join(', ');
    };
    out.push(`Phases (ms since process start): service ${phaseMedians('service', true)}; bare ${phaseMedians('bare', true)}.`);
  }

  if (results.cpuShare) {
    if (!results.cpuShare.available) out.push(`\nCPU share sweep skipped: ${results.cpuShare.reason}.`);
    else {
      out.push(`\nRender time under the CPU share of each Lambda memory size (${results.cpuShare.method} CPU quota, 1,769 MB = 1 vCPU), ms and $ per 1,000 renders`);
      out.push(
        table(
          ['Memory', 'vCPU', 'Scenario', 'Service', 'Bare', 'Handler', '$/1000'],
          results.cpuShare.rows.map((r) => [
            `${r.memoryMb} MB`,
            String(r.vcpu),
            r.scenario,
            fmt(r.service),
            fmt(r.bare),
            String(r.handlerMs),
            Number.isFinite(r.handlerMs) ? costPer1000(r.handlerMs, r.memoryMb).toFixed(4) : '',
          ]),
          [1, 5, 6],
        ),
      );
    }
  }

  const targets = judgeTargets(results);
  if (targets.length) {
    out.push('\nTargets (issue 8)');
    out.push(table(['Target', 'Measured', 'Goal', 'Met'], targets.map((t) => [t.name, t.value, t.goal, t.met ? 'yes' : 'NO'])));
  }

  if (results.latency?.length) {
    out.push(`\nLambda cost per 1,000 renders at ${CONFIGURED_MEMORY_MB} MB from the handler durations measured here (x86_64 $${PRICES.gbSecond}/GB-s, $0.20/M requests, HTTP API $1.00/M):`);
    out.push(
      table(
        ['Scenario', 'Handler ms', '$/1000'],
        results.latency.filter((l) => l.serverSide).map((l) => [l.id, String(l.serverSide?.handlerMs), costPer1000(l.serverSide?.handlerMs ?? 0, CONFIGURED_MEMORY_MB).toFixed(4)]),
        [1, 2],
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
