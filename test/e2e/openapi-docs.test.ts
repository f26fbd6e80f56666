/**
 * GET /docs: the API reference renders in a real browser from the service
 * alone (no request leaves its origin), without console errors, and shows
 * the endpoints of the OpenAPI document.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { startService, type RunningService } from '../helpers/service.js';

const UNSAFE_FLAGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);

async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => {
    const name = arg.split('=')[0] ?? arg;
    return !UNSAFE_FLAGS.has(name) && name !== '--headless';
  });
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: 'shell',
    args: [...args, '--disable-background-networking', '--no-first-run'],
  });
}

describe('GET /docs', () => {
  let service: RunningService;
  let browser: Browser;

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('is linked from npm start\'s output', () => {
    assert.match(service.output(), new RegExp(`^Docs: ${service.baseUrl.replace(/[.]/g, '\\.')}/docs$`, 'm'));
  });

  it('sends the headers of a docs page: HTML, a same-origin CSP, no framing, no sniffing', async () => {
    // Act
    const response = await service.request('/docs', { token: null });

    // Assess
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await response.text(), /<script src="docs\/api-reference\.js"><\/script>/);
  });

  it('renders the reference from the service alone, without console errors or failed requests, listing the endpoints', async () => {
    // Prepare
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(service.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
    });

    // Act
    await page.goto(`${service.baseUrl}/docs`, { waitUntil: 'networkidle0', timeout: 60_000 });
    const doc = (await (await service.request('/v1/openapi.json', { token: null })).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const summaries = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.summary));
    // Every operation is listed in the navigation (all groups open).
    await page.waitForFunction((wanted: string[]) => wanted.every((summary) => document.body.innerText.includes(summary)), { timeout: 30_000 }, summaries);
    const text = await page.evaluate(() => document.body.innerText);
    const dir = join(process.cwd(), '.local');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'docs.png') });
    await page.close();

    // Assess
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
    // 26 operations, the three of batches, the three of process and the four of fonts.
    assert.equal(summaries.length, 36);
    for (const shown of ['DocRender API', 'OpenAPI 3.1.0', 'POST /v1/pdf', ...summaries]) {
      assert.ok(text.replace(/\s+/g, ' ').includes(shown), `the page shows "${shown}"`);
    }
  });
});
