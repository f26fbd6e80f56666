/**
 * The bare Puppeteer side of the benchmark, run as its own process (as the
 * service is): `puppeteer-core` driving the same `@sparticuz/chromium` binary
 * with the same launch flags as the service, and nothing else. Driven over
 * IPC by `bench/run.ts`.
 */
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumArgs } from '../lib/render/browser/launch-args.js';
import type { BareJob } from './scenarios.js';

export type Isolation = 'context' | 'page';

export type WorkerRequest =
  | { id: number; op: 'launch' }
  /**
   * `answerFirst`: answer as soon as the file is in hand and leave the context closing, as the fastest
   * bare Lambda handler would (the bench freezes the tree on the answer, so the close finishes in the next
   * invocation, as the service's own clean-up does). Otherwise the close is awaited before the answer.
   */
  | { id: number; op: 'render'; job: BareJob; isolation: Isolation; answerFirst?: boolean }
  | { id: number; op: 'throughput'; job: BareJob; isolation: Isolation; concurrency: number; count: number }
  | { id: number; op: 'close' };

export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export type RenderOutcome = { ms: number; bytes: number };
export type ThroughputOutcome = { elapsedMs: number; count: number; failures: number };

let browser: Browser | undefined;
/** Pages kept open for the reused-page reference, one per concurrent loop. */
const reused: Page[] = [];

async function launch(): Promise<{ launchMs: number; version: string }> {
  const started = performance.now();
  browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: 'shell',
    args: chromiumArgs(chromium.args, 'multi-process'),
    pipe: true,
  });
  return { launchMs: Math.round(performance.now() - started), version: await browser.version() };
}

async function load(page: Page, job: BareJob): Promise<void> {
  if (job.output.kind === 'screenshot') await page.setViewport(job.output.viewport);
  if ('html' in job.source) await page.setContent(job.source.html, { waitUntil: 'load' });
  else await page.goto(job.source.url, { waitUntil: job.waitUntil });
}

async function produce(page: Page, job: BareJob): Promise<Uint8Array> {
  return job.output.kind === 'pdf' ? await page.pdf(job.output.options) : await page.screenshot(job.output.options);
}

/**
 * One render; the time ends when the file is in hand. A fresh context is
 * closed after that: awaited before the answer, as a plain loop would, or left
 * closing when `answerFirst`.
 */
async function render(job: BareJob, isolation: Isolation, slot = 0, answerFirst = false): Promise<RenderOutcome> {
  if (!browser) throw new Error('not launched');
  if (isolation === 'page') {
    reused[slot] ??= await browser.newPage();
    const page = reused[slot] as Page;
    const started = performance.now();
    await load(page, job);
    const data = await produce(page, job);
    return { ms: performance.now() - started, bytes: data.byteLength };
  }
  const started = performance.now();
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await load(page, job);
    const data = await produce(page, job);
    return { ms: performance.now() - started, bytes: data.byteLength };
  } finally {
    if (answerFirst) void context.close().catch(() => undefined);
    else await context.close();
  }
}

async function throughput(job: BareJob, isolation: Isolation, concurrency: number, count: number): Promise<ThroughputOutcome> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, slot) => {
      while (next < count) {
        next += 1;
        try {
          await render(job, isolation, slot);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  return { elapsedMs: performance.now() - started, count, failures };
}

async function handle(request: WorkerRequest): Promise<unknown> {
  switch (request.op) {
    case 'launch':
      return await launch();
    case 'render':
      return await render(request.job, request.isolation, 0, request.answerFirst);
    case 'throughput':
      return await throughput(request.job, request.isolation, request.concurrency, request.count);
    case 'close':
      await browser?.close();
      setImmediate(() => process.exit(0));
      return {};
  }
}

process.on('message', (message: WorkerRequest) => {
  handle(message).then(
    (result) => process.send?.({ id: message.id, ok: true, result } satisfies WorkerReply),
    (error: unknown) => process.send?.({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) } satisfies WorkerReply),
  );
});
process.on('disconnect', () => {
  void browser?.close().finally(() => process.exit(0));
});
