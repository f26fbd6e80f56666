/**
 * `npm run bench:isolation [-- --runs N]`: what a fresh isolated context
 * costs Chromium in CPU time, against rendering in a page that is reused.
 * Bare `puppeteer-core` on the service's Chromium binary and launch flags, no
 * CPU limit, one thing at a time, a pause after each so that Chromium's own
 * follow-up work (closing a renderer process) lands in the same reading:
 *
 *   reused page       setContent + pdf() of the small invoice in one page kept open
 *   fresh context     a new incognito context and page, the same render, the context closed
 *   context only      a new incognito context and page (about:blank), closed again
 *   closing           closing a context in which the small invoice was rendered
 *   PNG, reused page  setContent + a 1280×800 PNG (as the bench's png-1280x800) in a page kept open
 *   PNG, fresh page   the same in a fresh context's page opened (and closed) outside the reading:
 *                     what isolation leaves on a screenshot however early its context is opened
 *
 * `--memory <MB>` runs this process and Chromium under that memory size's
 * CPU share (as the bench's Lambda-like runs; needs the cgroup filesystem),
 * where wall time, not CPU, is the figure to read.
 *
 * `--drop=<flag>` (repeatable) launches without one of the service's flags,
 * to see what it changes: `--drop=--disable-gpu-compositing` shows what
 * compositing on SwiftShader costs, mostly in closing.
 *
 * CPU is read from /proc: the browser process's own time, and its children's
 * (renderer and other helper processes, alive or already reaped). Under a
 * frozen Lambda's CPU share a render can never take less wall time than its
 * CPU time divided by that share, which is what makes the cost of isolation
 * visible whatever else overlaps it.
 */
import { parseArgs } from 'node:util';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { chromiumArgs } from '../lib/render/browser/launch-args.js';
import { SMALL_HTML } from './pages.js';
import { processTree } from '../scripts/local-runtime/process-tree.js';
import { processCpuMs } from './process-memory.js';
import { MB_PER_VCPU, openCpuShare } from './cpu-share.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, drop: { type: 'string', multiple: true, default: [] }, memory: { type: 'string' } }, strict: true });
const RUNS = Number(values.runs);
const PAUSE_MS = 300;
const PDF = { format: 'letter', tagged: false, printBackground: false } as const;
type Reading = { browser: number; children: number };

/** CPU ms of the browser process itself and of every process below it, reaped ones included. */
function read(browserPid: number): Reading {
  let browser = 0;
  let children = 0;
  for (const pid of processTree(browserPid)) {
    const { own, reaped } = processCpuMs(pid);
    if (pid === browserPid) browser += own;
    else children += own;
    children += reaped;
  }
  return { browser, children };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `once` RUNS times after 3 unmeasured ones, a pause after each. `prepare` runs before each
 * one and `cleanup` after it, both outside the readings (opening a page to render in, closing it).
 */
async function measure<T>(
  name: string,
  browser: Browser,
  once: (prepared: T) => Promise<void>,
  prepare: () => Promise<T> = async () => undefined as T,
  cleanup: (prepared: T) => Promise<void> = async () => undefined,
) {
  const pid = browser.process()?.pid as number;
  for (let i = 0; i < 3; i += 1) {
    const prepared = await prepare();
    await once(prepared);
    await cleanup(prepared);
  }
  let browserMs = 0;
  let childrenMs = 0;
  const wall: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const prepared = await prepare();
    await sleep(PAUSE_MS);
    const before = read(pid);
    const started = performance.now();
    await once(prepared);
    wall.push(performance.now() - started);
    await sleep(PAUSE_MS);
    const after = read(pid);
    browserMs += (after.browser - before.browser) / RUNS;
    childrenMs += (after.children - before.children) / RUNS;
    await cleanup(prepared);
  }
  wall.sort((a, b) => a - b);
  return {
    name,
    browserMs: Math.round(browserMs),
    childrenMs: Math.round(childrenMs),
    totalMs: Math.round(browserMs + childrenMs),
    wallMedianMs: Math.round(wall[Math.floor(wall.length / 2)] as number),
  };
}

const share = values.memory ? openCpuShare('isolation') : undefined;
if (values.memory && !share) throw new Error('--memory needs write access to the cgroup filesystem');
const browser = await puppeteer.launch({
  executablePath: await chromium.executablePath(),
  headless: 'shell',
  args: chromiumArgs(chromium.args, 'multi-process').filter((arg) => !values.drop.includes(arg)),
  pipe: true,
});
const VIEWPORT = { width: 1280, height: 800 };
const PNG = { type: 'png', optimizeForSpeed: true } as const;
try {
  share?.limit(Number(values.memory) / MB_PER_VCPU);
  share?.add([process.pid, browser.process()?.pid as number]);
  const page: Page = await browser.newPage();
  const pngPage: Page = await browser.newPage();
  await pngPage.setViewport(VIEWPORT);
  const rows = [
    await measure('reused page', browser, async () => {
      await page.setContent(SMALL_HTML, { waitUntil: 'load' });
      await page.pdf(PDF);
    }),
    await measure('fresh context', browser, async () => {
      const context = await browser.createBrowserContext();
      const fresh = await context.newPage();
      await fresh.setContent(SMALL_HTML, { waitUntil: 'load' });
      await fresh.pdf(PDF);
      await context.close();
    }),
    await measure('context only', browser, async () => {
      const context = await browser.createBrowserContext();
      await context.newPage();
      await context.close();
    }),
    await measure(
      'closing',
      browser,
      (context: BrowserContext) => context.close(),
      async () => {
        const context = await browser.createBrowserContext();
        const fresh = await context.newPage();
        await fresh.setContent(SMALL_HTML, { waitUntil: 'load' });
        await fresh.pdf(PDF);
        return context;
      },
    ),
    await measure('PNG, reused page', browser, async () => {
      await pngPage.setContent(SMALL_HTML, { waitUntil: 'load' });
      await pngPage.screenshot(PNG);
    }),
    await measure(
      'PNG, fresh page',
      browser,
      async (fresh: Page) => {
        await fresh.setContent(SMALL_HTML, { waitUntil: 'load' });
        await fresh.screenshot(PNG);
      },
      async () => {
        const context = await browser.createBrowserContext();
        const fresh = await context.newPage();
        await fresh.setViewport(VIEWPORT);
        return fresh;
      },
      (fresh: Page) => fresh.browserContext().close(),
    ),
  ];
  const limit = values.memory ? `under the CPU share of ${values.memory} MB` : 'no CPU limit';
  console.log(`CPU per iteration, ms (mean of ${RUNS}; browser process / its renderer and helper processes / total), and wall-time median; ${limit}`);
  console.log('| What | Browser | Renderer & helpers | Total CPU | Wall median |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.name} | ${r.browserMs} | ${r.childrenMs} | ${r.totalMs} | ${r.wallMedianMs} |`);
} finally {
  await browser.close();
  share?.close();
}
