/**
 * `npx tsx bench/url-phases.ts [--rounds N] [--only a,b]`: where a `page.url`
 * render's time goes, part by part, on the bench's URL page (bench/pages.ts:
 * a stylesheet, an image, a script that fetches a paragraph after the load
 * event). In one process, without the Lambda-like freezing and CPU share of
 * `npm run bench`, the variants take turns in every round (rotating order):
 *
 * - bare Puppeteer (fresh context, `goto(load)`, `pdf()`), then the same with
 *   what the service adds one part at a time: the egress proxy, request
 *   interception, the `auto` wait's tracker script, the cookie-banner engine;
 * - the renderer itself (`load` with and without the ad blocker and its
 *   cookie-banner companion, and `auto`), with its phase timings, each wait
 *   step on its own (settle, banners, adHiding).
 *
 * The renderer opens its next session alongside each render here (no
 * post-response phase), so its `navigate` is slower than in `npm run bench`:
 * compare the bare rows with each other, and the renderer's rows with each other.
 */
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { parseArgs } from 'node:util';
import { chromiumArgs } from '../lib/render/browser/launch-args.js';
import { prepareCookieConsent } from '../lib/render/page/cookie-consent.js';
import { prepareSettleTracking } from '../lib/render/page/settle.js';
import { readPdf } from '../test/helpers/documents.js';
import { localEgress, warmRenderer } from '../test/helpers/local-egress.js';
import { renderRequest } from '../test/integration/render/render-fixtures.js';
import { LATE_TEXT, startPageServer } from './pages.js';
import { summarize } from './stats.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '12' }, only: { type: 'string' } } });
const rounds = Number(values.rounds);
const server = await startPageServer();
const proxy = await localEgress();
const executablePath = await chromium.executablePath();
const launch = (extra: readonly string[]) =>
  puppeteer.launch({ executablePath, headless: 'shell', args: [...chromiumArgs(chromium.args, 'multi-process'), ...extra], pipe: true });
const direct = await launch([]);
const proxied = await launch(proxy.chromiumArgs);
const renderer = await warmRenderer({ log: () => undefined });

type Timings = Record<string, number>;

/** A bare render: a fresh context, `goto(load)`, `pdf()`; `prepare` adds one of the service's parts first. */
async function bare(browser: Browser, intercept: boolean, prepare?: (page: Page) => Promise<unknown>): Promise<Timings> {
  const started = performance.now();
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const opened = performance.now();
  if (intercept) {
    await page.setRequestInterception(true);
    page.on('request', (request) => void request.continue().catch(() => undefined));
  }
  await prepare?.(page);
  await page.goto(server.articleUrl, { waitUntil: 'load' });
  const loaded = performance.now();
  await page.pdf();
  const printed = performance.now();
  void context.close().catch(() => undefined);
  return { total: printed - started, context: opened - started, navigate: loaded - opened, capture: printed - loaded };
}

const service = async (page: Record<string, unknown>): Promise<Timings> =>
  (await renderRequest(renderer, { output: 'PDF', page: { url: server.articleUrl, ...page } })).timings;

const variants: Record<string, () => Promise<Timings>> = {
  bare: () => bare(direct, false),
  'bare + egress proxy': () => bare(proxied, false),
  '+ interception': () => bare(proxied, true),
  '+ auto tracker': () => bare(proxied, true, (page) => prepareSettleTracking(page)),
  '+ cookie-banner engine': () => bare(proxied, true, async (page) => {
    await prepareSettleTracking(page);
    await prepareCookieConsent(page);
  }),
  'service load, adblock off': () => service({ waitUntil: 'load', adblock: false }),
  'service load': () => service({ waitUntil: 'load' }),
  'service auto': () => service({}),
};
const only = values.only?.split(',');
const names = Object.keys(variants).filter((name) => !only || only.includes(name));
for (const name of names) await variants[name]?.();

const seen: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < rounds; round += 1) {
  const order = names.map((_, i) => names[(i + round) % names.length] as string);
  for (const name of order) {
    const timings = await (variants[name] as () => Promise<Timings>)();
    for (const [phase, ms] of Object.entries(timings)) ((seen[name] ??= {})[phase] ??= []).push(ms);
  }
}
const median = (list: number[] | undefined) => (list ? summarize(list).median : Number.NaN);
const bareTotal = median(seen.bare?.total);
console.log(`${rounds} rounds, medians in ms; ratios against bare's total in the same rounds`);
for (const name of names) {
  const phases = seen[name] ?? {};
  const total = median(phases.total);
  const parts = Object.entries(phases).filter(([phase]) => phase !== 'total').map(([phase, list]) => `${phase} ${Math.round(median(list))}`);
  console.log(`${name.padEnd(26)} ${Math.round(total).toString().padStart(5)} (${(total / bareTotal).toFixed(2)}×)  ${parts.join(', ')}`);
}
const auto = await renderRequest(renderer, { output: 'PDF', page: { url: server.articleUrl } });
console.log(`auto caught the late paragraph: ${(await readPdf(new Uint8Array(auto.body))).text.join(' ').includes(LATE_TEXT)}`);
await renderer.close();
await Promise.all([direct.close(), proxied.close(), server.close(), proxy.close()]);
