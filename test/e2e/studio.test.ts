/**
 * The template studio at `/`, driven in a real browser (puppeteer-core and
 * the project's Chromium) against the whole local service: a token, a
 * template created, its HTML and data edited and previewed through the real
 * API (the PDF's text read from pdf.js's text layer), saved, found again
 * after a reload, rendered through the API to the same content, deleted; a
 * bad token, a 400 and a 429 shown where a person looks for them; the
 * account's fonts uploaded, used and deleted in the Fonts panel; characters
 * no font draws named under the preview.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { readPdf } from '../helpers/documents.js';
import { BLACK_ITALIC_PS, THIN_ITALIC_PS, blackItalicTtf, thinItalicTtf, toWoff2 } from '../helpers/font-files.js';
import { embeddedFonts } from '../helpers/pdf-tools.js';
import { startService, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const UNSAFE_FLAGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);
/** Where the screenshots go: .local/ (not committed), or STUDIO_SHOTS to look at them elsewhere. */
const SHOTS = process.env.STUDIO_SHOTS ?? join(process.cwd(), '.local');

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

/** Console errors, page errors, failed requests and HTTP errors, minus the statuses a step expects. */
function watchProblems(page: Page): { problems: string[]; expect: (...statuses: number[]) => void } {
  const problems: string[] = [];
  let expected = new Set<number>();
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs every non-2xx fetch as "Failed to load resource"; those are judged by status below.
    if (/Failed to load resource: the server responded with a status of (\d+)/.test(message.text())) return;
    problems.push(`console: ${message.text()} at ${JSON.stringify(message.stackTrace()[0] ?? message.location())}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('requestfailed', (request) => {
    // A preview superseded by a newer edit is cancelled on purpose.
    if (request.failure()?.errorText === 'net::ERR_ABORTED' && /\/v1\/(pdf|screenshot)$/.test(request.url())) return;
    problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected.has(response.status())) problems.push(`${response.status()}: ${response.url()}`);
  });
  return { problems, expect: (...statuses) => (expected = new Set(statuses)) };
}

/**
 * Replaces a CodeMirror editor's text as a person does: select all, paste,
 * then a character typed and taken back, so typing under the strict CSP is
 * exercised too (a refused style would show as a console error).
 */
async function setEditor(page: Page, selector: string, text: string): Promise<void> {
  await page.click(`${selector} .cm-content`);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.$eval(
    `${selector} .cm-content`,
    (element, pasted) => {
      const data = new DataTransfer();
      data.setData('text/plain', pasted);
      element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    text,
  );
  await page.keyboard.type(' ');
  await page.keyboard.press('Backspace');
}

async function editorText(page: Page, selector: string): Promise<string> {
  return page.$eval(`${selector} .cm-content`, (element) => [...element.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'));
}

/** Waits until the preview's pdf.js text layer holds every word. */
async function waitForPreviewText(page: Page, words: string[]): Promise<string> {
  await page.waitForFunction(
    (wanted: string[]) => {
      const text = document.querySelector('#preview')?.textContent ?? '';
      return document.querySelector('#preview .textLayer') !== null && wanted.every((word) => text.includes(word));
    },
    { timeout: 30_000 },
    words,
  );
  return page.$eval('#preview', (element) => element.textContent ?? '');
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `studio-${name}.png`) });
}

describe('template studio (GET /)', () => {
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

  /** A studio page signed in with the service's token, once `ready` shows; `problems` collects its console errors. */
  const signedIn = async (ready: string) => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const { problems } = watchProblems(page);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });
    await page.type('#token', service.token);
    await page.keyboard.press('Enter');
    await page.waitForSelector(ready);
    return { page, problems };
  };
  /** Signed in, its template list showing template `id`. */
  const signedInWith = (id: string) => signedIn(`.template-open[data-id="${id}"]`);

  it("is linked from npm start's output", () => {
    assert.match(service.output(), new RegExp(`^Studio: ${service.baseUrl.replace(/[.]/g, '\\.')}/$`, 'm'));
  });

  it('is served with a strict same-origin CSP, no token needed, its files too; other files are 404', async () => {
    // Act
    const page = await service.request('/', { token: null });
    const script = await service.request('/studio/studio.js', { token: null, headers: { 'accept-encoding': 'gzip' } });
    const worker = await service.request('/studio/pdf.worker.mjs', { token: null });
    const missing = await service.request('/studio/nope.js', { token: null });

    // Assess
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "worker-src 'self'", "frame-ancestors 'none'"]) {
      assert.ok(csp.split('; ').includes(rule), `CSP has ${rule}: ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe|https?:|\*/);
    // Inline style only with this answer's nonce (CodeMirror's theme), a new one each time.
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'(;|$)/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    const html = await page.text();
    assert.ok(html.includes(`<meta name="csp-nonce" content="${nonce}">`));
    const again = await service.request('/', { token: null });
    assert.ok(!(again.headers.get('content-security-policy') ?? '').includes(nonce), 'a fresh nonce per answer');
    assert.match(html, /<script type="module" src="studio\/studio\.js"><\/script>/);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.ok((await script.text()).length > 100_000, 'the bundle carries CodeMirror and pdf.js');
    assert.equal(worker.status, 200);
    assert.equal(missing.status, 404);
  });

  it('walks a template from creation to deletion: edit, live preview, 400 fields, save, reload, render through the API', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const { problems, expect } = watchProblems(page);
    const foreign: string[] = [];
    const renders: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(service.baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
      if (/\/v1\/pdf$/.test(url)) renders.push(request.postData() ?? '');
    });
    await browser.defaultBrowserContext().overridePermissions(service.baseUrl, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);

    // A bad token is refused where it was typed, and nothing else opens.
    expect(401);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });
    await page.type('#token', 'dr_not-a-real-token');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /not valid \(401\)/.test(document.querySelector('#token-status')?.textContent ?? ''));
    assert.equal(await page.$eval('#workspace', (element) => (element as HTMLElement).hidden), true);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('docrender.token')), null, 'an unknown token is not kept');
    await shot(page, 'bad-token');

    // The real token: plan, quota and rate from /v1/usage.
    expect();
    await page.type('#token', service.token);
    await page.click('#token-form button[type=submit]');
    await page.waitForFunction(() => /Plan unlimited/.test(document.querySelector('#usage')?.textContent ?? ''));
    assert.equal(await page.evaluate(() => sessionStorage.getItem('docrender.token')), service.token);
    assert.equal(await page.$eval('#banner', (element) => (element as HTMLElement).hidden), true);

    // Create: the starter template opens and previews.
    await page.click('#new-template');
    await page.type('#create-name', 'Studio e2e invoice');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^tpl_/.test(document.querySelector('#template-id')?.textContent ?? ''));
    const id = await page.$eval('#template-id', (element) => element.textContent ?? '');
    await waitForPreviewText(page, ['Hello', 'World']);
    assert.match(await page.$eval('#template-list', (element) => element.textContent ?? ''), /Studio e2e invoice/);

    // Every control has a name a screen reader can say, and Tab leaves the code editor (no keyboard trap).
    const unlabelled = await page.$$eval('input, select, textarea, button, [contenteditable="true"]', (elements) =>
      elements
        .filter((element) => (element as HTMLElement).offsetParent !== null || element.closest('dialog[open]'))
        .filter((element) => {
          const labels = (element as HTMLInputElement).labels;
          const named = (labels && labels.length > 0) || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby');
          return !named && !(element.tagName === 'BUTTON' && element.textContent?.trim());
        })
        .map((element) => element.outerHTML.slice(0, 120)),
    );
    assert.deepEqual(unlabelled, []);
    await page.click('#html-editor .cm-content');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => Boolean(document.activeElement?.closest('#html-editor'))), false);

    // Edit the HTML and the data: the preview follows, through POST /v1/pdf.
    await setEditor(page, '#html-editor', '<h1>Invoice Zebrafish for {{customer}}</h1><p>Total {{total}} EUR</p>');
    await setEditor(page, '#data-editor', '{"customer": "Quokka Ltd", "total": 1234}');
    const previewText = await waitForPreviewText(page, ['Zebrafish', 'Quokka', '1234']);
    assert.match(await page.$eval('#preview-status', (element) => element.textContent ?? ''), /Rendered in \d+ ms · 1 page/);
    assert.equal(await page.$eval('#dirty', (element) => (element as HTMLElement).hidden), false, 'unsaved changes are flagged');

    // An option from the schema-generated form goes into the request.
    const rendersBefore = Number(await page.$eval('#preview', (element) => element.getAttribute('data-renders')));
    await page.select('#opt-pdf-format', 'a5');
    await page.waitForFunction((count: number) => Number(document.querySelector('#preview')?.getAttribute('data-renders')) > count, { timeout: 30_000 }, rendersBefore);
    await page.waitForFunction(() => document.querySelector('#preview')?.getAttribute('aria-busy') === null);
    const last = JSON.parse(renders.at(-1) ?? '{}') as { pdf?: { format?: string }; page?: { templateData?: unknown } };
    assert.equal(last.pdf?.format, 'a5');
    assert.deepEqual(last.page?.templateData, { customer: 'Quokka Ltd', total: 1234 });

    // A 400: the field it names is marked next to its input, the preview says why.
    expect(400);
    await page.type('#opt-pdf-scale', '5');
    await page.waitForFunction(() => (document.querySelector('[data-error-for="pdf.scale"]')?.textContent ?? '') !== '', { timeout: 30_000 });
    assert.match(await page.$eval('[data-error-for="pdf.scale"]', (element) => element.textContent ?? ''), /2/);
    assert.equal(await page.$eval('#opt-pdf-scale', (element) => element.getAttribute('aria-invalid')), 'true');
    assert.equal(await page.$eval('#preview-error', (element) => (element as HTMLElement).hidden), false);
    await shot(page, 'field-error');
    await page.click('#opt-pdf-scale', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => (document.querySelector('[data-error-for="pdf.scale"]')?.textContent ?? '') === '', { timeout: 30_000 });
    expect();

    // Copy as JSON / curl: the request the preview makes, without the token.
    await page.click('#copy-json');
    await page.waitForFunction(() => /Copied|follows/.test(document.querySelector('#action-status')?.textContent ?? ''));
    const copiedJson = await page.evaluate(() => navigator.clipboard.readText());
    const body = JSON.parse(copiedJson) as { page: { htmlTemplate: string; templateData: unknown }; pdf: { format: string } };
    assert.match(Buffer.from(body.page.htmlTemplate, 'base64').toString('utf8'), /Invoice Zebrafish/);
    assert.equal(body.pdf.format, 'a5');
    await page.click('#copy-curl');
    await page.waitForFunction(() => /curl/.test(document.querySelector('#action-status')?.textContent ?? ''));
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(curl, new RegExp(`^curl -sS -X POST '${service.baseUrl}/v1/pdf' -H "Authorization: Bearer \\$DOCRENDER_TOKEN"`));
    assert.ok(!curl.includes(service.token), 'the token stays out of the clipboard');
    // The copied command works as pasted into a shell (where curl is installed).
    if (spawnSync('curl', ['--version']).status === 0) {
      const dir = tempDir('studio-curl-');
      const ran = spawnSync('bash', ['-c', curl], { cwd: dir, env: { ...process.env, DOCRENDER_TOKEN: service.token }, encoding: 'utf8' });
      assert.equal(ran.status, 0, ran.stderr);
      const fromCurl = await readPdf(new Uint8Array(readFileSync(join(dir, 'document.pdf'))));
      assert.match(fromCurl.text.join(' '), /Zebrafish/);
      rmSync(dir, { recursive: true, force: true });
    }

    // Rename (a dialog, keyboard only): the name is saved, the other edits stay unsaved.
    await page.focus('#rename');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#rename-dialog[open]');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type('Studio e2e invoice v2');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Renamed/.test(document.querySelector('#action-status')?.textContent ?? ''));
    assert.equal(await page.$eval('#template-name', (element) => (element as HTMLInputElement).value), 'Studio e2e invoice v2');
    assert.equal(await page.$eval('#dirty', (element) => (element as HTMLElement).hidden), false, 'the HTML and data are still unsaved');
    assert.equal(((await (await service.request(`/v1/templates/${id}`)).json()) as { name: string }).name, 'Studio e2e invoice v2');

    // Save (Ctrl+S), then reload: the change is there.
    await page.focus('#template-name');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyS');
    await page.keyboard.up('Control');
    await page.waitForFunction(() => /^Saved/.test(document.querySelector('#action-status')?.textContent ?? ''));
    assert.equal(await page.$eval('#dirty', (element) => (element as HTMLElement).hidden), true);
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector(`.template-open[data-id="${id}"]`);
    assert.match(await page.$eval(`.template-open[data-id="${id}"]`, (element) => element.textContent ?? ''), /Studio e2e invoice v2/);
    await page.click(`.template-open[data-id="${id}"]`);
    await waitForPreviewText(page, ['Zebrafish', 'Quokka']);
    assert.match(await editorText(page, '#html-editor'), /Invoice Zebrafish for \{\{customer\}\}/);
    assert.deepEqual(JSON.parse(await editorText(page, '#data-editor')), { customer: 'Quokka Ltd', total: 1234 });
    assert.equal(await page.$eval('#opt-pdf-format', (element) => (element as HTMLSelectElement).value), 'a5');
    await shot(page, 'editor');

    // Render through the API (sync): the file opened is the preview's content, on A5.
    await page.click('#render-sync');
    await page.waitForSelector('#file-link', { timeout: 30_000 }).catch(async (error: unknown) => {
      throw new Error(`no file link: ${await page.$eval('#action-status', (element) => element.textContent)}`, { cause: error });
    });
    const fileUrl = await page.$eval('#file-link', (element) => (element as HTMLAnchorElement).href);
    const file = await readPdf(new Uint8Array(await (await fetch(fileUrl)).arrayBuffer()));
    const fileText = file.text.join(' ');
    for (const word of ['Invoice', 'Zebrafish', 'Quokka', '1234']) {
      assert.ok(fileText.includes(word), `the rendered file has "${word}"`);
      assert.ok(previewText.includes(word), `the preview had "${word}"`);
    }
    // A5 is 5.83 × 8.27 in; Chromium rounds to whole CSS pixels.
    assert.ok(Math.abs((file.pages[0]?.width ?? 0) - 5.83) < 0.02 && Math.abs((file.pages[0]?.height ?? 0) - 8.27) < 0.02, JSON.stringify(file.pages[0]));

    // Delete, after confirming.
    await page.click('#delete');
    await page.waitForSelector('#delete-dialog[open]');
    assert.match(await page.$eval('#delete-name', (element) => element.textContent ?? ''), /Studio e2e invoice v2/);
    await page.click('#delete-form button[type=submit]');
    await page.waitForFunction(() => /^Deleted/.test(document.querySelector('#action-status')?.textContent ?? ''));
    await page.waitForSelector(`.template-open[data-id="${id}"]`, { hidden: true });
    assert.equal((await service.request(`/v1/templates/${id}`)).status, 404);

    // Forget: the token leaves the tab.
    await page.click('#forget');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('docrender.token')), null);
    assert.equal(await page.$eval('#workspace', (element) => (element as HTMLElement).hidden), true);
    await page.close();

    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });

  it('pages the template list, newest first, 20 a page', async () => {
    // Prepare: 21 templates of a fresh account
    const account = (await service.tokens('create')).stdout.trim();
    for (let i = 1; i <= 21; i++) {
      const created = await service.request('/v1/templates', { token: account, json: { name: `Paged ${String(i).padStart(2, '0')}` } });
      assert.equal(created.status, 201);
    }
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const { problems } = watchProblems(page);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });
    await page.type('#token', account);
    await page.keyboard.press('Enter');
    await page.waitForSelector('.template-open');
    const names = () => page.$$eval('.template-open .template-name', (elements) => elements.map((element) => element.textContent));

    // Act and assess
    const first = await names();
    assert.equal(first.length, 20);
    assert.equal(first[0], 'Paged 21');
    assert.equal(await page.$eval('#prev-page', (element) => (element as HTMLButtonElement).disabled), true);
    await page.click('#next-page');
    await page.waitForFunction(() => document.querySelector('#page-number')?.textContent === 'Page 2');
    assert.deepEqual(await names(), ['Paged 01']);
    assert.equal(await page.$eval('#next-page', (element) => (element as HTMLButtonElement).disabled), true);
    await page.click('#prev-page');
    await page.waitForFunction(() => document.querySelector('#page-number')?.textContent === 'Page 1');
    await page.close();
    assert.deepEqual(problems, []);
  });

  it('previews an IMAGE template inline with its screenshot options, pixels as rendered', async () => {
    // Prepare: an IMAGE template painting the page a known colour
    const html = '<html><body style="margin:0;background:#ff6600"><h1>Orange</h1></body></html>';
    const created = (await (
      await service.request('/v1/templates', {
        json: { name: 'Studio e2e card', output: 'IMAGE', variables: { page: { htmlTemplate: Buffer.from(html).toString('base64') }, screenshot: { viewport: { width: 400, height: 300 } } } },
      })
    ).json()) as { id: string };
    const { page, problems } = await signedInWith(created.id);

    // Act
    await page.click(`.template-open[data-id="${created.id}"]`);
    await page.waitForSelector('#preview img.preview-image', { timeout: 30_000 });

    // Assess: the image is the render (its size, its colour), the form shows the screenshot options only
    const seen = await page.$eval('#preview img.preview-image', (element) => {
      const image = element as HTMLImageElement;
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d');
      context?.drawImage(image, 0, 0);
      return { width: image.naturalWidth, height: image.naturalHeight, pixel: [...(context?.getImageData(200, 250, 1, 1).data ?? [])] };
    });
    assert.deepEqual(seen, { width: 400, height: 300, pixel: [255, 102, 0, 255] });
    assert.match(await page.$eval('#preview-status', (element) => element.textContent ?? ''), /400×300 PNG/);
    assert.equal(await page.$eval('#opt-screenshot-viewport-width', (element) => (element as HTMLInputElement).value), '400');
    assert.equal(await page.$eval('fieldset[data-group="screenshot"]', (element) => (element as HTMLElement).hidden), false);
    assert.equal(await page.$eval('fieldset[data-group="pdf"]', (element) => (element as HTMLElement).hidden), true);
    await page.close();
    await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it('previews a PDF template whose stored options have a running header and footer: the bands show in the preview', async () => {
    // Prepare
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const created = (await (
      await service.request('/v1/templates', {
        json: {
          name: 'Studio e2e bands',
          output: 'PDF',
          variables: {
            page: { htmlTemplate: b64('<html><body><h1>Wombat chapter</h1></body></html>') },
            pdf: { header: { html: b64('<p>Bandheader <span class="section"></span></p>') }, footer: { htmlTemplate: b64('<p>Bandfooter {{pageNumber}}/{{totalPages}}</p>') } },
          },
        },
      })
    ).json()) as { id: string };
    const { page, problems } = await signedInWith(created.id);

    // Act
    await page.click(`.template-open[data-id="${created.id}"]`);
    const text = await waitForPreviewText(page, ['Bandheader', 'Bandfooter']);

    // Assess
    assert.match(text, /Bandheader\s*Wombat chapter/);
    assert.match(text, /Bandfooter\s*1\/1/);
    await page.close();
    await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it('sends the page options of the schema-generated form as the API takes them: pdf.pages, and pdf.rotate.angle as a number', async () => {
    // Prepare
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const created = (await (
      await service.request('/v1/templates', {
        json: { name: 'Studio e2e pages', output: 'PDF', variables: { page: { htmlTemplate: b64('<h1 style="break-after:page">Numbat one</h1><h1>Numbat two</h1>') } } },
      })
    ).json()) as { id: string };
    const { page, problems } = await signedInWith(created.id);
    await page.click(`.template-open[data-id="${created.id}"]`);
    await waitForPreviewText(page, ['Numbat one']);
    const rotated = page.waitForRequest((request) => /\/v1\/pdf$/.test(request.url()) && /"rotate"/.test(request.postData() ?? ''), { timeout: 30_000 });

    // Act
    await page.type('#opt-pdf-pages', '2, 1');
    await page.select('#opt-pdf-rotate-angle', '90');
    const request = await rotated;

    // Assess
    const sent = (JSON.parse(request.postData() ?? '{}') as { pdf?: { pages?: string; rotate?: { angle?: unknown } } }).pdf;
    assert.deepEqual([sent?.pages, sent?.rotate?.angle], ['2, 1', 90]);
    const answer = await request.response() ?? (await page.waitForResponse((response) => response.request() === request, { timeout: 30_000 }));
    assert.equal(answer.status(), 200);
    await page.close();
    await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it('sets pdf.compress with its on/off switch and settings, and pdf.preview, as the API takes them; the live preview leaves pdf.preview out and the template keeps it', async () => {
    // Prepare
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const created = (await (
      await service.request('/v1/templates', { json: { name: 'Studio e2e compress', output: 'PDF', variables: { page: { htmlTemplate: b64('<h1>Wombat catalogue</h1>') } } } })
    ).json()) as { id: string };
    const { page, problems } = await signedInWith(created.id);
    await page.click(`.template-open[data-id="${created.id}"]`);
    await waitForPreviewText(page, ['Wombat']);
    const sentWith = (pattern: RegExp) => page.waitForRequest((request) => /\/v1\/pdf$/.test(request.url()) && pattern.test(request.postData() ?? ''), { timeout: 30_000 });
    type Sent = { pdf?: { compress?: unknown; preview?: unknown } };

    // Act: on with its defaults, then a quality, then the preview's width, then off.
    let next = sentWith(/"compress":true/);
    await page.select('#opt-pdf-compress', 'true');
    const onRequest = await next;
    next = sentWith(/"imageQuality":60/);
    await page.type('#opt-pdf-compress-imageQuality', '60');
    await page.type('#opt-pdf-compress-maxImageDpi', '120');
    const settingsRequest = await next;
    await page.type('#opt-pdf-preview-width', '300');
    await page.select('#opt-pdf-preview-type', 'webp');
    await page.$eval('#opt-pdf-compress', (element) => element.scrollIntoView({ block: 'center' }));
    await shot(page, 'compress-preview');
    next = sentWith(/"compress":false/);
    await page.select('#opt-pdf-compress', 'false');
    const offRequest = await next;
    const answer = (await offRequest.response()) ?? (await page.waitForResponse((response) => response.request() === offRequest, { timeout: 30_000 }));
    await page.select('#opt-pdf-compress', 'true');
    await page.focus('#template-name');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyS');
    await page.keyboard.up('Control');
    await page.waitForFunction(() => /^Saved/.test(document.querySelector('#action-status')?.textContent ?? ''));

    // Assess
    const sent = (request: typeof onRequest) => (JSON.parse(request.postData() ?? '{}') as Sent).pdf;
    assert.equal(sent(onRequest)?.compress, true);
    assert.deepEqual(sent(settingsRequest)?.compress, { imageQuality: 60, maxImageDpi: 120 });
    assert.equal(sent(offRequest)?.compress, false, 'off sends false, its settings left out');
    assert.equal(sent(offRequest)?.preview, undefined, 'the raw live preview leaves pdf.preview out');
    assert.equal(answer.status(), 200);
    const stored = ((await (await service.request(`/v1/templates/${created.id}`)).json()) as { variables: Sent }).variables.pdf;
    assert.deepEqual([stored?.compress, stored?.preview], [{ imageQuality: 60, maxImageDpi: 120 }, { width: 300, type: 'webp' }]);
    await page.close();
    await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it("shows why a template's page could not be loaded, next to page.url", async () => {
    // Prepare: a template that renders a URL nothing listens on (loopback is allowed to this test service)
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((resolve) => closed.close(resolve));
    const created = (await (
      await service.request('/v1/templates', { json: { name: 'Studio e2e dead link', variables: { page: { url: deadUrl } } } })
    ).json()) as { id: string };
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const { problems, expect } = watchProblems(page);
    expect(400);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });
    await page.type('#token', service.token);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.template-open[data-id="${created.id}"]`);

    // Act
    await page.click(`.template-open[data-id="${created.id}"]`);
    await page.waitForFunction(() => !(document.querySelector('#preview-error') as HTMLElement).hidden, { timeout: 30_000 });

    // Assess: the URL is in the generated form, the editor is empty, the reason is shown twice over
    assert.equal(await page.$eval('#opt-page-url', (element) => (element as HTMLInputElement).value), deadUrl);
    assert.equal(await editorText(page, '#html-editor'), '');
    assert.match(await page.$eval('#preview-error', (element) => element.textContent ?? ''), /could not be loaded: .*ERR_CONNECTION_REFUSED/);
    assert.match(await page.$eval('[data-error-for="page.url"]', (element) => element.textContent ?? ''), /ERR_CONNECTION_REFUSED/);
    await shot(page, 'navigation-error');
    await page.close();
    await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it("shows a batch's progress, polled until it ends, then its manifest, archive and merged PDF as links", async () => {
    // Prepare: a batch of three PDFs asking for both outputs
    const items = ['one', 'two', 'three'].map((name) => ({ name, page: { html: Buffer.from(`<h1>Batch ${name}</h1>`).toString('base64') } }));
    const queued = await service.request('/v1/batches', { json: { items, output: { zip: true, merge: true } } });
    assert.equal(queued.status, 202);
    const { id } = (await queued.json()) as { id: string };
    const { page, problems } = await signedIn('#workspace:not([hidden])');

    // Act
    await page.type('#batch-id', id);
    await page.click('#batch-form button[type="submit"]');
    // Guards against a hang, not measures: three renders on a loaded machine
    await page.waitForFunction(() => document.querySelectorAll('#batch-links a').length === 3, { timeout: 120_000 });
    await shot(page, 'batch-progress');

    // Assess
    assert.equal(await page.$eval('#batch-status', (element) => element.textContent), `${id}: COMPLETED`);
    assert.deepEqual(await page.$eval('#batch-bar', (element) => [(element as HTMLProgressElement).value, (element as HTMLProgressElement).max]), [3, 3]);
    assert.match(await page.$eval('#batch-counts', (element) => element.textContent ?? ''), /^3 of 3 finished · 3 done · 0 failed · 0 pending$/);
    const links = await page.$$eval('#batch-links a', (anchors) => anchors.map((a) => [a.textContent, (a as HTMLAnchorElement).href]));
    assert.deepEqual(links.map(([text]) => text), ['Manifest', 'Archive (ZIP)', 'Merged PDF']);
    const merged = new Uint8Array(await (await fetch(links[2]![1]!)).arrayBuffer());
    assert.equal(Buffer.from(merged.subarray(0, 5)).toString(), '%PDF-');
    await page.close();
    assert.deepEqual(problems, []);
  });

  it("keeps the account's fonts in the Fonts panel: a TTF and a WOFF2 uploaded, used by family in a template and embedded by its preview, a broken file refused beside its input, one deleted", async () => {
    // Prepare: a fresh account (no renderer has its font list yet), its template naming both families, and the files
    const account = (await service.tokens('create')).stdout.trim();
    const html = [
      `<p style="font-family: 'Studio Brand Sans', sans-serif; font-weight: 100; font-style: italic; font-size: 28px">Kookaburra thin</p>`,
      `<p style="font-family: 'Studio Brand Display', sans-serif; font-weight: 900; font-style: italic; font-size: 28px">Kookaburra black</p>`,
    ].join('');
    const created = await service.request('/v1/templates', {
      token: account,
      json: { name: 'Studio e2e brand fonts', output: 'PDF', variables: { page: { htmlTemplate: Buffer.from(html).toString('base64') } } },
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    const dir = tempDir('studio-fonts-');
    const files = {
      ttf: join(dir, 'BrandSans-ThinItalic.ttf'),
      woff2: join(dir, 'BrandDisplay-BlackItalic.woff2'),
      broken: join(dir, 'Broken.ttf'),
    };
    writeFileSync(files.ttf, thinItalicTtf());
    writeFileSync(files.woff2, await toWoff2(blackItalicTtf()));
    writeFileSync(files.broken, 'These bytes are no font file at all.');
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const { problems, expect } = watchProblems(page);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });
    await page.type('#token', account);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#font-list .empty');
    assert.match(await page.$eval('#font-list', (element) => element.textContent ?? ''), /No fonts yet/);
    assert.match(await page.$eval('#fonts-panel .hint', (element) => element.textContent ?? ''), /font-family: 'Acme Sans', sans-serif/);
    await shot(page, 'fonts-empty');
    /** Each listed font as "family | face | file". */
    const fontItems = () =>
      page.$$eval('#font-list .font-item', (items) => items.map((item) => [...item.querySelectorAll('.font-family, .font-face, .font-meta')].map((part) => part.textContent).join(' | ')));
    const upload = async (path: string, family: string, items: number) => {
      const input = (await page.$('#font-file')) as ElementHandle<HTMLInputElement>;
      await input.uploadFile(path);
      await page.type('#font-family', family);
      await page.click('#font-upload');
      await page.waitForFunction((count: number) => document.querySelectorAll('#font-list .font-item').length === count, { timeout: 30_000 }, items);
    };

    // Act: the two files uploaded through the panel, each under a family of its own
    await upload(files.ttf, 'Studio Brand Sans', 1);
    await upload(files.woff2, 'Studio Brand Display', 2);

    // Assess: both listed as the API keeps them, with their face (weight and style from the font), format and size
    const kept = ((await (await service.request('/v1/fonts', { token: account })).json()) as { data: { family: string; weight: number; style: string }[] }).data;
    assert.deepEqual(kept.map((font) => [font.family, font.style]), [['Studio Brand Sans', 'italic'], ['Studio Brand Display', 'italic']]);
    const listed = await fontItems();
    assert.match(listed[0] ?? '', new RegExp(`^Studio Brand Sans \\| ([A-Za-z]+ )?${kept[0]?.weight} italic \\| TTF · \\d+ KB · `));
    assert.match(listed[1] ?? '', new RegExp(`^Studio Brand Display \\| ([A-Za-z]+ )?${kept[1]?.weight} italic \\| WOFF2 → TTF · \\d+ KB · `));
    assert.match(await page.$eval('#font-status', (element) => element.textContent ?? ''), /^Uploaded “Studio Brand Display” \(.*italic\)/);
    assert.equal(await page.$eval('#font-family', (element) => (element as HTMLInputElement).value), '', 'the form is ready for the next font');

    // Act: the template naming both families opens and previews
    const previewed = page.waitForResponse((response) => /\/v1\/pdf$/.test(response.url()) && response.request().method() === 'POST', { timeout: 60_000 });
    await page.click(`.template-open[data-id="${id}"]`);
    const answer = await previewed;
    await waitForPreviewText(page, ['Kookaburra thin', 'Kookaburra black']);
    await shot(page, 'fonts-panel');

    // Assess: the preview's request, sent again (puppeteer answered no body for the preview's own fetch), draws each line in
    // the uploaded face (embedded); no character went missing
    assert.equal(answer.status(), 200);
    const again = await service.request('/v1/pdf', { token: account, method: 'POST', headers: { 'content-type': 'application/json' }, body: answer.request().postData() ?? '' });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-missing-glyphs'), null);
    const embedded = embeddedFonts(new Uint8Array(await again.arrayBuffer()));
    assert.ok(embedded.includes(THIN_ITALIC_PS) && embedded.includes(BLACK_ITALIC_PS), embedded.join(', '));
    assert.equal(await page.$eval('#missing-glyphs', (element) => (element as HTMLElement).hidden), true);

    // Act: a file that is no font
    expect(400);
    const input = (await page.$('#font-file')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(files.broken);
    await page.click('#font-upload');
    await page.waitForFunction(() => (document.querySelector('#fonts-panel [data-error-for="file"]')?.textContent ?? '') !== '', { timeout: 30_000 });
    await page.$eval('#font-file', (element) => element.scrollIntoView({ block: 'center' }));
    await shot(page, 'fonts-refused');

    // Assess: the service's reason beside the file input, which is marked; the list is unchanged; the editor's fields untouched
    assert.match(await page.$eval('#fonts-panel [data-error-for="file"]', (element) => element.textContent ?? ''), /Not a font file/);
    assert.equal(await page.$eval('#font-file', (element) => element.getAttribute('aria-invalid')), 'true');
    assert.match(await page.$eval('#font-status', (element) => element.textContent ?? ''), /^Not uploaded: The font cannot be used/);
    assert.equal((await fontItems()).length, 2);
    assert.equal(await page.$eval('#other-errors', (element) => element.textContent), '');
    expect();

    // Act: delete the WOFF2's font, after confirming
    await page.click('#font-list .font-item:nth-child(2) .font-delete');
    await page.waitForSelector('#font-delete-dialog[open]');
    await shot(page, 'fonts-delete');
    assert.match(await page.$eval('#font-delete-name', (element) => element.textContent ?? ''), new RegExp(`^Studio Brand Display \\(.*${kept[1]?.weight} italic\\)$`));
    await page.click('#font-delete-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#font-list .font-item').length === 1, { timeout: 30_000 });

    // Assess: gone from the panel and from the account
    assert.match((await fontItems())[0] ?? '', /^Studio Brand Sans/);
    assert.match(await page.$eval('#font-status', (element) => element.textContent ?? ''), /^Deleted “Studio Brand Display”/);
    const left = (await (await service.request('/v1/fonts', { token: account })).json()) as { data: { family: string }[] };
    assert.deepEqual(left.data.map((font) => font.family), ['Studio Brand Sans']);
    await page.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(problems, []);
  });

  it('names the characters no font draws above the preview (X-Missing-Glyphs), and shows no such line for a template whose every character is drawn', async () => {
    // Prepare: U+E000 and U+E001 are private use, in no font of the layer
    const make = async (name: string, html: string) =>
      ((await (await service.request('/v1/templates', { json: { name, output: 'PDF', variables: { page: { htmlTemplate: Buffer.from(html).toString('base64') } } } })).json()) as { id: string }).id;
    const missing = await make('Studio e2e missing glyphs', '<h1>Price list</h1><p>Tea \uE000 3 EUR, coffee \uE001 4 EUR</p>');
    const plain = await make('Studio e2e every glyph', '<h1>Platypus prices</h1>');
    const { page, problems } = await signedInWith(plain);

    // Act
    await page.click(`.template-open[data-id="${missing}"]`);
    await waitForPreviewText(page, ['Price list']);
    await page.waitForSelector('#missing-glyphs:not([hidden])');
    await shot(page, 'missing-glyphs');

    // Assess
    const line = await page.$eval('#missing-glyphs', (element) => element.textContent ?? '');
    assert.match(line, /^2 characters no font draws: U\+E000, U\+E001 \(first on page 1\)/);

    // Act: a template of drawn characters only
    await page.click(`.template-open[data-id="${plain}"]`);
    await page.waitForFunction(() => /Platypus/.test(document.querySelector('#preview')?.textContent ?? '') && (document.querySelector('#missing-glyphs') as HTMLElement).hidden, { timeout: 30_000 });

    // Assess
    assert.equal(await page.$eval('#missing-glyphs', (element) => element.textContent), '');
    await page.close();
    for (const id of [missing, plain]) await service.request(`/v1/templates/${id}`, { method: 'DELETE' });
    assert.deepEqual(problems, []);
  });

  it('shows a 429 clearly when the token is over its rate', async () => {
    // Prepare: tokens allowed one request an hour, so a window the test has spent stays spent for the whole test
    // (rate windows are aligned to the clock: at most one edge can fall inside the test, and each step below takes
    // a second try for that case), and a hook that spends the window with a request of the test's own right before
    // the page's next call of a given path goes out.
    const onePerHour = async () => (await service.tokens('create', '--rate', String(1 / 3600))).stdout.trim();
    const page = await browser.newPage();
    const { problems, expect } = watchProblems(page);
    expect(429);
    let spendBefore: { path: string; token: string } | null = null;
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (request.isInterceptResolutionHandled()) return;
      const spend = spendBefore;
      if (spend?.path !== path) return void request.continue();
      spendBefore = null;
      void service.request('/v1/usage', { token: spend.token }).then(() => request.continue());
    });
    // Guards against a hang, not measures: a function's first call starts it, which takes seconds on a loaded machine.
    const guard = { timeout: 60_000 };
    const answerTo = (path: string) => page.waitForResponse((response) => new URL(response.url()).pathname === path, guard);
    await page.goto(`${service.baseUrl}/`, { waitUntil: 'networkidle0' });

    // Act: the token check is the second request of the token's hour
    let status = '';
    for (let attempt = 0; attempt < 2 && !/429/.test(status); attempt++) {
      const spent = await onePerHour();
      spendBefore = { path: '/v1/usage', token: spent };
      const checked = answerTo('/v1/usage');
      await page.type('#token', spent);
      await page.keyboard.press('Enter');
      await checked;
      await page.waitForFunction(() => !/Checking/.test(document.querySelector('#token-status')?.textContent ?? ''), guard);
      status = await page.$eval('#token-status', (element) => element.textContent ?? '');
    }
    await shot(page, 'rate-limited');

    // Assess
    assert.match(status, /Too many requests \(429\).*try again in \d+ s/);
    assert.equal(await page.$eval('#token-status', (element) => element.getAttribute('data-tone')), 'error');
    assert.equal(await page.$eval('#workspace', (element) => (element as HTMLElement).hidden), true);

    // Act: a fresh token is accepted (its hour's first request), then the template list is the hour's third
    let banner = '';
    let limited = '';
    for (let attempt = 0; attempt < 2 && !/429/.test(banner); attempt++) {
      limited = await onePerHour();
      await page.$eval('#template-list', (element) => element.replaceChildren());
      spendBefore = { path: '/v1/templates', token: limited };
      const listed = answerTo('/v1/templates');
      await page.type('#token', limited);
      await page.keyboard.press('Enter');
      await listed;
      await page.waitForFunction(() => !(document.querySelector('#banner') as HTMLElement).hidden || document.querySelector('.template-list li') !== null, guard);
      banner = await page.$eval('#banner', (element) => ((element as HTMLElement).hidden ? '' : (element.textContent ?? '')));
    }
    await shot(page, 'rate-limited-banner');

    // Assess: said at the top of the page, where it is seen whatever is being done
    assert.match(banner, /Too many requests \(429\).*try again in \d+ s/);

    // Retry once the token may go faster (its terms apply from the next request on): the list comes and the warning goes
    await service.tokens('set', '--rate', '100', limited);
    await page.click('#template-list button');
    await page.waitForFunction(() => /No templates yet/.test(document.querySelector('#template-list')?.textContent ?? ''), guard);
    assert.equal(await page.$eval('#banner', (element) => (element as HTMLElement).hidden), true);
    await page.close();
    assert.deepEqual(problems, []);
  });
});
