import type { ColdRun } from './cold-start.js';
import type { TreeMemory } from './process-memory.js';
import { ratio, summarize, type Summary } from './stats.js';

export type LatencyResult = {
  id: string;
  title: string;
  service: Summary;
  bare: Summary;
  bareReusedPage?: Summary | undefined;
  /** The service let run between requests (not frozen): the secondary row. */
  serviceUnfrozen?: Summary | undefined;
  /** Bare on a fresh context let run between renders, its context closed before the answer (not frozen): the secondary row. */
  bareUnfrozen?: Summary | undefined;
  bytes: { service: number; bare: number };
  /**
   * Mean CPU time (ms, user + system, every process of the side's tree) one render cost: under a
   * frozen Lambda's CPU share, the time a render cannot take less than (CPU / vCPU share).
   */
  cpuMsPerRender?: { service: number; bare: number; bareReusedPage?: number } | undefined;
  /** Medians of the service's own figures: the API emulation, the handler, the renderer and its phases. */
  serverSide?: { samples: number; apiMs: number; handlerMs: number; renderMs: number; phases: Record<string, number> } | undefined;
  raw: { service: number[]; bare: number[]; bareReusedPage?: number[] | undefined; serviceUnfrozen?: number[] | undefined; bareUnfrozen?: number[] | undefined };
};

export type ThroughputLevel = {
  concurrency: number;
  renders: number;
  service: { pagesPerSecond: number; failures: number; peakMemory: TreeMemory; p50: number; p99: number };
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
  /** How Lambda-like the runs were: frozen between invocations, and the CPU share they had. */
  lambdaLike?: { frozen: boolean; memoryMb: number; vcpu: number | null; cpuLimit: string };
  checks?: Record<string, unknown>;
  latency?: LatencyResult[];
  throughput?: { idle: Record<string, TreeMemory>; levels: ThroughputLevel[] };
  cpuShare?: CpuShareResult;
  coldStart?: ColdRun[];
};

/** x86_64 prices in us-east-1 the cost figures use (Lambda, HTTP API, DynamoDB on-demand, S3 standard, SQS standard). */
export const PRICES = {
  gbSecond: 0.0000166667,
  perRequest: 0.2 / 1e6,
  httpApiPerRequest: 1.0 / 1e6,
  dynamoRead: 0.125 / 1e6,
  dynamoWrite: 0.625 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  sqsRequest: 0.4 / 1e6,
};
/** Memory of the rendering functions in serverless.yml. */
export const CONFIGURED_MEMORY_MB = 1536;
/** Cold starts per 1,000 renders assumed for the INIT share of the cost (traffic that keeps a few instances warm). */
export const COLD_STARTS_PER_1000 = 10;

/**
 * The AWS calls one render makes besides its own invocation, per mode: every
 * request reads the token and counts the rate window and the quota; sync
 * stores the file (and the client fetches it); async also writes the job
 * three times, goes through the jobs queue and the webhooks queue (send,
 * receive, delete each), and invokes the webhook sender.
 */
export const CALLS_PER_RENDER = {
  raw: { httpApi: 1, lambda: 1, dynamoRead: 1, dynamoWrite: 2, s3Put: 0, s3Get: 0, sqs: 0 },
  sync: { httpApi: 1, lambda: 1, dynamoRead: 1, dynamoWrite: 2, s3Put: 1, s3Get: 1, sqs: 0 },
  async: { httpApi: 1, lambda: 3, dynamoRead: 2, dynamoWrite: 5, s3Put: 1, s3Get: 1, sqs: 6 },
} as const;
export type Mode = keyof typeof CALLS_PER_RENDER;

/**
 * Dollars per 1,000 renders of `durationMs` each at `memoryMb` in `mode`:
 * Lambda compute (with `initMs` billed for each of COLD_STARTS_PER_1000 cold
 * starts) and requests, HTTP API requests and the mode's DynamoDB, S3 and
 * SQS calls. The async mode's consumer is billed the same duration.
 */
export function costPer1000(durationMs: number, memoryMb: number, mode: Mode = 'raw', initMs = 0): number {
  const calls = CALLS_PER_RENDER[mode];
  const gb = memoryMb / 1024;
  const compute = 1000 * (Math.ceil(durationMs) / 1000) * gb * PRICES.gbSecond + COLD_STARTS_PER_1000 * (Math.ceil(initMs) / 1000) * gb * PRICES.gbSecond;
  const perRender =
    calls.httpApi * PRICES.httpApiPerRequest +
    calls.lambda * PRICES.perRequest +
    calls.dynamoRead * PRICES.dynamoRead +
    calls.dynamoWrite * PRICES.dynamoWrite +
    calls.s3Put * PRICES.s3Put +
    calls.s3Get * PRICES.s3Get +
    calls.sqs * PRICES.sqsRequest;
  return Math.round((compute + perRender * 1000) * 10000) / 10000;
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

/** The issue's targets (#24, Lambda-like mode), judged from one run's figures. */
export function judgeTargets(results: BenchResults): Target[] {
  const targets: Target[] = [];
  const latency = new Map((results.latency ?? []).map((l) => [l.id, l]));
  const small = latency.get('pdf-small');
  if (small) {
    const reused = ratio(small.service.median, small.bareReusedPage?.median ?? NaN);
    targets.push({ name: 'pdf-small vs bare, reused page', value: `${reused}×`, goal: '≤ 3.0×', met: reused <= 3 });
    const fresh = ratio(small.service.median, small.bare.median);
    targets.push({ name: 'pdf-small vs bare, fresh context', value: `${fresh}×`, goal: '≤ 0.6×', met: fresh <= 0.6 });
  }
  const png = latency.get('png-1280x800');
  if (png) {
    const reused = ratio(png.service.median, png.bareReusedPage?.median ?? NaN);
    targets.push({ name: 'png-1280x800 vs bare, reused page', value: `${reused}×`, goal: '≤ 1.3×', met: reused <= 1.3 });
  }
  const c4 = results.throughput?.levels.find((t) => t.concurrency === 4);
  if (c4) {
    const r = ratio(c4.service.pagesPerSecond, c4.bare.pagesPerSecond);
    const spread = ratio(c4.service.p99, c4.service.p50);
    targets.push({ name: 'throughput at concurrency 4 vs bare (fresh context), service p99/p50', value: `${r}×, p99/p50 ${spread}`, goal: '≥ 1.0×, ≤ 2', met: r >= 1 && spread <= 2 });
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
    // Fresh /tmp first: every Lambda cold start has an empty /tmp.
    for (const [label, pair, goal] of [['fresh /tmp', cold.fresh, 0.6], ['binary unpacked', cold.unpacked, 1.2]] as const) {
      if (!pair.service.n || !pair.bare.n) continue;
      const r = ratio(pair.service.median, pair.bare.median);
      targets.push({ name: `cold first PDF vs bare (${label})`, value: `${r}×`, goal: `≤ ${goal.toFixed(1)}×`, met: r <= goal });
    }
  }
  const table20 = results.checks?.['pdf-table-20p'] as { bytes?: number; pages?: number } | undefined;
  if (table20?.bytes) {
    targets.push({ name: `20-page PDF size (${table20.pages} pages)`, value: `${Math.round(table20.bytes / 1024)} KB`, goal: '< 250 KB', met: table20.bytes < 250 * 1024 });
  }
  return targets;
}

/** Median INIT of the service's cold starts (binary unpacked): module load, Chromium launched and warmed. */
export function medianInitMs(results: BenchResults): number {
  const list = (results.coldStart ?? []).filter((r) => r.side === 'service' && r.unpacked && Number.isFinite(r.phases.initDone));
  return list.length ? summarize(list.map((r) => r.phases.initDone as number)).median : NaN;
}

/** The human-readable report: latency table, throughput, cold start, CPU shares, targets, cost. */
export function printReport(results: BenchResults): string {
  const out: string[] = [];
  const m = results.machine;
  out.push(`\nDocRender benchmark, ${results.date.slice(0, 10)} — ${m.cpus}× ${m.cpu}, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}, ${m.chromium}`);
  out.push(`${results.options.runs} runs per side after ${results.options.warmup} warm-up, alternating; milliseconds: median (min–max). Bare = puppeteer-core, fresh incognito context per render.`);
  const lambda = results.lambdaLike;
  if (lambda) {
    out.push(
      `Lambda-like: each function instance (Node and its Chromium) frozen with SIGSTOP from its answer to its next invocation, as \`npm start\` runs it, and bare's whole tree likewise ` +
        `(bare answers as soon as the file is in hand and leaves its context closing, the fastest a bare handler can be on Lambda); ` +
        (lambda.vcpu ? `CPU of the instances and of bare limited to ${lambda.vcpu} vCPU, the share of ${lambda.memoryMb} MB (${lambda.cpuLimit}).` : `CPU not limited (${lambda.cpuLimit}).`),
    );
  }
  out.push('');

  if (results.latency?.length) {
    out.push(
      table(
        ['Scenario', 'Service, Lambda-like', 'Bare, fresh context', 'Ratio', 'Bare, reused page', 'Ratio', 'Service, not frozen', 'Bare, fresh, not frozen', 'Ratio'],
        results.latency.map((l) => [
          l.title,
          fmt(l.service),
          fmt(l.bare),
          `${ratio(l.service.median, l.bare.median)}×`,
          l.bareReusedPage ? fmt(l.bareReusedPage) : '',
          l.bareReusedPage ? `${ratio(l.service.median, l.bareReusedPage.median)}×` : '',
          l.serviceUnfrozen ? fmt(l.serviceUnfrozen) : '',
          l.bareUnfrozen ? fmt(l.bareUnfrozen) : '',
          l.serviceUnfrozen && l.bareUnfrozen ? `${ratio(l.serviceUnfrozen.median, l.bareUnfrozen.median)}×` : '',
        ]),
        [3, 5, 8],
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
    out.push(
      '\nCPU per render (ms, user + system of every process: the function instance with its Chromium; bare Puppeteer with its Chromium), mean of the measured runs',
    );
    // With the CPU share applied, no render can end sooner than its CPU time spread over that share.
    const vcpu = results.lambdaLike?.vcpu ?? null;
    const floor = (ms: number | undefined) => (vcpu && ms !== undefined ? String(Math.round(ms / vcpu)) : '');
    out.push(
      table(
        ['Scenario', 'Service', 'Bare, fresh context', 'Bare, reused page', vcpu ? `Service floor at ${vcpu} vCPU` : 'Service floor'],
        results.latency.map((l) => [
          l.id,
          String(l.cpuMsPerRender?.service ?? ''),
          String(l.cpuMsPerRender?.bare ?? ''),
          l.cpuMsPerRender?.bareReusedPage === undefined ? '' : String(l.cpuMsPerRender.bareReusedPage),
          floor(l.cpuMsPerRender?.service),
        ]),
        [1, 2, 3, 4],
      ),
    );
  }

  if (results.throughput) {
    out.push('\nThroughput, small PDF (pages/s) and peak memory of the process tree (RSS summed / PSS, MiB)');
    out.push(
      table(
        ['Concurrency', 'Service', 'p50 / p99 ms', 'Bare', 'Ratio', 'Bare, reused pages', 'Service peak', 'Bare peak'],
        results.throughput.levels.map((t) => [
          String(t.concurrency),
          String(t.service.pagesPerSecond),
          `${t.service.p50} / ${t.service.p99}`,
          String(t.bare.pagesPerSecond),
          `${ratio(t.service.pagesPerSecond, t.bare.pagesPerSecond)}×`,
          String(t.bareReusedPage.pagesPerSecond),
          `${t.service.peakMemory.rssMiB} / ${t.service.peakMemory.pssMiB}`,
          `${t.bare.peakMemory.rssMiB} / ${t.bare.peakMemory.pssMiB}`,
        ]),
        [1, 3, 4, 5],
      ),
    );
    out.push('Throughput runs are not CPU-limited: up to 4 instances render at once, each its own Lambda; both sides have the whole machine.');
    const idle = results.throughput.idle;
    out.push(`Idle before: service ${idle.service?.rssMiB} / ${idle.service?.pssMiB} MiB (includes the emulators), bare ${idle.bare?.rssMiB} / ${idle.bare?.pssMiB} MiB.`);
  }

  if (results.coldStart?.length) {
    const cold = coldSummaries(results.coldStart);
    out.push('\nCold start: a fresh process (bundled and minified, as deployed) to its first small PDF, ms, under the same CPU share');
    out.push(
      table(
        ['Chromium binary', 'Service handler', 'Bare', 'Ratio'],
        [
          // The headline: a new Lambda execution environment starts with an empty /tmp.
          ['unpacked first (fresh /tmp)', fmt(cold.fresh.service), fmt(cold.fresh.bare), `${ratio(cold.fresh.service.median, cold.fresh.bare.median)}×`],
          ['already unpacked', fmt(cold.unpacked.service), fmt(cold.unpacked.bare), `${ratio(cold.unpacked.service.median, cold.unpacked.bare.median)}×`],
        ],
        [3],
      ),
    );
    const phaseMedians = (side: string, unpacked: boolean) => {
      const list = results.coldStart?.filter((r) => r.side === side && r.unpacked === unpacked) ?? [];
      const names = [...new Set(list.flatMap((r) => Object.keys(r.phases)))];
      return names.map((n) => `${n} ${Math.round(summarize(list.map((r) => r.phases[n] ?? NaN)).median)}`).join(', ');
    };
    out.push(`Phases (binary unpacked; ms since process start, except the …Ms figures: CPU used by the PDF (nodeCpuMs: Node alone; cpuMs: with Chromium) and the first request's handler and render durations): service ${phaseMedians('service', true)} (INIT = initDone); bare ${phaseMedians('bare', true)}.`);
    out.push(`Fresh /tmp: service ${phaseMedians('service', false)}; bare ${phaseMedians('bare', false)}.`);
  }

  if (results.cpuShare) {
    if (!results.cpuShare.available) out.push(`\nCPU share sweep skipped: ${results.cpuShare.reason}.`);
    else {
      const initMs = medianInitMs(results);
      const init = Number.isFinite(initMs) ? initMs : 0;
      out.push(`\nMemory size: render time under the CPU share of each size (${results.cpuShare.method} CPU quota, 1,769 MB = 1 vCPU, frozen between invocations), ms, and $ per 1,000 renders`);
      out.push(`(handler duration billed, plus INIT ${Number.isFinite(initMs) ? `${Math.round(initMs)} ms` : 'not measured in this run'} × ${COLD_STARTS_PER_1000} cold starts per 1,000; HTTP API, Lambda requests and the DynamoDB/S3/SQS calls of each mode, see bench/README.md)`);
      out.push(
        table(
          ['Memory', 'vCPU', 'Scenario', 'Service', 'Bare', 'Handler', '$ raw', '$ sync', '$ async'],
          results.cpuShare.rows.map((r) => {
            const cost = (mode: Mode) => (Number.isFinite(r.handlerMs) ? costPer1000(r.handlerMs, r.memoryMb, mode, init).toFixed(4) : '');
            return [`${r.memoryMb} MB`, String(r.vcpu), r.scenario, fmt(r.service), fmt(r.bare), String(r.handlerMs), cost('raw'), cost('sync'), cost('async')];
          }),
          [1, 5, 6, 7, 8],
        ),
      );
    }
  }

  const targets = judgeTargets(results);
  if (targets.length) {
    out.push('\nTargets (issue 24, Lambda-like)');
    out.push(table(['Target', 'Measured', 'Goal', 'Met'], targets.map((t) => [t.name, t.value, t.goal, t.met ? 'yes' : 'NO'])));
  }

  if (results.latency?.length) {
    const memoryMb = results.lambdaLike?.memoryMb ?? CONFIGURED_MEMORY_MB;
    const initMs = medianInitMs(results);
    const init = Number.isFinite(initMs) ? initMs : 0;
    out.push(`\nCost per 1,000 renders at ${memoryMb} MB from the handler durations above, INIT billed for ${COLD_STARTS_PER_1000} cold starts per 1,000, with each mode's HTTP API, Lambda, DynamoDB, S3 and SQS calls:`);
    out.push(
      table(
        ['Scenario', 'Handler ms', '$ raw', '$ sync', '$ async'],
        results.latency.filter((l) => l.serverSide).map((l) => {
          const ms = l.serverSide?.handlerMs ?? 0;
          return [l.id, String(ms), costPer1000(ms, memoryMb, 'raw', init).toFixed(4), costPer1000(ms, memoryMb, 'sync', init).toFixed(4), costPer1000(ms, memoryMb, 'async', init).toFixed(4)];
        }),
        [1, 2, 3, 4],
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
