/**
 * `npm run bench`: the service against bare Puppeteer, side by side on this
 * machine. Starts the local service (`npm start`'s path) and a bare
 * `puppeteer-core` process on the same Chromium with the same flags, runs
 * each scenario on both in alternation (A B, B A, …) so that machine drift
 * hits both alike, and prints medians, min/max and ratios; the full results
 * go to bench/results/ as JSON. See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { extractText, getDocumentProxy } from 'unpdf';
import { startBare, type BareClient } from './bare-client.js';
import { concurrently } from './concurrent.js';
import { buildColdStartBundles, coldStart, type ColdRun } from './cold-start.js';
import { MB_PER_VCPU, openCpuShare, type CpuShare } from './cpu-share.js';
import { LATE_TEXT, startPageServer } from './pages.js';
import { processTree } from '../scripts/local-runtime/process-tree.js';
import { cpuByPid, cpuSince, samplePeakMemory, treeMemory, type TreeMemory } from './process-memory.js';
import { printReport, type BenchResults, type CpuShareResult, type CpuShareRow, type LatencyResult, type ServerSideSummary, type ThroughputLevel } from './report.js';
import { CONFIGURED_MEMORY_MB } from './cost.js';
import { measureFinishing, printFinishing, type FinishingResult } from './finishing.js';
import { measurePeer, parsePeer, printPeer, type PeerResult } from './peer.js';
import { latencyScenarios, throughputScenario, type Scenario } from './scenarios.js';
import { startBenchService, type BenchService, type ServerSide } from './service-client.js';
import { percentile, summarize } from './stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const PHASES = ['latency', 'finishing', 'throughput', 'cold', 'cpu', 'peer'] as const;
/**
 * The latency scenarios also measured on a second stack with
 * `ISOLATION_PHASE=inline`: no extension, the next session opened alongside
 * the render and the used one closed after the answer (in the next
 * invocation, as the instance is frozen at once). What that design is billed
 * in the same run is the fair reference for the post-response phase's bill.
 */
const INLINE_SCENARIOS = ['pdf-small'];
type Phase = (typeof PHASES)[number];

const USAGE = `Usage: npm run bench [-- --quick] [--runs N] [--only latency,finishing,throughput,cold,cpu,peer] [--scenarios id,id] [--no-inline] [--peer gotenberg=URL]

  --quick       fewer runs (5 per scenario, one throughput round, one cold start each): about 13 minutes on 2 busy cores
  --runs N      measured runs per latency scenario and side after warm-up (default 20)
  --warmup N    warm-up runs per scenario and side (default 3)
  --pause MS    idle time between two turns of the latency runs (default 250)
  --think MS    the think-time client's wait between an answer and its next request (default 1000)
  --only LIST   run only these phases
  --scenarios   run only these latency scenarios (ids as printed)
  --finishing LIST  run only these finishing variants (pdfa3b, einvoice, protected, watermarked, signed, compressed, merge3, singles3, table-bands, table-builtin, toc, toc-once, process1, form, render50, process50; plain always runs)
  --out FILE    JSON file to write (default bench/results/bench-<time>.json, also latest.json)
  --memory MB   the function memory whose CPU share (1,769 MB = 1 vCPU) the Lambda-like runs get (default ${CONFIGURED_MEMORY_MB}, serverless.yml's)
  --no-cpu-limit  do not limit CPU (the Lambda-like runs are then only frozen between invocations)
  --peer gotenberg=URL  also run the peer phase: the same documents against a Gotenberg at URL (see bench/README.md; never in CI)
  --no-inline   no second service stack with ISOLATION_PHASE=inline (the design before issue 24) in the ${INLINE_SCENARIOS.join(', ')} latency rows
`;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      warmup: { type: 'string' },
      pause: { type: 'string' },
      think: { type: 'string' },
      only: { type: 'string' },
      scenarios: { type: 'string' },
      finishing: { type: 'string' },
      out: { type: 'string' },
      memory: { type: 'string' },
      'no-cpu-limit': { type: 'boolean', default: false },
      'no-inline': { type: 'boolean', default: false },
      peer: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const quick = values.quick;
  const int = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Math.max(0, Number.parseInt(text, 10) || 0));
  const phases = new Set<Phase>(values.only ? (values.only.split(',').map((p) => p.trim()) as Phase[]) : PHASES);
  for (const phase of phases) if (!PHASES.includes(phase)) throw new Error(`unknown phase "${phase}"; use ${PHASES.join(', ')}`);
  if (values.only && phases.has('peer') && !values.peer) throw new Error('the peer phase needs --peer gotenberg=http://127.0.0.1:PORT');
  return {
    quick,
    runs: int(values.runs, quick ? 5 : 20),
    warmup: int(values.warmup, quick ? 1 : 3),
    pauseMs: int(values.pause, 250),
    thinkMs: int(values.think, 1000),
    phases,
    scenarioIds: values.scenarios?.split(',').map((s) => s.trim()),
    finishingIds: values.finishing?.split(',').map((s) => s.trim()),
    throughputCount: (concurrency: number) => (quick ? Math.max(8, 2 * concurrency) : Math.max(16, 4 * concurrency)),
    throughputRounds: quick ? 1 : 4,
    coldRuns: quick ? { unpacked: 1, fresh: 1 } : { unpacked: 5, fresh: 3 },
    cpuRuns: quick ? 3 : 8,
    out: values.out,
    memoryMb: int(values.memory, CONFIGURED_MEMORY_MB),
    cpuLimit: !values['no-cpu-limit'],
    inline: !values['no-inline'],
    peer: values.peer === undefined ? undefined : parsePeer(values.peer),
  };
}

type Options = ReturnType<typeof options>;

/**
 * The Lambda-like CPU limit: one cgroup per function instance (its Node
 * process and its Chromium), since each is an execution environment with a
 * CPU share of its own on Lambda (an instance in its post-response phase does
 * not slow the one rendering the next request), one for bare Puppeteer and
 * one for the cold starts, each with the CPU share of the function's memory
 * size. The API emulation and the AWS emulators stay outside, as they are
 * outside a Lambda's sandbox.
 */
type LambdaCpu = {
  kind: CpuShare['kind'];
  vcpu: number;
  /** Sets every group to the share of `memoryMb` (or lifts the limit with `undefined`). */
  limit(memoryMb: number | undefined): void;
  /** Moves each instance (a group of its own; new ones appear on demand) and bare's tree into their groups. */
  enrol(bench: BenchService, bare: BareClient): void;
  /** The group a cold-start process of `side` goes into. */
  cold(side: 'service' | 'bare'): CpuShare;
  close(): void;
};

function openLambdaCpu(memoryMb: number): LambdaCpu | undefined {
  const vcpu = memoryMb / MB_PER_VCPU;
  if (vcpu > cpus().length) return undefined;
  const bare = openCpuShare('bare');
  if (!bare) return undefined;
  const coldService = openCpuShare('cold');
  if (!coldService) {
    bare.close();
    return undefined;
  }
  const instances = new Map<number, CpuShare>();
  let share = vcpu;
  const cpu: LambdaCpu = {
    kind: bare.kind,
    vcpu,
    limit(mb) {
      share = mb === undefined ? cpus().length : mb / MB_PER_VCPU;
      for (const group of [bare, coldService, ...instances.values()]) group.limit(share);
    },
    enrol(bench, bareClient) {
      for (const root of bench.instanceRoots()) {
        let group = instances.get(root);
        if (!group) {
          group = openCpuShare(`lambda${instances.size}`);
          if (!group) continue;
          group.limit(share);
          instances.set(root, group);
        }
        group.add([root]);
      }
      bare.add([bareClient.pid]);
    },
    cold: (side) => (side === 'service' ? coldService : bare),
    close() {
      for (const group of [bare, coldService, ...instances.values()]) group.close();
    },
  };
  cpu.limit(memoryMb);
  return cpu;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Reads what a person would check in an output once: page count and text of a PDF. */
async function pdfFacts(data: ArrayBuffer): Promise<{ pages: number; text: string }> {
  const doc = await getDocumentProxy(new Uint8Array(data));
  const { text } = await extractText(doc, { mergePages: true });
  return { pages: doc.numPages, text };
}

/** One output of each scenario, checked for what it must contain. */
async function checkOutputs(bench: BenchService, scenarios: Scenario[]): Promise<Record<string, unknown>> {
  const checks: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    const res = await fetch(bench.service.baseUrl + scenario.endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(scenario.body),
    });
    const data = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${scenario.id}: the service answered ${res.status} ${Buffer.from(data).toString().slice(0, 300)}`);
    const entry: Record<string, unknown> = { bytes: data.byteLength, contentType: res.headers.get('content-type') };
    if (scenario.endpoint === '/v1/pdf') {
      const facts = await pdfFacts(data);
      entry.pages = facts.pages;
      if (scenario.id.startsWith('url-')) entry.lateContentCaught = facts.text.includes(LATE_TEXT);
    }
    checks[scenario.id] = entry;
  }
  bench.forgetServerSide();
  return checks;
}

/**
 * The latency runs of one scenario, in rotating order each round: the
 * service to a sequential client (a request sent the moment the previous
 * answer arrives: one unmeasured request, then the measured one right after
 * its answer, while the first one's environment is still in its
 * post-response phase), the service to a client with think time (the
 * measured request sent `thinkMs` after the previous answer: every
 * environment has ended its post-response phase), the same two clients of
 * the `inline` stack when there is one, bare on a fresh context and, for
 * some, bare on a reused page.
 */
async function measureLatency(
  bench: BenchService,
  inline: BenchService | undefined,
  bare: BareClient,
  scenario: Scenario,
  opts: Options,
  afterTurn?: () => void,
): Promise<LatencyResult> {
  const sides: LatencySide[] = [
    'sequential',
    'think',
    ...(inline ? (['inlineSequential', 'inlineThink'] as const) : []),
    'bare',
    ...(scenario.reusedPageReference ? (['bareReused'] as const) : []),
  ];
  const perSide = <T>(make: () => T) => Object.fromEntries(LATENCY_SIDES.map((side) => [side, make()])) as Record<LatencySide, T>;
  const times = perSide<number[]>(() => []);
  const bytes = perSide(() => 0);
  const server = perSide<ServerSide[]>(() => []);
  // CPU used per render by the side's whole process tree (every function instance and its Chromium;
  // bare's process and its Chromium), from before the turn to the end of its invocations.
  const cpuMs = perSide(() => 0);
  const rendersForCpu = perSide(() => 0);
  const stackOf = (side: LatencySide) => (side === 'inlineSequential' || side === 'inlineThink' ? inline : side === 'sequential' || side === 'think' ? bench : undefined);
  const treeOf = (side: LatencySide) => stackOf(side)?.instancePids() ?? processTree(bare.pid);
  /** One turn of a side: its measured time, the service calls it made (for their REPORT lines) and how many renders it cost. */
  const turn = async (side: LatencySide): Promise<{ ms: number; calls: string[]; measured: string | undefined; renders: number }> => {
    const stack = stackOf(side);
    if (stack && (side === 'sequential' || side === 'inlineSequential')) {
      const lead = await stack.call(scenario.endpoint, scenario.body);
      const call = await stack.call(scenario.endpoint, scenario.body);
      bytes[side] = call.bytes;
      return { ms: call.ms, calls: [lead.requestId, call.requestId], measured: call.requestId, renders: 2 };
    }
    if (stack) {
      await sleep(opts.thinkMs);
      const call = await stack.call(scenario.endpoint, scenario.body);
      bytes[side] = call.bytes;
      return { ms: call.ms, calls: [call.requestId], measured: call.requestId, renders: 1 };
    }
    const outcome = await bare.render(scenario.bare, side === 'bareReused' ? 'page' : 'context', true);
    bytes[side] = outcome.bytes;
    return { ms: outcome.ms, calls: [], measured: undefined, renders: 1 };
  };
  for (let i = 0; i < opts.warmup + opts.runs; i += 1) {
    const measured = i >= opts.warmup;
    // Rotate who goes first, so that neither side always follows the other's leftovers.
    const order = sides.map((_, k) => sides[(k + i) % sides.length] as LatencySide);
    for (const side of order) {
      const cpuBefore = cpuByPid(treeOf(side));
      const done = await turn(side);
      // The service's invocations end with their post-response phase (their REPORT line): the CPU read waits for it.
      const seen = done.calls.length ? await (stackOf(side) as BenchService).serverSide(done.calls) : [];
      if (measured) {
        times[side].push(done.ms);
        cpuMs[side] += cpuSince(cpuBefore, cpuByPid(treeOf(side)));
        rendersForCpu[side] += done.renders;
        const mine = seen.find((entry) => entry.requestId === done.measured);
        if (mine) server[side].push(mine);
      }
      await sleep(opts.pauseMs);
      afterTurn?.();
    }
  }
  const perRender = (side: LatencySide) => (rendersForCpu[side] ? Math.round(cpuMs[side] / rendersForCpu[side]) : NaN);
  const reused = scenario.reusedPageReference;
  return {
    id: scenario.id,
    title: scenario.title,
    sequential: summarize(times.sequential),
    think: summarize(times.think),
    bare: summarize(times.bare),
    bareReusedPage: reused ? summarize(times.bareReused) : undefined,
    bytes: { service: bytes.sequential, bare: bytes.bare },
    cpuMsPerRender: {
      sequential: perRender('sequential'),
      think: perRender('think'),
      bare: perRender('bare'),
      ...(reused ? { bareReusedPage: perRender('bareReused') } : {}),
    },
    serverSide: { sequential: summarizeServerSide(server.sequential), think: summarizeServerSide(server.think) },
    inline: inline
      ? {
          sequential: summarize(times.inlineSequential),
          think: summarize(times.inlineThink),
          cpuMsPerRender: { sequential: perRender('inlineSequential'), think: perRender('inlineThink') },
          serverSide: { sequential: summarizeServerSide(server.inlineSequential), think: summarizeServerSide(server.inlineThink) },
          raw: {
            sequential: times.inlineSequential,
            think: times.inlineThink,
            billedSequential: server.inlineSequential.map((s) => s.billed),
            billedThink: server.inlineThink.map((s) => s.billed),
          },
        }
      : undefined,
    raw: {
      sequential: times.sequential,
      think: times.think,
      bare: times.bare,
      bareReusedPage: reused ? times.bareReused : undefined,
      billedSequential: server.sequential.map((s) => s.billed),
      billedThink: server.think.map((s) => s.billed),
    },
  };
}

const LATENCY_SIDES = ['sequential', 'think', 'inlineSequential', 'inlineThink', 'bare', 'bareReused'] as const;
type LatencySide = (typeof LATENCY_SIDES)[number];

/** Medians of the service's own figures over the measured requests of one row. */
function summarizeServerSide(entries: ServerSide[]): ServerSideSummary | undefined {
  if (!entries.length) return undefined;
  const median = (pick: (s: ServerSide) => number) => summarize(entries.map(pick).filter((x) => Number.isFinite(x))).median;
  const phaseNames = [...new Set(entries.flatMap((s) => Object.keys(s.phases)))];
  return {
    samples: entries.length,
    apiMs: median((s) => s.api),
    handlerMs: median((s) => s.handler),
    postResponseMs: median((s) => s.postResponse),
    billedMs: median((s) => s.billed),
    reportBilledMs: median((s) => s.reportBilled),
    renderMs: median((s) => s.render),
    phases: Object.fromEntries(phaseNames.map((name) => [name, median((s) => s.phases[name] ?? NaN)])),
  };
}

function serviceThroughput(bench: BenchService, scenario: Scenario, concurrency: number, count: number, latencies: number[] = []) {
  return concurrently(() => bench.call(scenario.endpoint, scenario.body), concurrency, count, latencies);
}

/**
 * Pages per second at each concurrency, with the peak memory of each side's
 * process tree meanwhile. Each level runs in rounds that alternate which side
 * goes first, and the rates are totals over the rounds, so that a busy moment
 * of the machine does not land on one side only.
 */
async function measureThroughput(bench: BenchService, bare: BareClient, opts: Options): Promise<{ idle: Record<string, TreeMemory>; levels: ThroughputLevel[] }> {
  const scenario = throughputScenario();
  const idle = { service: treeMemory(bench.pid), bare: treeMemory(bare.pid) };
  const levels: ThroughputLevel[] = [];
  type Run = { elapsedMs: number; count: number; failures: number };
  const add = (a: Run, b: Run): Run => ({ elapsedMs: a.elapsedMs + b.elapsedMs, count: a.count + b.count, failures: a.failures + b.failures });
  const perSecond = (run: Run) => Math.round(((run.count - run.failures) / (run.elapsedMs / 1000)) * 10) / 10;
  const peak = (a: TreeMemory, b: TreeMemory): TreeMemory => ({ rssMiB: Math.max(a.rssMiB, b.rssMiB), pssMiB: Math.max(a.pssMiB, b.pssMiB), processes: Math.max(a.processes, b.processes) });
  for (const concurrency of [1, 2, 4, 8]) {
    const count = opts.throughputCount(concurrency);
    // A few unmeasured renders at this concurrency first: spare sessions and renderer processes settle in.
    await serviceThroughput(bench, scenario, concurrency, concurrency);
    await bare.throughput(scenario.bare, 'context', concurrency, concurrency);
    let service: Run = { elapsedMs: 0, count: 0, failures: 0 };
    let bareRun: Run = { elapsedMs: 0, count: 0, failures: 0 };
    const latencies: number[] = [];
    let servicePeak: TreeMemory = { rssMiB: 0, pssMiB: 0, processes: 0 };
    let barePeak: TreeMemory = { rssMiB: 0, pssMiB: 0, processes: 0 };
    for (let round = 0; round < opts.throughputRounds; round += 1) {
      const sides = round % 2 === 0 ? (['service', 'bare'] as const) : (['bare', 'service'] as const);
      for (const side of sides) {
        if (side === 'service') {
          const sampler = samplePeakMemory(bench.pid);
          service = add(service, await serviceThroughput(bench, scenario, concurrency, count, latencies));
          servicePeak = peak(servicePeak, sampler.stop());
        } else {
          const sampler = samplePeakMemory(bare.pid);
          bareRun = add(bareRun, await bare.throughput(scenario.bare, 'context', concurrency, count));
          barePeak = peak(barePeak, sampler.stop());
        }
        // Let contexts closed at the end of a run finish closing before the other side starts.
        await sleep(500);
      }
    }
    const reused = await bare.throughput(scenario.bare, 'page', concurrency, count);
    await sleep(500);
    bench.forgetServerSide();
    levels.push({
      concurrency,
      renders: service.count,
      service: { pagesPerSecond: perSecond(service), failures: service.failures, peakMemory: servicePeak, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
      bare: { pagesPerSecond: perSecond(bareRun), failures: bareRun.failures, peakMemory: barePeak },
      bareReusedPage: { pagesPerSecond: perSecond(reused), failures: reused.failures },
    });
    log(`  throughput c=${concurrency}: service ${perSecond(service)}/s, bare ${perSecond(bareRun)}/s, bare reused page ${perSecond(reused)}/s`);
  }
  return { idle, levels };
}

async function measureColdStarts(bench: BenchService, opts: Options, cpu: LambdaCpu | undefined): Promise<ColdRun[]> {
  await buildColdStartBundles();
  const runs: ColdRun[] = [];
  // Fresh /tmp first: it is the headline (every new Lambda environment starts with an empty /tmp).
  const plan: Array<{ unpacked: boolean; times: number }> = [
    { unpacked: false, times: opts.coldRuns.fresh },
    { unpacked: true, times: opts.coldRuns.unpacked },
  ];
  for (const { unpacked, times } of plan) {
    // A /tmp that survived holds what the process before left there: the unpacked binary and the service's
    // compile cache (lib/lambda/compile-cache.ts). One unmeasured cold start of the service leaves them.
    if (unpacked && times > 0) await coldStart('service', true, bench.handlerEnv, (pid) => cpu?.cold('service').add([pid]));
    for (let i = 0; i < times; i += 1) {
      const order: Array<'service' | 'bare'> = i % 2 === 0 ? ['bare', 'service'] : ['service', 'bare'];
      for (const side of order) {
        // Into its group as soon as it exists: Chromium, started later, is born inside.
        const run = await coldStart(side, unpacked, side === 'service' ? bench.handlerEnv : {}, (pid) => cpu?.cold(side).add([pid]));
        runs.push(run);
        log(`  cold ${side} (${unpacked ? 'binary unpacked' : 'fresh /tmp'}): ${Math.round(run.totalMs)} ms`);
        await sleep(500);
      }
    }
  }
  return runs;
}

/**
 * Render time of the service and bare Puppeteer under the CPU share Lambda
 * gives each memory size, frozen between invocations as everywhere else: the
 * memory-size sweep the cost table is computed from. Each service request is
 * sent once the previous invocation has ended (post-response phase
 * included), and what it is billed is read from its REPORT line.
 */
async function measureCpuShare(bench: BenchService, bare: BareClient, opts: Options, scenarios: Scenario[], cpu: LambdaCpu | undefined): Promise<CpuShareResult> {
  if (!cpu) return { available: false, reason: 'no writable cgroup cpu controller (needs root in a container, or a delegated cgroup), or --no-cpu-limit' };
  const picked = scenarios.filter((s) => s.id === 'pdf-small' || s.id === 'pdf-table-20p' || s.id === 'png-1280x800');
  const sizes = [1024, 1536, 2048, 3008].filter((mb) => mb / MB_PER_VCPU <= cpus().length);
  const rows: CpuShareRow[] = [];
  cpu.enrol(bench, bare);
  for (const memoryMb of sizes) {
    const vcpu = memoryMb / MB_PER_VCPU;
    cpu.limit(memoryMb);
    for (const scenario of picked) {
      const service: number[] = [];
      const bareTimes: number[] = [];
      const handler: number[] = [];
      const billed: number[] = [];
      for (let i = 0; i < 1 + opts.cpuRuns; i += 1) {
        const s = await bench.call(scenario.endpoint, scenario.body);
        const seen = await bench.serverSide([s.requestId]);
        await sleep(opts.pauseMs);
        const b = await bare.render(scenario.bare, 'context', true);
        await sleep(opts.pauseMs);
        // The warm-up call may have started a new instance (an idle one is stopped after 5 minutes): enrol it.
        if (i === 0) {
          cpu.enrol(bench, bare);
          continue;
        }
        service.push(s.ms);
        bareTimes.push(b.ms);
        for (const entry of seen) {
          handler.push(entry.handler);
          billed.push(entry.billed);
        }
      }
      const finite = (values: number[]) => values.filter((x) => Number.isFinite(x));
      rows.push({
        memoryMb,
        vcpu: Math.round(vcpu * 100) / 100,
        scenario: scenario.id,
        service: summarize(service),
        bare: summarize(bareTimes),
        handlerMs: summarize(handler).median,
        billedMs: summarize(finite(billed)).median,
      });
      log(`  ${memoryMb} MB (${vcpu.toFixed(2)} vCPU) ${scenario.id}: service ${summarize(service).median} ms, bare ${summarize(bareTimes).median} ms, billed ${summarize(finite(billed)).median} ms`);
    }
  }
  return { available: true, method: cpu.kind, rows };
}

async function main(): Promise<void> {
  const opts = options();
  const startedAt = new Date();
  log('Starting the local service, the page server and bare Puppeteer…');
  const pages = await startPageServer();
  const bare = startBare();
  let bench: BenchService | undefined;
  let inline: BenchService | undefined;
  let cpu: LambdaCpu | undefined;
  try {
    const scenarios = latencyScenarios(pages.articleUrl).filter((s) => !opts.scenarioIds || opts.scenarioIds.includes(s.id));
    const inlineScenarios = scenarios.filter((s) => INLINE_SCENARIOS.includes(s.id));
    const wantInline = opts.inline && opts.phases.has('latency') && inlineScenarios.length > 0;
    const [service, launched, inlineService] = await Promise.all([
      startBenchService(),
      bare.launch(),
      wantInline ? startBenchService({ ISOLATION_PHASE: 'inline' }) : undefined,
    ]);
    bench = service;
    inline = inlineService;
    const results: BenchResults = {
      date: startedAt.toISOString(),
      loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
      machine: {
        cpu: cpus()[0]?.model ?? 'unknown',
        cpus: cpus().length,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        kernel: release(),
        node: process.version,
        chromium: launched.version,
      },
      options: { quick: opts.quick, runs: opts.runs, warmup: opts.warmup, pauseMs: opts.pauseMs, thinkMs: opts.thinkMs, inline: inline !== undefined },
    };

    log('Warming up and checking one output of each scenario…');
    results.checks = await checkOutputs(bench, scenarios);
    if (inline) await checkOutputs(inline, inlineScenarios);
    cpu = opts.cpuLimit ? openLambdaCpu(opts.memoryMb) : undefined;
    results.lambdaLike = {
      frozen: true,
      memoryMb: opts.memoryMb,
      vcpu: cpu ? Math.round(cpu.vcpu * 100) / 100 : null,
      cpuLimit: cpu ? `${cpu.kind} CPU quota, one group per instance` : opts.cpuLimit ? 'none: no writable cgroup cpu controller, or fewer cores than the share' : 'none (--no-cpu-limit)',
    };
    log(cpu ? `Lambda-like: instances frozen between invocations, CPU limited to ${cpu.vcpu.toFixed(2)} vCPU (${opts.memoryMb} MB)` : 'Lambda-like: instances frozen between invocations, CPU not limited');

    if (opts.phases.has('latency')) {
      results.latency = [];
      for (const scenario of scenarios) {
        log(`Latency: ${scenario.title}`);
        // New instances start on demand (the sequential client keeps two busy; an idle one is stopped
        // after 5 minutes): each gets its own CPU group as soon as it exists.
        // The inline stack's instances likewise, each in a group of its own.
        const running = service;
        const compared = INLINE_SCENARIOS.includes(scenario.id) ? inline : undefined;
        const enrol = () => {
          cpu?.enrol(running, bare);
          if (compared) cpu?.enrol(compared, bare);
        };
        enrol();
        const result = await measureLatency(running, compared, bare, scenario, opts, enrol);
        results.latency.push(result);
        const billed = (side: 'sequential' | 'think') => result.serverSide[side]?.billedMs ?? NaN;
        log(`  service sequential ${result.sequential.median} ms (billed ${billed('sequential')}), think time ${result.think.median} ms (billed ${billed('think')}), bare ${result.bare.median} ms`);
        const inlineBilled = (side: 'sequential' | 'think') => result.inline?.serverSide[side]?.billedMs ?? NaN;
        if (result.inline) log(`  inline sequential ${result.inline.sequential.median} ms (billed ${inlineBilled('sequential')}), think time ${result.inline.think.median} ms (billed ${inlineBilled('think')})`);
      }
      // Only the latency rows compare it: its emulators and Chromium are not left idling through the rest.
      await inline?.stop();
      inline = undefined;
    }
    let finishing: FinishingResult | undefined;
    if (opts.phases.has('finishing')) {
      log('Finishing: PDF/A, e-invoice, protected, watermarked, signed and merged PDFs against plain ones…');
      cpu?.enrol(service, bare);
      finishing = await measureFinishing(service, { ...opts, variantIds: opts.finishingIds });
      results.finishing = finishing;
      log(`  PDF/A-3b / plain ${finishing.ratios.pdfaVsPlain}, e-invoice / plain ${finishing.ratios.eInvoiceVsPlain}, protected / plain ${finishing.ratios.protectedVsPlain}, watermarked / plain ${finishing.ratios.watermarkedVsPlain}, signed / plain ${finishing.ratios.signedVsPlain}, merge 3 / 3 singles ${finishing.ratios.merge3VsSingles3}`);
    }
    if (opts.phases.has('throughput')) {
      log('Throughput (small PDF) at concurrency 1, 2, 4, 8…');
      // Up to 4 instances render at once, each its own Lambda: one shared quota would misstate that,
      // so both sides get the whole machine here.
      cpu?.limit(undefined);
      results.throughput = await measureThroughput(bench, bare, opts);
      cpu?.limit(opts.memoryMb);
    }
    let peer: PeerResult | undefined;
    if (opts.phases.has('peer') && opts.peer) {
      log(`Peer: the same documents against ${opts.peer.name} at ${opts.peer.url}, alternating rounds, then 4 at once…`);
      // The peer is one long-running server on the whole machine: the service's instances get it too, as in the throughput phase.
      cpu?.limit(undefined);
      peer = await measurePeer(service, opts.peer, { runs: opts.runs, warmup: opts.warmup, pauseMs: opts.pauseMs, rounds: opts.throughputRounds, count: opts.throughputCount(4), concurrency: 4, log });
      results.peer = peer;
      cpu?.limit(opts.memoryMb);
    }
    if (opts.phases.has('cpu')) {
      log('Render time under Lambda CPU shares (cgroup CPU quota)…');
      results.cpuShare = await measureCpuShare(bench, bare, opts, scenarios, cpu);
      cpu?.limit(opts.memoryMb);
    }
    if (opts.phases.has('cold')) {
      log('Cold starts: a fresh process to its first PDF…');
      results.coldStart = await measureColdStarts(bench, opts, cpu);
    }

    const outDir = join(root, 'bench', 'results');
    mkdirSync(outDir, { recursive: true });
    const file = opts.out ?? join(outDir, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    const json = `${JSON.stringify(results, null, 2)}\n`;
    writeFileSync(file, json);
    writeFileSync(join(outDir, 'latest.json'), json);
    process.stdout.write(printReport(results));
    if (finishing) process.stdout.write(printFinishing(finishing));
    if (peer) process.stdout.write(printPeer(peer));
    process.stdout.write(`\nJSON: ${file}\n`);
  } finally {
    await Promise.allSettled([bench?.stop(), inline?.stop(), bare.stop(), pages.close()]);
    // After the processes are gone: a group with a process still inside cannot be removed.
    cpu?.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
