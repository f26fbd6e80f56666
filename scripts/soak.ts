/**
 * `npm run soak -- --sync-uploads [--renders N]` (default 1,000) is the acceptance run of issue 25 instead: that
 * many consecutive sync renders (JPEG, PNG, WebP and PDF, of HTML and of a URL), each uploaded to a pre-signed URL
 * served here, and it reports the slowest render and every render over 5 s (none expected) with the step the
 * service's log names for it.
 *
 * `npm run soak [-- --renders N] [--concurrency N] [--warmup N]` (default 3,500 renders, the first 1,500 a warm-up): drives the
 * local stack (npm start's path: emulators, the Lambda runtime, real Chromium)
 * with a long run of mixed renders and prints what would show a leak: memory
 * of the whole tree and per process group (npm start's runtime, the emulators
 * in a process of their own with what they store, each instance's node with
 * its V8 heap, and its Chromium), open descriptors (node's and Chromium's, and
 * those on deleted files), entries in the service's temporary directory,
 * Chromium processes, and the latency of the first and the last quarter (at
 * most 500 renders each), the slowest render and the count of renders over
 * 5 s. Loopback traffic only: the pages and the webhook receiver are served
 * here. A script, not a test: the figures go in docs/performance.md.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { processTree } from './local-runtime/process-tree.js';
import { liveDevStacks, type DevStack } from './local-runtime/dev-stack.js';
import { MEMORY_STATS_DIR_VARIABLE, type MemoryStats } from './local-runtime/memory-stats.js';
import { b64, startService } from '../test/helpers/service.js';
import { html, startTestServer } from '../test/helpers/test-server.js';

const { values } = parseArgs({
  options: {
    renders: { type: 'string', default: '3500' },
    concurrency: { type: 'string', default: '2' },
    warmup: { type: 'string' },
    'sync-uploads': { type: 'boolean', default: false },
  },
  strict: true,
});
const SYNC_UPLOADS = values['sync-uploads'] === true;
const RENDERS = SYNC_UPLOADS && !process.argv.some((arg) => arg.startsWith('--renders')) ? 1000 : Number(values.renders);
const CONCURRENCY = Number(values.concurrency);
// Every function has started its instances and Chromium, and the busy instances have settled: the busiest
// instances' node processes (pdf takes 3 of the 9 kinds, on 2 instances; jobs-consume both async kinds) grow
// 18–30 MiB over their first 200–250 invocations as V8 enlarges their young generation, which a frozen instance
// never shrinks, and then keep level; their live heap stays flat. 1,500 renders of this mix give them that many,
// and the 2,000 after it are the measured run (two full runs of 2026-11-24: service PSS trend -2 and +2 MiB,
// against +128 with a 400-render warm-up).
const WARMUP = values.warmup ? Number(values.warmup) : Math.min(1500, Math.floor((RENDERS * 3) / 7));
/** The first and last renders compared for latency: a quarter of the run, at most 500. */
const WINDOW = Math.min(500, Math.floor((RENDERS - WARMUP) / 2), Math.ceil(RENDERS / 4));
/** A state snapshot is printed every this many renders (the run pauses to let in-flight renders end first). */
const CHECKPOINT = 250;
/** An async job's webhook must come within this long. */
const WEBHOOK_LIMIT_MS = 120_000;
/** A render of a small document that takes longer than this is a hang to explain (issue 25). */
const SLOW_RENDER_MS = 5_000;

const ARTICLE = `<!doctype html><html><head><style>body{font:16px/1.5 sans-serif;margin:40px} .box{background:linear-gradient(90deg,#36c,#c63);height:80px}</style></head>
<body><h1>Soak article</h1><div class="box"></div>${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.</p>'.repeat(12)}</body></html>`;
const SMALL = '<!doctype html><html><body><h1>Invoice 42</h1><p>Total: 12.00 EUR</p></body></html>';
const MULTI_PAGE = `<!doctype html><html><body><table>${Array.from({ length: 300 }, (_, i) => `<tr><td>Row ${i}</td><td>${i * 3}</td></tr>`).join('')}</table></body></html>`;

type Kind = { name: string; path: string; body: (pageUrl: string, hookUrl: string) => Record<string, unknown>; async?: boolean };

/** The mix, taken in turn so that every quarter of the run has the same one. */
const KINDS: Kind[] = [
  { name: 'pdf html', path: '/v1/pdf', body: () => ({ page: { html: b64(SMALL) } }) },
  { name: 'pdf url', path: '/v1/pdf', body: (page) => ({ page: { url: page } }) },
  { name: 'pdf multi-page', path: '/v1/pdf', body: () => ({ page: { html: b64(MULTI_PAGE) } }) },
  { name: 'png html', path: '/v1/screenshot', body: () => ({ page: { html: b64(SMALL) }, screenshot: { type: 'png' } }) },
  { name: 'png url', path: '/v1/screenshot', body: (page) => ({ page: { url: page }, screenshot: { type: 'png', fullPage: true } }) },
  { name: 'pdf sync html', path: '/v1/pdf/sync', body: () => ({ page: { html: b64(SMALL) } }) },
  { name: 'png sync url', path: '/v1/screenshot/sync', body: (page) => ({ page: { url: page }, screenshot: { type: 'png' } }) },
  { name: 'pdf async url', path: '/v1/pdf/async', body: (page, hook) => ({ page: { url: page }, webhook: { url: hook } }), async: true },
  {
    name: 'png async html',
    path: '/v1/screenshot/async',
    body: (_page, hook) => ({ page: { html: b64(SMALL) }, screenshot: { type: 'png' }, webhook: { url: hook } }),
    async: true,
  },
];

type Snapshot = {
  /** Resident memory summed over the tree's processes (shared pages counted in each). */
  rssMiB: number;
  /** Proportional set size summed: shared pages split between their processes, so counted once. */
  pssMiB: number;
  /** PSS of Chromium's processes alone (the rest is node: npm start, the emulators, the instances). */
  chromiumPssMiB: number;
  processes: number;
  chromiumProcesses: number;
  nodeFds: number;
  chromiumFds: number;
  /** Descriptors on files already deleted (shared memory, temporary files), all processes. */
  deletedFds: number;
  tmpEntries: number;
};

function readOr(path: string, fallback = ''): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

function snapshot(rootPid: number, tmp: string): Snapshot {
  const s: Snapshot = { rssMiB: 0, pssMiB: 0, chromiumPssMiB: 0, processes: 0, chromiumProcesses: 0, nodeFds: 0, chromiumFds: 0, deletedFds: 0, tmpEntries: 0 };
  for (const pid of processTree(rootPid)) {
    const status = readOr(`/proc/${pid}/status`);
    if (!status) continue;
    s.processes += 1;
    s.rssMiB += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
    const pss = Number(/^Pss:\s+(\d+) kB/m.exec(readOr(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0) / 1024;
    s.pssMiB += pss;
    const chromium = /chrom/i.test(readOr(`/proc/${pid}/cmdline`).split('\0')[0] ?? '');
    if (chromium) {
      s.chromiumProcesses += 1;
      s.chromiumPssMiB += pss;
    }
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (chromium) s.chromiumFds += fds.length;
    else s.nodeFds += fds.length;
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith('(deleted)')) s.deletedFds += 1;
      } catch {
        // closed meanwhile
      }
    }
  }
  s.tmpEntries = readdirSync(tmp).length;
  s.rssMiB = Math.round(s.rssMiB);
  s.pssMiB = Math.round(s.pssMiB);
  s.chromiumPssMiB = Math.round(s.chromiumPssMiB);
  return s;
}

/** Memory of one group of processes: PSS and RSS summed (MiB), and how many processes. */
type Group = { pssMiB: number; rssMiB: number; processes: number };
/** One function instance: its node process (with the V8 heap it reported) and its Chromium tree. */
type InstanceFigures = { pid: number; fn: string; node: Group; heap?: MemoryStats; chromium: Group };
/** What the embedded emulators hold: AWS's storage, kept in memory locally, not the service's. */
type Stored = { s3Objects: number; s3MiB: number; dynamoItems: number; sqsMessages: number };
/** Who holds the memory at a checkpoint. */
type Breakdown = { runtime: Group; runtimeHeap?: MemoryStats; helpers: Group; emulators: Group; emulatorsHeap?: MemoryStats; instances: InstanceFigures[]; stored: Stored };

const MiB = 1024 * 1024;
const round = (n: number) => Math.round(n);

function memoryOf(pid: number): Group {
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readOr(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
  const pss = Number(/^Pss:\s+(\d+) kB/m.exec(readOr(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0) / 1024;
  return { pssMiB: pss, rssMiB: rss, processes: rss > 0 ? 1 : 0 };
}

function add(a: Group, b: Group): Group {
  return { pssMiB: a.pssMiB + b.pssMiB, rssMiB: a.rssMiB + b.rssMiB, processes: a.processes + b.processes };
}

const EMPTY: Group = { pssMiB: 0, rssMiB: 0, processes: 0 };

function readStats(dir: string, pid: number): MemoryStats | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, `${pid}.json`), 'utf8')) as MemoryStats;
  } catch {
    return undefined;
  }
}

/** Items, objects and messages the emulators hold, read through the AWS APIs as any client would. */
async function storedData(stack: DevStack): Promise<Stored> {
  const common = { region: stack.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const dynamo = new DynamoDBClient({ ...common, endpoint: stack.endpoints.dynamodb });
  const s3 = new S3Client({ ...common, endpoint: stack.endpoints.s3, forcePathStyle: true });
  const sqs = new SQSClient({ ...common, endpoint: stack.endpoints.sqs, useQueueUrlAsEndpoint: false });
  const stored: Stored = { s3Objects: 0, s3MiB: 0, dynamoItems: 0, sqsMessages: 0 };
  try {
    for (const table of (await dynamo.send(new ListTablesCommand({}))).TableNames ?? []) {
      let start: Record<string, never> | undefined;
      do {
        const page = await dynamo.send(new ScanCommand({ TableName: table, Select: 'COUNT', ExclusiveStartKey: start }));
        stored.dynamoItems += page.Count ?? 0;
        start = page.LastEvaluatedKey as typeof start;
      } while (start);
    }
    let bytes = 0;
    for (const bucket of (await s3.send(new ListBucketsCommand({}))).Buckets ?? []) {
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket.Name, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          stored.s3Objects += 1;
          bytes += object.Size ?? 0;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    }
    stored.s3MiB = bytes / MiB;
    for (const url of (await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? []) {
      const { Attributes: a = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      stored.sqsMessages += Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(a.ApproximateNumberOfMessagesDelayed ?? 0);
    }
  } finally {
    dynamo.destroy();
    s3.destroy();
    sqs.destroy();
  }
  return stored;
}

/**
 * Splits the tree: npm start's own process (the runtime, with the embedded
 * emulators in it), its helpers (the instance reaper, esbuild), and each
 * function instance's node and Chromium.
 */
async function breakdown(rootPid: number, statsDir: string, stack: DevStack): Promise<Breakdown> {
  const tree = processTree(rootPid);
  const parent = new Map<number, number>();
  for (const pid of tree) {
    const stat = readOr(`/proc/${pid}/stat`);
    if (stat) parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const prefix = new RegExp(`^.*?-${stack.stage}-`);
  const instances: InstanceFigures[] = [];
  let helpers = EMPTY;
  let emulators = EMPTY;
  let emulatorsPid = 0;
  for (const pid of tree) {
    if (parent.get(pid) !== rootPid) continue;
    const cmdline = readOr(`/proc/${pid}/cmdline`);
    if (cmdline.includes('emulator-process')) {
      emulatorsPid = pid;
      for (const p of processTree(pid)) emulators = add(emulators, memoryOf(p));
      continue;
    }
    if (!cmdline.includes('lambda-instance')) {
      for (const p of processTree(pid)) helpers = add(helpers, memoryOf(p));
      continue;
    }
    const name = /(?:^|\0)AWS_LAMBDA_FUNCTION_NAME=([^\0]*)/.exec(readOr(`/proc/${pid}/environ`))?.[1] ?? '?';
    let chromium = EMPTY;
    for (const p of processTree(pid).slice(1)) chromium = add(chromium, memoryOf(p));
    instances.push({ pid, fn: name.replace(prefix, ''), node: memoryOf(pid), heap: readStats(statsDir, pid), chromium });
  }
  instances.sort((a, b) => a.fn.localeCompare(b.fn) || a.pid - b.pid);
  return {
    runtime: memoryOf(rootPid),
    runtimeHeap: readStats(statsDir, rootPid),
    helpers,
    emulators,
    emulatorsHeap: readStats(statsDir, emulatorsPid),
    instances,
    stored: await storedData(stack),
  };
}

/** The service's own memory: runtime, helpers, instances and their Chromium (PSS, MiB). */
const servicePss = (b: Breakdown) => round(b.runtime.pssMiB + b.helpers.pssMiB + b.instances.reduce((sum, i) => sum + i.node.pssMiB + i.chromium.pssMiB, 0));

function printBreakdown(b: Breakdown): void {
  const heap = (h?: MemoryStats) =>
    h
      ? `heap ${round(h.heapUsed / MiB)}/${round(h.heapTotal / MiB)} MiB (after full GC ${h.heapAfterMajorGc === undefined ? '?' : round(h.heapAfterMajorGc / MiB)}, young ${round((h.newSpace ?? 0) / MiB)}, limit ${round(h.heapLimit / MiB)}), external ${round(h.external / MiB)}`
      : 'heap ?';
  console.log(`    runtime (npm start) PSS ${round(b.runtime.pssMiB)} MiB, ${heap(b.runtimeHeap)}; helpers PSS ${round(b.helpers.pssMiB)} (${b.helpers.processes} processes)`);
  console.log(`    emulators (not the service) PSS ${round(b.emulators.pssMiB)} MiB, ${heap(b.emulatorsHeap)}; they hold: S3 ${b.stored.s3Objects} objects (${round(b.stored.s3MiB)} MiB), DynamoDB ${b.stored.dynamoItems} items, SQS ${b.stored.sqsMessages} messages`);
  for (const i of b.instances) {
    console.log(
      `    ${i.fn.padEnd(16)} pid ${String(i.pid).padStart(7)} invocations ${String(i.heap?.invocations ?? '?').padStart(4)}  node PSS ${String(round(i.node.pssMiB)).padStart(4)} ${heap(i.heap)}  ` +
        `Chromium PSS ${String(round(i.chromium.pssMiB)).padStart(4)} (${i.chromium.processes} processes)`,
    );
  }
  console.log(`    service PSS (runtime + helpers + instances + Chromium) ${servicePss(b)} MiB, of which instances' node ${round(b.instances.reduce((s, i) => s + i.node.pssMiB, 0))}, Chromium ${round(b.instances.reduce((s, i) => s + i.chromium.pssMiB, 0))}; ${b.instances.length} instances`);
}

/** The rise of the least-squares line through (x, y) from the first x to the last: growth, without one point's noise. */
function fittedGrowth(x: number[], y: number[]): number {
  const n = Math.min(x.length, y.length);
  if (n < 2) return 0;
  const mx = x.slice(0, n).reduce((a, b) => a + b, 0) / n;
  const my = y.slice(0, n).reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i += 1) {
    sxy += ((x[i] as number) - mx) * ((y[i] as number) - my);
    sxx += ((x[i] as number) - mx) ** 2;
  }
  return sxx === 0 ? 0 : (sxy / sxx) * ((x[n - 1] as number) - (x[0] as number));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);
}

const line = (label: string, s: Snapshot) =>
  `${label.padEnd(14)} RSS ${String(s.rssMiB).padStart(5)} MiB (PSS ${String(s.pssMiB).padStart(5)}, Chromium ${String(s.chromiumPssMiB).padStart(5)})  processes ${String(s.processes).padStart(3)} (Chromium ${String(s.chromiumProcesses).padStart(3)})  ` +
  `fds node ${String(s.nodeFds).padStart(4)} Chromium ${String(s.chromiumFds).padStart(4)} deleted ${String(s.deletedFds).padStart(3)}  tmp entries ${s.tmpEntries}`;

async function main(): Promise<void> {
  if (!Number.isInteger(RENDERS) || RENDERS < 20 || !Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
    throw new Error('--renders must be a whole number of at least 20 and --concurrency at least 1');
  }
  let hookDelayMs = 0;
  let pageDelayMs = 0;
  const article = html(ARTICLE);
  const waiters = new Map<string, (status: string) => void>();
  const early = new Map<string, string>();
  const server = await startTestServer({
    // Held a moment during the warm-up, so that an async job is still rendering when the next one's message comes.
    '/article': (req, res) => (pageDelayMs > 0 ? void setTimeout(() => article(req, res), pageDelayMs) : article(req, res)),
    '/hook': async (_req, res, body) => {
      // Held a moment during the warm-up, so that two deliveries overlap and start the second delivering instance there.
      if (hookDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, hookDelayMs));
      res.writeHead(204).end();
      const parsed = JSON.parse(body) as { id: string; status: string; error?: { code: string; message: string } };
      const { id } = parsed;
      // A failed job's reason comes with its status, for the report.
      const status = parsed.error ? `${parsed.status} ${parsed.error.code}: ${parsed.error.message}` : parsed.status;
      const waiter = waiters.get(id);
      if (waiter) waiter(status);
      else early.set(id, status);
    },
  });
  // The service's own temporary directory: /tmp entries of this run only (other programs use /tmp too).
  const tmp = mkdtempSync(join(tmpdir(), 'docrender-soak-'));
  const stacks = mkdtempSync(join(tmpdir(), 'docrender-soak-stacks-'));
  // Where the runtime and each instance write their own heap figures (outside TMPDIR, whose entries are counted).
  const statsDir = mkdtempSync(join(tmpdir(), 'docrender-soak-heaps-'));
  const token = randomBytes(24).toString('base64url');
  const service = await startService({
    DEV_TOKEN: token,
    DEV_STACKS_DIR: stacks,
    DEV_STACK_FILE: join(stacks, 'dev-stack.json'),
    TMPDIR: tmp,
    ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    [MEMORY_STATS_DIR_VARIABLE]: statsDir,
    // The emulators in a process of their own: what they store is AWS's, not the service's memory.
    LOCAL_EMULATORS_APART: '1',
  }, [
    // No instance is stopped for being idle during the run: the same instances are compared from the warm-up to the
    // end (a second instance that served only warm-up renders would otherwise be stopped after 5 minutes, a drop
    // that would hide growth elsewhere).
    '--idle-seconds',
    '86400',
  ]);
  const stack = liveDevStacks({ DEV_STACK_FILE: join(stacks, 'dev-stack.json'), DEV_STACKS_DIR: stacks })[0];
  const rootPid = stack?.pid;
  const pageUrl = `${server.url}/article`;
  const hookUrl = `${server.url}/hook`;
  const latencies: number[] = [];
  const failures: string[] = [];
  const perKind = new Map<string, number[]>();

  const renderOne = async (index: number, kind = KINDS[index % KINDS.length] as Kind) => {
    const started = performance.now();
    const response = await service.request(kind.path, { json: kind.body(pageUrl, hookUrl), token });
    const body = Buffer.from(await response.arrayBuffer());
    const expected = kind.async ? 201 : 200;
    if (response.status !== expected) {
      failures.push(`#${index} ${kind.name}: ${response.status} ${body.toString('utf8').slice(0, 200)}`);
      return;
    }
    if (kind.async) {
      const { id } = JSON.parse(body.toString('utf8')) as { id: string };
      const status = await new Promise<string>((resolve) => {
        const known = early.get(id);
        if (known) return resolve(known);
        const timer = setTimeout(() => resolve('NO WEBHOOK'), WEBHOOK_LIMIT_MS);
        waiters.set(id, (value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
      waiters.delete(id);
      early.delete(id);
      if (status !== 'COMPLETED') failures.push(`#${index} ${kind.name}: job ${id} ${status}`);
    }
    const ms = performance.now() - started;
    latencies[index] = ms;
    const list = perKind.get(kind.name) ?? [];
    list.push(ms);
    perKind.set(kind.name, list);
  };

  /** Renders [from, to) with CONCURRENCY in flight; returns once all have ended. */
  const drive = async (from: number, to: number) => {
    let next = from;
    const lane = async () => {
      while (next < to) {
        const index = next;
        next += 1;
        await renderOne(index).catch((error: unknown) => failures.push(`#${index}: ${(error as Error).message}`));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  };
  /** In-flight renders have ended; what they left (contexts closing) gets a moment before it is counted. */
  const settled = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const s = snapshot(rootPid as number, tmp);
    const b = await breakdown(rootPid as number, statsDir, stack as DevStack);
    breakdowns.push(b);
    return s;
  };
  const breakdowns: Breakdown[] = [];

  const runStarted = performance.now();
  try {
    if (!rootPid) throw new Error('could not find npm start\'s pid');
    console.log(`Soak: ${RENDERS} renders (${KINDS.map((k) => k.name).join(', ')}), ${CONCURRENCY} in flight, warm-up ${WARMUP}`);
    console.log(line('started', snapshot(rootPid, tmp)));
    // One render of each kind alone first, so that every function's cold start (an instance and its
    // Chromium) lands before the warm-up's measurements rather than in them.
    for (let index = 0; index < KINDS.length; index += 1) await renderOne(index).catch((error: unknown) => failures.push(`#${index}: ${(error as Error).message}`));
    // Then each kind twice at once: with 2 renders in flight every function runs 2 instances at times, and
    // the second instance (and its Chromium) must start here, not after the warm-up where it would look like growth.
    // An async kind gets a second pair sent 300 ms apart, with the page held a second: the first pair, at once, starts
    // the second accepting instance, but its two messages may be taken in one batch and run in one instance; apart,
    // the second comes while the first still renders and starts the second jobs-consume instance.
    let index = KINDS.length;
    hookDelayMs = 1_000;
    pageDelayMs = 1_000;
    const one = (i: number, kind: Kind) => renderOne(i, kind).catch((error: unknown) => failures.push(`#${i}: ${(error as Error).message}`));
    const pair = async (kind: Kind, apartMs: number) => {
      const first = index;
      index += 2;
      await Promise.all([one(first, kind), new Promise((resolve) => setTimeout(resolve, apartMs)).then(() => one(first + 1, kind))]);
    };
    for (const kind of KINDS) {
      await pair(kind, 0);
      if (kind.async) await pair(kind, 300);
    }
    hookDelayMs = 0;
    pageDelayMs = 0;
    await drive(index, WARMUP);
    const warm = await settled();
    console.log(line(`after ${WARMUP}`, warm));
    printBreakdown(breakdowns.at(-1) as Breakdown);
    const snapshots: Snapshot[] = [warm];
    const checkpoints = [WARMUP];
    for (let from = WARMUP; from < RENDERS; ) {
      const to = Math.min(RENDERS, Math.floor(from / CHECKPOINT) * CHECKPOINT + CHECKPOINT);
      await drive(from, to);
      const s = await settled();
      snapshots.push(s);
      checkpoints.push(to);
      console.log(line(`after ${to}`, s));
      printBreakdown(breakdowns.at(-1) as Breakdown);
      from = to;
    }
    const end = snapshots.at(-1) as Snapshot;
    const first = latencies.slice(WARMUP, WARMUP + WINDOW).filter((ms) => ms !== undefined);
    const last = latencies.slice(RENDERS - WINDOW).filter((ms) => ms !== undefined);
    const p99First = percentile(first, 99);
    const p99Last = percentile(last, 99);
    const range = (pick: (s: Snapshot) => number) => `${Math.min(...snapshots.map(pick))}–${Math.max(...snapshots.map(pick))}`;
    console.log('');
    console.log(`Renders: ${RENDERS}, failed ${failures.length}, in ${Math.round((performance.now() - runStarted) / 1000)} s`);
    console.log(`Latency (ms), first ${WINDOW} after warm-up: p50 ${percentile(first, 50)} p99 ${p99First}; last ${WINDOW}: p50 ${percentile(last, 50)} p99 ${p99Last} (${(p99Last / p99First).toFixed(2)}×)`);
    for (const [name, list] of perKind) console.log(`  ${name.padEnd(16)} p50 ${percentile(list, 50)} p99 ${percentile(list, 99)} (${list.length})`);
    // Raw and sync renders answer with the file: their latency is the render's. An async one's is its webhook's arrival.
    const direct = latencies.flatMap((ms, index) => (ms !== undefined && !(KINDS[index % KINDS.length] as Kind).async ? [{ ms, index }] : []));
    const slowest = direct.reduce<{ ms: number; index: number } | undefined>((max, r) => (max && max.ms >= r.ms ? max : r), undefined);
    const overLimit = direct.filter((r) => r.ms > SLOW_RENDER_MS);
    console.log(
      `Slowest raw or sync render: ${slowest ? `${Math.round(slowest.ms)} ms (#${slowest.index} ${(KINDS[slowest.index % KINDS.length] as Kind).name})` : 'none'}; ` +
        `over ${SLOW_RENDER_MS / 1000} s: ${overLimit.length} of ${direct.length}${overLimit.length > 0 ? ` (${overLimit.slice(0, 10).map((r) => `#${r.index} ${Math.round(r.ms)} ms`).join(', ')})` : ''}`,
    );
    console.log(`RSS after warm-up ${warm.rssMiB} MiB, at the end ${end.rssMiB} MiB (growth ${end.rssMiB - warm.rssMiB} MiB); ` +
      `PSS ${warm.pssMiB} → ${end.pssMiB} MiB (growth ${end.pssMiB - warm.pssMiB} MiB)`);
    const warmB = breakdowns[0] as Breakdown;
    const endB = breakdowns.at(-1) as Breakdown;
    const sum = (b: Breakdown, pick: (i: InstanceFigures) => number) => round(b.instances.reduce((total, i) => total + pick(i), 0));
    const heapUsed = (b: Breakdown) => sum(b, (i) => (i.heap?.heapUsed ?? 0) / MiB);
    const heapLive = (b: Breakdown) => sum(b, (i) => (i.heap?.heapAfterMajorGc ?? 0) / MiB);
    const heapTotal = (b: Breakdown) => sum(b, (i) => (i.heap?.heapTotal ?? 0) / MiB);
    const young = (b: Breakdown) => sum(b, (i) => (i.heap?.newSpace ?? 0) / MiB);
    // Growth as the trend of every checkpoint (least squares), beside the two ends: a checkpoint that lands just
    // after browsers were replaced, or with more renderer processes alive, moves a group by ±100 MiB on its own.
    const trend = (pick: (b: Breakdown) => number) => round(fittedGrowth(checkpoints, breakdowns.map(pick)));
    const serviceTrend = trend(servicePss);
    const newInstances = endB.instances.filter((i) => !warmB.instances.some((w) => w.pid === i.pid));
    console.log(
      `Service PSS (runtime, helpers, instances and their Chromium) at the checkpoints: ${breakdowns.map(servicePss).join(', ')} MiB; ` +
        `growth ${servicePss(endB) - servicePss(warmB)} MiB end to end, ${serviceTrend} MiB by the trend ` +
        `(runtime ${trend((b) => b.runtime.pssMiB)}, instances' node ${trend((b) => sum(b, (i) => i.node.pssMiB))}, Chromium ${trend((b) => sum(b, (i) => i.chromium.pssMiB))}; ` +
        `emulators apart ${trend((b) => b.emulators.pssMiB)}); instances started after the warm-up: ${newInstances.map((i) => i.fn).join(', ') || 'none'}`,
    );
    console.log(
      `By group, PSS after warm-up → end (MiB): service ${servicePss(warmB)} → ${servicePss(endB)} (growth ${servicePss(endB) - servicePss(warmB)}); ` +
        `runtime ${round(warmB.runtime.pssMiB)} → ${round(endB.runtime.pssMiB)}; helpers ${round(warmB.helpers.pssMiB)} → ${round(endB.helpers.pssMiB)}; ` +
        `instances' node ${sum(warmB, (i) => i.node.pssMiB)} → ${sum(endB, (i) => i.node.pssMiB)} (V8 heap used ${heapUsed(warmB)} → ${heapUsed(endB)}, after the last full GC ${heapLive(warmB)} → ${heapLive(endB)}, total ${heapTotal(warmB)} → ${heapTotal(endB)} of which young generation ${young(warmB)} → ${young(endB)}); ` +
        `Chromium ${sum(warmB, (i) => i.chromium.pssMiB)} → ${sum(endB, (i) => i.chromium.pssMiB)}; instances ${warmB.instances.length} → ${endB.instances.length}`,
    );
    console.log(
      `Emulators (AWS's storage, not the service): PSS ${round(warmB.emulators.pssMiB)} → ${round(endB.emulators.pssMiB)} MiB; S3 ${warmB.stored.s3Objects} → ${endB.stored.s3Objects} objects (${round(warmB.stored.s3MiB)} → ${round(endB.stored.s3MiB)} MiB), ` +
        `DynamoDB ${warmB.stored.dynamoItems} → ${endB.stored.dynamoItems} items, SQS ${warmB.stored.sqsMessages} → ${endB.stored.sqsMessages} messages`,
    );
    console.log(`Across checkpoints: Chromium fds ${range((s) => s.chromiumFds)}, node fds ${range((s) => s.nodeFds)}, deleted-file fds ${range((s) => s.deletedFds)}, ` +
      `processes ${range((s) => s.processes)}, Chromium processes ${range((s) => s.chromiumProcesses)}, tmp entries ${range((s) => s.tmpEntries)}`);
    const verdicts = [
      // PSS: the RSS sum counts Chromium's shared pages once per process, so it moves with how many renderer processes happen to be alive.
      // The service's own: the emulators hold what AWS would store (every file and job record), reported apart above.
      ['service memory growth (PSS, trend over the checkpoints) < 100 MiB', serviceTrend < 100],
      ['p99 of the last within 1.2× of the first', p99Last <= 1.2 * p99First],
      ['no failed render', failures.length === 0],
      [`no raw or sync render over ${SLOW_RENDER_MS / 1000} s`, overLimit.length === 0],
    ] as const;
    for (const [label, ok] of verdicts) console.log(`${ok ? 'PASS' : 'FAIL'} ${label}`);
    for (const failure of failures.slice(0, 20)) console.log(`  ${failure}`);
    if (failures.length > 0) {
      const log = service.output().split('\n');
      const errors = log.filter((l) => /error|timed out|exited|unhandled/i.test(l));
      console.log(`Service log, error lines (${errors.length}):`);
      for (const l of errors.slice(0, 15)) console.log(`  ${l.slice(0, 400)}`);
      // What the service logged about each failed job, whatever its level.
      for (const id of failures.flatMap((f) => /job (\S+)/.exec(f)?.[1] ?? [])) {
        for (const l of log.filter((entry) => entry.includes(id)).slice(0, 10)) console.log(`  ${id}: ${l.slice(0, 600)}`);
      }
    }
    if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await service.stop();
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
    rmSync(stacks, { recursive: true, force: true });
    rmSync(statsDir, { recursive: true, force: true });
  }
}

/** The mix of the acceptance run: the request of issue 25 first, then the other outputs and sources, all sync with an upload. */
const SYNC_UPLOAD_KINDS: Array<{ name: string; path: string; body: (pageUrl: string) => Record<string, unknown> }> = [
  { name: 'jpeg 300x200 html', path: '/v1/screenshot/sync', body: () => ({ page: { html: b64(SMALL) }, screenshot: { type: 'jpeg', viewport: { width: 300, height: 200 } } }) },
  { name: 'pdf html', path: '/v1/pdf/sync', body: () => ({ page: { html: b64(SMALL) } }) },
  { name: 'png url', path: '/v1/screenshot/sync', body: (page) => ({ page: { url: page }, screenshot: { type: 'png' } }) },
  { name: 'pdf url', path: '/v1/pdf/sync', body: (page) => ({ page: { url: page } }) },
  { name: 'webp html full', path: '/v1/screenshot/sync', body: () => ({ page: { html: b64(ARTICLE) }, screenshot: { type: 'webp', fullPage: true } }) },
  { name: 'pdf multi-page', path: '/v1/pdf/sync', body: () => ({ page: { html: b64(MULTI_PAGE) } }) },
];

/**
 * The acceptance run of issue 25: RENDERS consecutive sync renders of the
 * mix above through `npm start`, each PUT to a pre-signed URL served here
 * (loopback), one at a time. Every render must answer 200 with
 * `signedUrlStatus: "UPLOADED"` and its file must arrive; it reports the
 * slowest and each one over SLOW_RENDER_MS, with what the service logged.
 */
async function syncUploadRun(): Promise<void> {
  const uploads = new Map<string, number>();
  const server = await startTestServer({
    '/article': html(ARTICLE),
    '/upload': (req, res, body) => {
      uploads.set(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '', Buffer.byteLength(body));
      res.writeHead(200).end();
    },
  });
  const token = randomBytes(24).toString('base64url');
  const service = await startService({ DEV_TOKEN: token, ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const results: Array<{ index: number; kind: string; ms: number }> = [];
  const failures: string[] = [];
  const started = performance.now();
  try {
    console.log(`Sync renders with uploads: ${RENDERS} one after the other (${SYNC_UPLOAD_KINDS.map((k) => k.name).join(', ')})`);
    // Each function's cold start (its instance and Chromium) comes first, apart: Lambda's INIT is not a render.
    const cold: string[] = [];
    for (const kind of SYNC_UPLOAD_KINDS.slice(0, 2)) {
      const t0 = performance.now();
      const response = await service.request(kind.path, { json: { ...kind.body(`${server.url}/article`), storage: { preSignedUrl: `${server.url}/upload?n=cold` } }, token });
      await response.arrayBuffer();
      cold.push(`${kind.path} ${response.status} in ${Math.round(performance.now() - t0)} ms`);
    }
    console.log(`Cold starts (not counted): ${cold.join('; ')}`);
    for (let index = 0; index < RENDERS; index += 1) {
      const kind = SYNC_UPLOAD_KINDS[index % SYNC_UPLOAD_KINDS.length] as (typeof SYNC_UPLOAD_KINDS)[number];
      const body = { ...kind.body(`${server.url}/article`), storage: { preSignedUrl: `${server.url}/upload?n=${index}` } };
      const t0 = performance.now();
      const response = await service.request(kind.path, { json: body, token });
      const text = await response.text();
      const ms = performance.now() - t0;
      results.push({ index, kind: kind.name, ms });
      const answer = (() => {
        try {
          return JSON.parse(text) as { signedUrlStatus?: string };
        } catch {
          return {};
        }
      })();
      if (response.status !== 200 || answer.signedUrlStatus !== 'UPLOADED' || !(uploads.get(String(index)) ?? 0)) {
        failures.push(`#${index} ${kind.name}: ${response.status} ${text.slice(0, 200)}`);
      }
      if ((index + 1) % 100 === 0) {
        const slowest = Math.max(...results.map((r) => r.ms));
        console.log(`  ${index + 1} renders, slowest so far ${Math.round(slowest)} ms, over ${SLOW_RENDER_MS / 1000} s ${results.filter((r) => r.ms > SLOW_RENDER_MS).length}, failed ${failures.length}`);
      }
    }
    const slow = results.filter((r) => r.ms > SLOW_RENDER_MS);
    const slowest = results.reduce((max, r) => (r.ms > max.ms ? r : max));
    const ms = results.map((r) => r.ms);
    console.log('');
    console.log(`Renders: ${results.length}, failed ${failures.length}, in ${Math.round((performance.now() - started) / 1000)} s`);
    console.log(`Latency (ms): p50 ${percentile(ms, 50)} p99 ${percentile(ms, 99)}; slowest ${Math.round(slowest.ms)} (#${slowest.index} ${slowest.kind}); over ${SLOW_RENDER_MS / 1000} s: ${slow.length}`);
    for (const kind of SYNC_UPLOAD_KINDS) {
      const list = results.filter((r) => r.kind === kind.name).map((r) => r.ms);
      console.log(`  ${kind.name.padEnd(18)} p50 ${percentile(list, 50)} p99 ${percentile(list, 99)} max ${Math.round(Math.max(...list))} (${list.length})`);
    }
    for (const r of slow.slice(0, 20)) console.log(`  slow: #${r.index} ${r.kind} ${Math.round(r.ms)} ms`);
    for (const failure of failures.slice(0, 20)) console.log(`  failed: ${failure}`);
    if (slow.length > 0 || failures.length > 0) {
      // The request lines of slow or failed renders name their timings, and a step that ran out of time.
      const lines = service.output().split('\n').flatMap((l) => {
        try {
          const entry = JSON.parse(l) as { message?: string; path?: string; status?: number; durationMs?: number; timings?: unknown; step?: string; stepElapsedMs?: number };
          if (entry.message !== 'request' || ((entry.durationMs ?? 0) <= SLOW_RENDER_MS && (entry.status ?? 0) < 500)) return [];
          return [JSON.stringify({ path: entry.path, status: entry.status, durationMs: entry.durationMs, timings: entry.timings, step: entry.step, stepElapsedMs: entry.stepElapsedMs })];
        } catch {
          return /timed out|error/i.test(l) ? [l.slice(0, 400)] : [];
        }
      });
      console.log(`Service log, slow or failed requests (${lines.length}):`);
      for (const l of lines.slice(0, 30)) console.log(`  ${l}`);
    }
    const verdicts = [
      [`no render over ${SLOW_RENDER_MS / 1000} s`, slow.length === 0],
      ['no failed render or upload', failures.length === 0],
    ] as const;
    for (const [label, ok] of verdicts) console.log(`${ok ? 'PASS' : 'FAIL'} ${label}`);
    if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await service.stop();
    await server.close();
  }
}

(SYNC_UPLOADS ? syncUploadRun() : main()).catch((error: unknown) => {
  console.error(`soak failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
