/**
 * `npm run soak [-- --renders N] [--concurrency N]`: drives the local stack
 * (npm start's path: emulators, the Lambda runtime, real Chromium) with a long
 * run of mixed renders and prints what would show a leak: resident memory of
 * the whole service tree, open descriptors (node's and Chromium's, and those
 * on deleted files), entries in the service's temporary directory, Chromium
 * processes, and the latency of the first and the last quarter (at most 500
 * renders each). Loopback traffic only: the pages and the webhook receiver are
 * served here. A script, not a test: the figures go in the README.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { processTree } from '../lib/local/process-tree.js';
import { liveDevStacks } from '../lib/local/dev-stack.js';
import { b64, startService } from '../test/helpers/service.js';
import { html, startTestServer } from '../test/helpers/test-server.js';

const { values } = parseArgs({
  options: {
    renders: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '2' },
    warmup: { type: 'string' },
  },
  strict: true,
});
const RENDERS = Number(values.renders);
const CONCURRENCY = Number(values.concurrency);
// Every function has started its instances and Chromium, and each browser has served a few renders.
const WARMUP = values.warmup ? Number(values.warmup) : Math.min(100, Math.floor(RENDERS / 10));
/** The first and last renders compared for latency: a quarter of the run, at most 500. */
const WINDOW = Math.min(500, Math.floor((RENDERS - WARMUP) / 2), Math.ceil(RENDERS / 4));
/** A state snapshot is printed every this many renders (the run pauses to let in-flight renders end first). */
const CHECKPOINT = 250;
/** An async job's webhook must come within this long. */
const WEBHOOK_LIMIT_MS = 120_000;

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
  const waiters = new Map<string, (status: string) => void>();
  const early = new Map<string, string>();
  const server = await startTestServer({
    '/article': html(ARTICLE),
    '/hook': (_req, res, body) => {
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
  const token = randomBytes(24).toString('base64url');
  const service = await startService({ DEV_TOKEN: token, DEV_STACKS_DIR: stacks, DEV_STACK_FILE: join(stacks, 'dev-stack.json'), TMPDIR: tmp, ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const rootPid = liveDevStacks({ DEV_STACK_FILE: join(stacks, 'dev-stack.json'), DEV_STACKS_DIR: stacks })[0]?.pid;
  const pageUrl = `${server.url}/article`;
  const hookUrl = `${server.url}/hook`;
  const latencies: number[] = [];
  const failures: string[] = [];
  const perKind = new Map<string, number[]>();

  const renderOne = async (index: number) => {
    const kind = KINDS[index % KINDS.length] as Kind;
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
    return snapshot(rootPid as number, tmp);
  };

  const runStarted = performance.now();
  try {
    if (!rootPid) throw new Error('could not find npm start\'s pid');
    console.log(`Soak: ${RENDERS} renders (${KINDS.map((k) => k.name).join(', ')}), ${CONCURRENCY} in flight, warm-up ${WARMUP}`);
    console.log(line('started', snapshot(rootPid, tmp)));
    // One render of each kind alone first, so that every function's cold start (an instance and its
    // Chromium) lands before the warm-up's measurements rather than in them.
    for (let index = 0; index < KINDS.length; index += 1) await renderOne(index).catch((error: unknown) => failures.push(`#${index}: ${(error as Error).message}`));
    await drive(KINDS.length, WARMUP);
    const warm = await settled();
    console.log(line(`after ${WARMUP}`, warm));
    const snapshots: Snapshot[] = [warm];
    for (let from = WARMUP; from < RENDERS; ) {
      const to = Math.min(RENDERS, Math.floor(from / CHECKPOINT) * CHECKPOINT + CHECKPOINT);
      await drive(from, to);
      const s = await settled();
      snapshots.push(s);
      console.log(line(`after ${to}`, s));
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
    console.log(`RSS after warm-up ${warm.rssMiB} MiB, at the end ${end.rssMiB} MiB (growth ${end.rssMiB - warm.rssMiB} MiB); ` +
      `PSS ${warm.pssMiB} → ${end.pssMiB} MiB (growth ${end.pssMiB - warm.pssMiB} MiB)`);
    console.log(`Across checkpoints: Chromium fds ${range((s) => s.chromiumFds)}, node fds ${range((s) => s.nodeFds)}, deleted-file fds ${range((s) => s.deletedFds)}, ` +
      `processes ${range((s) => s.processes)}, Chromium processes ${range((s) => s.chromiumProcesses)}, tmp entries ${range((s) => s.tmpEntries)}`);
    const verdicts = [
      // PSS: the RSS sum counts Chromium's shared pages once per process, so it moves with how many renderer processes happen to be alive.
      ['memory growth (PSS) < 100 MiB', end.pssMiB - warm.pssMiB < 100],
      ['p99 of the last within 1.2× of the first', p99Last <= 1.2 * p99First],
      ['no failed render', failures.length === 0],
    ] as const;
    for (const [label, ok] of verdicts) console.log(`${ok ? 'PASS' : 'FAIL'} ${label}`);
    for (const failure of failures.slice(0, 20)) console.log(`  ${failure}`);
    if (failures.length > 0) {
      const errors = service.output().split('\n').filter((l) => /Error|timed out|exited|Unhandled/.test(l));
      console.log(`Service log, error lines (${errors.length}):`);
      for (const l of errors.slice(0, 15)) console.log(`  ${l.slice(0, 400)}`);
    }
    if (verdicts.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await service.stop();
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
    rmSync(stacks, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`soak failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
