/**
 * Every runnable example of the docs runs, and does what the docs say.
 *
 * A fenced block in any Markdown file of the repository (README.md, docs/**,
 * SECURITY.md…) is an example when the line right above it is
 * `<!-- example: name -->` (GitHub does not render it). Unmarked blocks are
 * prose and never run. A marked `bash` block runs with bash (`set -euo
 * pipefail`) in a fresh working directory against a started service (`npm
 * start`, real Chromium), with `BASE`, `TOKEN`, `TEMPLATE_ID` (a saved PDF
 * template made for it), `CUSTOMER_PASSWORD` and `OUR_OWNER_PASSWORD` set, and
 * the files examples read (`statement.html`, `cover.html`, `terms.pdf`) in
 * that directory. A line that only sets one of those variables to a
 * placeholder (`TOKEN=dr_…   # the printed token`) is the reader's to fill,
 * so it is left out. A marked block without a language is output a command
 * prints (`npm start`'s), compared line by line with `…` matching anything,
 * and its URLs are opened. A marked `js` block is a module: it is imported
 * and its exports called (the webhook check on a webhook the service sent).
 *
 * An example that would need the internet runs against the test site
 * instead, with the same shape: `https://example.com` is a local test site,
 * `https://example.org` and `https://my-bucket.s3.amazonaws.com` a local
 * receiver of webhooks and uploads, `http://127.0.0.1:3000` the started
 * service. Nothing leaves the machine.
 *
 * `CHECKS` below holds, for each example by name, what its answers must be
 * (the status and content type of every curl call, in order) and what its
 * files must hold (pages, text, attachments, encryption, image kind and
 * size, JSON fields, the webhook received). The test fails when a marked
 * block has no checks, when a check names no block, and when an example
 * fails either.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { imageSize } from 'image-size';
import { PNG } from 'pngjs';
import { markdownFiles, readMarkdown, repoRoot, type FencedBlock } from '../helpers/markdown.js';
import { applicationForm } from '../helpers/acroform.js';
import { outlineOf, pageCountOf, pdfimages, pdfinfo, pdftotext, qpdf } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { html, startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

/** What one example did: its exit code, output, every curl answer and its working directory. */
type ExampleRun = {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Status and content type of each curl call, in order (`-L`: of the last answer). */
  answers: Array<[number, string]>;
  dir: string;
  file: (name: string) => Buffer;
};

type Context = { service: RunningService; site: TestServer; receiver: TestServer; templateId: string };

type Check =
  /** A bash block: the curl answers it gets, then what its files and output hold. */
  | { answers: Array<[number, string]>; assess: (run: ExampleRun, context: Context) => void | Promise<void> }
  /** Output a command prints: which one. */
  | { printedBy: 'npm start' }
  /** A JavaScript module: what its exports do. */
  | { module: (exports: Record<string, unknown>, context: Context) => void | Promise<void> };

const PDF = 'application/pdf';
const JSON_TYPE = 'application/json';
const CUSTOMER_PASSWORD = 'Cust0mer-Pa55word-7731';
const OUR_OWNER_PASSWORD = 'Own3r-Secret-0042';

const textOf = (pdf: Buffer, args: string[] = []) => pdftotext(pdf, args).stdout.replace(/\s+/g, ' ');
const isPdf = (file: Buffer) => file.subarray(0, 5).toString('latin1') === '%PDF-';
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
/** Width × height of a page in points, as pdfinfo reads it. */
function pageSize(pdf: Buffer): [number, number] {
  const match = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(pdfinfo(pdf).stdout);
  assert.ok(match, 'pdfinfo reads a page size');
  return [Number(match[1]), Number(match[2])];
}

/** The JSON values curl printed one after another (an API answer ends without a newline). */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (depth++ === 0) start = at;
    } else if ((char === '}' || char === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, at + 1)));
  }
  return values;
}

/** A4 is 595 × 842 pt; Chromium prints it at whole CSS pixels (595.92 × 842.88). */
function assertA4(pdf: Buffer) {
  const [width, height] = pageSize(pdf);
  assert.ok(Math.abs(width - 595) < 2 && Math.abs(height - 842) < 2, `A4, not ${width} × ${height}`);
}

const CHECKS: Record<string, Check> = {
  'npm-start-output': { printedBy: 'npm start' },
  'verify-webhook': {
    module: async (exports, { service, receiver }) => {
      const verifyWebhook = exports.verifyWebhook as (secret: string, headers: Record<string, unknown>, rawBody: string) => boolean;
      const secret = /^Webhook signing secret: (whsec_\S+)$/m.exec(service.output())?.[1];
      assert.ok(secret, 'npm start prints the secret');
      const queued = await service.request('/v1/pdf/async', { json: { page: { html: b64('<h1>Signed</h1>') }, webhook: { url: `${receiver.url}/hooks/verify` } } });
      assert.equal(queued.status, 201);
      const call = await waitFor('the webhook', () => receiver.requests.find((request) => request.url === '/hooks/verify'), 120_000);
      assert.equal(verifyWebhook(secret, call.headers, call.body), true, 'a webhook the service sent verifies');
      assert.equal(verifyWebhook(secret, call.headers, call.body.replace('COMPLETED', 'FAILED')), false, 'a changed body does not');
      assert.equal(verifyWebhook(secret.replace(/^whsec_./, (head) => (head.endsWith('A') ? 'whsec_B' : 'whsec_A')), call.headers, call.body), false, 'another secret does not');
    },
  },
  'first-pdf': {
    answers: [[200, PDF]],
    assess: (run) => {
      const pdf = run.file('hello.pdf');
      assert.equal(pageCountOf(pdf), 1);
      assert.match(textOf(pdf), /Hello/);
      assertA4(pdf);
    },
  },
  endpoints: {
    answers: [[200, PDF], [200, 'image/jpeg'], [200, PDF], [200, JSON_TYPE]],
    assess: (run) => {
      const page = run.file('page.pdf');
      assert.match(textOf(page), /Example Domain/);
      assertA4(page);
      const shot = run.file('shot.jpg');
      assert.ok(shot.subarray(0, 3).equals(JPEG_MAGIC), 'a JPEG');
      assert.equal(imageSize(shot).width, 393 * 3, 'iPhone 15 Pro: 393 CSS px at 3×');
      const invoice = run.file('invoice.pdf');
      assert.match(textOf(invoice), /Invoice 2026-042/);
      assert.match(textOf(invoice), /1 ?\/ ?1/, 'the footer numbers the pages');
      const devices = JSON.parse(run.stdout) as { data: Array<{ name: string }> };
      assert.ok(devices.data.some((device) => device.name === 'iPhone 15 Pro'));
    },
  },
  'raw-screenshot': {
    answers: [[200, 'image/png']],
    assess: (run) => {
      const png = run.file('page.png');
      assert.ok(png.subarray(0, 8).equals(PNG_MAGIC), 'a PNG');
      assert.equal(imageSize(png).width, 1536 * 2, 'the default device, Macbook Pro 16 at 2×');
    },
  },
  'sync-storage': {
    answers: [[200, JSON_TYPE]],
    assess: async (run, { receiver }) => {
      const answer = JSON.parse(run.stdout) as { status: string; fileUrl: string; signedUrlStatus: string };
      assert.equal(answer.status, 'COMPLETED');
      assert.equal(answer.signedUrlStatus, 'UPLOADED');
      const upload = receiver.requests.find((request) => request.method === 'PUT' && request.url.startsWith('/report.pdf?'));
      assert.ok(upload, 'the PDF was PUT to the pre-signed URL');
      assert.equal(upload.headers['content-type'], PDF);
      assert.ok(upload.body.startsWith('%PDF-'));
      assert.ok(isPdf(Buffer.from(await (await fetch(answer.fileUrl)).arrayBuffer())), 'fileUrl downloads the PDF');
    },
  },
  'async-webhook': {
    answers: [[201, JSON_TYPE]],
    assess: async (run, { receiver }) => {
      const job = JSON.parse(run.stdout) as { id: string; status: string };
      assert.equal(job.status, 'PENDING');
      const call = await waitFor('the webhook', () => receiver.requests.find((request) => request.url === '/hooks/docrender'), 120_000);
      const event = JSON.parse(call.body) as { id: string; status: string; contentType: string; fileUrl: string; metadata: unknown };
      assert.equal(call.method, 'POST');
      assert.equal(call.headers.authorization, 'Bearer receiver-secret');
      assert.deepEqual([event.id, event.status, event.contentType], [job.id, 'COMPLETED', PDF]);
      assert.deepEqual(event.metadata, { orderId: '42' });
      assert.ok(isPdf(Buffer.from(await (await fetch(event.fileUrl)).arrayBuffer())), 'fileUrl downloads the PDF');
    },
  },
  'e-invoice': {
    answers: [[200, PDF]],
    assess: (run) => {
      const invoice = run.file('invoice.pdf');
      assert.match(textOf(invoice), /Rechnung INV-2041/);
      const attached = spawnSync('pdfdetach', ['-list', join(run.dir, 'invoice.pdf')], { encoding: 'utf8' });
      assert.match(attached.stdout, /factur-x\.xml/);
      const xmp = pdfinfo(invoice, ['-meta']).stdout;
      assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
      assert.match(xmp, /INV-2041|factur-x\.xml/);
    },
  },
  'finishing-recipes': {
    answers: [[200, PDF], [200, PDF], [200, PDF], [200, PDF], [200, PDF]],
    assess: (run) => {
      const statement = run.file('statement.pdf');
      assert.notEqual(qpdf(statement, ['--check']).status, 0, 'it does not open without the password');
      const encryption = qpdf(statement, [`--password=${CUSTOMER_PASSWORD}`, '--show-encryption']).stdout;
      assert.match(encryption, /R = 6/);
      assert.match(encryption, /extract for any purpose: not allowed/);
      assert.match(encryption, /print high resolution: allowed/);
      assert.match(textOf(statement, [`-upw`, CUSTOMER_PASSWORD]), /Statement of account/);

      const invoice = run.file('invoice.pdf');
      assert.match(textOf(invoice), /Invoice 2026-0042/);
      // The stamp is rotated 30°: pdftotext reads its letters one by one, in an order that depends on the face's
      // glyph boxes (PAID, DIAP, DIPA…): the four letters in a run, in any order.
      const stamped = textOf(invoice).replace(/\s/g, '').match(/[PAID]{4}/g) ?? [];
      assert.ok(stamped.some((run) => [...run].sort().join('') === 'ADIP'), textOf(invoice));

      const report = run.file('report.pdf');
      assert.equal(pageCountOf(report), 3);
      assert.match(textOf(report), /Cover letter.*Quarter Q3.*Terms and conditions/);
      assert.deepEqual(outlineOf(report).map((item) => item.title), ['Cover', 'Report', 'Terms and conditions']);

      const catalogue = run.file('catalogue.pdf');
      assert.match(textOf(catalogue), /Spring catalogue/);
      // The photo (1,600 px wide, drawn 4 inches wide) is downsampled to 120 dpi: 480 px.
      assert.match(pdfimages(catalogue), /^\s*1\s+0\s+image\s+480\s+300\s+(rgb|icc)\s+3\s+8\s+jpeg/m);

      const reordered = run.file('reordered.pdf');
      assert.equal(pageCountOf(reordered), 8);
      const pages = pdfinfo(reordered, ['-f', '1', '-l', '8']).stdout;
      assert.match(pages, /Page +5 rot: +90/);
      assert.match(textOf(reordered, ['-f', '1', '-l', '1']), /Chapter 9/);
      assert.match(textOf(reordered, ['-f', '2', '-l', '2']), /Chapter 2/);
    },
  },
  'process-recipes': {
    answers: [[200, PDF], [200, JSON_TYPE], [200, PDF]],
    assess: (run) => {
      const contract = run.file('contract-protected.pdf');
      assert.match(qpdf(contract, [`--password=${CUSTOMER_PASSWORD}`, '--show-encryption']).stdout, /R = 6/);
      assert.match(textOf(contract, ['-upw', CUSTOMER_PASSWORD]), /Supply contract/);
      assert.match(textOf(contract, ['-upw', CUSTOMER_PASSWORD]).replace(/\s/g, ''), /CONFIDENTIAL/);

      const facts = JSON.parse(run.file('application.json').toString('utf8')) as { pageCount: number; form: { fields: Array<{ name: string }> } };
      assert.equal(facts.pageCount, 1);
      assert.ok(facts.form.fields.some((field) => field.name === 'applicant.name'), 'the form lists applicant.name');

      const filled = run.file('application-filled.pdf');
      assert.equal(qpdf(filled, ['--check']).status, 0);
      assert.doesNotMatch(qpdf(filled, ['--json', '--json-key=acroform']).stdout, /"hasacroform": true/);
      for (const value of ['Jane Doe', '東京都千代田区']) assert.ok(textOf(filled).includes(value), value);
    },
  },
  'page-images': {
    answers: [[200, 'image/webp'], [200, 'image/jpeg'], [200, JSON_TYPE], [200, JSON_TYPE]],
    assess: async (run) => {
      const thumbnail = run.file('contract-thumbnail.webp');
      assert.equal(thumbnail.subarray(8, 12).toString('latin1'), 'WEBP');
      // A US letter page 200 pixels wide: 259 high.
      assert.deepEqual([imageSize(thumbnail).width, imageSize(thumbnail).height], [200, 259]);
      const preview = run.file('contract-preview.jpg');
      assert.deepEqual([preview[0], preview[1]], [0xff, 0xd8]);
      assert.deepEqual([imageSize(preview).width, imageSize(preview).height], [1275, 1650]);
      const [pages, rendered] = jsonValues(run.stdout) as Array<{ fileUrl: string; fileUrls?: Array<{ page: number; width: number; height: number; fileUrl: string }>; previewUrl?: string }>;
      assert.ok(pages && rendered, 'two JSON answers');
      // The contract's two pages, 160 pixels wide, each a PNG of its own.
      assert.deepEqual(pages.fileUrls?.map(({ page, width, height }) => [page, width, height]), [[1, 160, 207], [2, 160, 207]]);
      for (const { fileUrl } of pages.fileUrls ?? []) assert.ok(Buffer.from(await (await fetch(fileUrl)).arrayBuffer()).subarray(0, 8).equals(PNG_MAGIC));
      const thumb = Buffer.from(await (await fetch(rendered.previewUrl as string)).arrayBuffer());
      assert.equal(thumb.subarray(8, 12).toString('latin1'), 'WEBP');
      assert.equal(imageSize(thumb).width, 240);
      assert.ok(isPdf(Buffer.from(await (await fetch(rendered.fileUrl)).arrayBuffer())));
    },
  },
  templates: {
    answers: [[201, JSON_TYPE], [200, PDF], [200, JSON_TYPE], [200, JSON_TYPE], [200, JSON_TYPE], [204, '']],
    assess: async (run, { service, templateId }) => {
      const [created, list, read, updated] = jsonValues(run.stdout) as Array<{ id: string; name: string; output: string; data?: unknown[] }>;
      assert.ok(created && list && read && updated, 'four JSON answers');
      assert.deepEqual([created.name, created.output], ['Letter', 'PDF']);
      assert.match(created.id, /^tpl_/);
      const letter = run.file('letter.pdf');
      assert.match(textOf(letter), /Dear Grace/);
      const [width, height] = pageSize(letter);
      assert.ok(width > height, 'landscape');
      assert.ok(Array.isArray(list.data));
      assert.equal(read.id, templateId);
      assert.equal(updated.name, 'Letter v2');
      assert.equal((await service.request(`/v1/templates/${templateId}`)).status, 404, 'deleted');
    },
  },
  'tokens-cli': {
    answers: [[200, PDF]],
    assess: (run) => {
      assert.ok(isPdf(run.file('hello.pdf')));
      assert.match(run.stdout, /^Plan: +free$/m);
      assert.match(run.stdout, /^Quota: +1 of 100 renders used this month/m);
    },
  },
};

/** A photo-like PNG (smooth colour with a little grain) of `width` × `height`, opaque. */
function photo(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const grain = ((x * 7 + y * 13) % 5) - 2;
      image.data[at] = Math.round((255 * x) / width) + grain;
      image.data[at + 1] = Math.round((255 * y) / height) + grain;
      image.data[at + 2] = 128 + grain;
      image.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(image);
}

/** Every marked block of every Markdown file. */
function markedBlocks(): FencedBlock[] {
  return markdownFiles().flatMap((file) => readMarkdown(file).blocks.filter((block) => block.example !== undefined));
}

/** The example as it runs here: internet URLs to the local stand-ins, the reader's placeholder lines left out. */
function localScript(code: string, context: Context): string {
  const given = new Set(Object.keys(exampleVariables(context)));
  return code
    .replaceAll('http://127.0.0.1:3000', context.service.baseUrl)
    .replaceAll('https://example.com', context.site.url)
    .replaceAll('https://example.org', context.receiver.url)
    .replaceAll('https://my-bucket.s3.amazonaws.com', context.receiver.url)
    .split('\n')
    .map((line) => {
      const placeholder = /^([A-Z_]+)=\S*…\S*(\s+#.*)?$/.exec(line);
      return placeholder && given.has(placeholder[1]!) ? `: # ${placeholder[1]} is set by the test` : line;
    })
    .join('\n');
}

function exampleVariables({ service, templateId }: Context): Record<string, string> {
  return { BASE: service.baseUrl, TOKEN: service.token, TEMPLATE_ID: templateId, CUSTOMER_PASSWORD, OUR_OWNER_PASSWORD };
}

/**
 * Runs one example with bash. curl reports each answer's status and content
 * type on stderr (`-w '%{stderr}…'`), which the example's own output never
 * carries; the examples use no `-w` of their own.
 */
async function runExample(block: FencedBlock, context: Context, dir: string, env: Record<string, string>): Promise<ExampleRun> {
  const preamble = [
    'set -euo pipefail',
    `curl() { command curl "$@" -w '%{stderr}\\nDOCS-EXAMPLE-ANSWER %{http_code} %{content_type}\\n'; }`,
  ].join('\n');
  const child = spawn('bash', ['-c', `${preamble}\n${localScript(block.code, context)}`], {
    cwd: dir,
    env: { ...process.env, ...env, ...exampleVariables(context), PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A hang guard, not a measure.
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  const answers = [...stderr.matchAll(/^DOCS-EXAMPLE-ANSWER (\d+) ?(.*)$/gm)].map((match): [number, string] => [Number(match[1]), (match[2] ?? '').split(';')[0]!]);
  return { code, stdout, stderr, answers, dir, file: (name) => readFileSync(join(dir, name)) };
}

/** `npm start`'s output holds every line of the block, `…` matching anything, the local base URL the service's. */
function assertPrinted(block: FencedBlock, printed: string, baseUrl: string): string[] {
  const urls: string[] = [];
  for (const line of block.code.trim().split('\n')) {
    const expected = line.replaceAll('http://127.0.0.1:3000', baseUrl);
    const pattern = expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\S*');
    assert.match(printed, new RegExp(`^${pattern}$`, 'm'), `npm start prints a line like "${line}"`);
    urls.push(...(expected.match(/https?:\/\/\S+/g) ?? []));
  }
  return urls;
}

describe('the docs\' examples', () => {
  const blocks = markedBlocks();
  let context: Context;
  let stackFile: string;
  let workRoot: string;
  let applicationPdf: Uint8Array;
  let photoPng: Buffer;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(204).end();
    applicationPdf = await applicationForm();
    photoPng = photo(1600, 1000);
    const site = await startTestServer({
      '/forms/application.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from(applicationPdf)),
      '/': html('<!doctype html><html lang="en"><head><title>Example Domain</title></head><body><h1>Example Domain</h1><p>This domain is for use in documentation examples.</p></body></html>'),
    });
    const receiver = await startTestServer({ '/hooks/docrender': ok, '/hooks/verify': ok, '/report.pdf': (_req, res) => res.writeHead(200).end() });
    stackFile = join(tempDir('docrender-docs-examples-'), 'dev-stack.json');
    const service = await startService({ DEV_STACK_FILE: stackFile });
    context = { service, site, receiver, templateId: '' };
    // Examples run in the checkout's .local/ (ignored by git), so that `npm run` in one finds the project as from its folder.
    workRoot = join(repoRoot, '.local', `docs-examples-${process.pid}`);
    mkdirSync(workRoot, { recursive: true });
  });

  after(async () => {
    if (workRoot) rmSync(workRoot, { recursive: true, force: true });
    await context?.service.stop();
    await context?.site.close();
    await context?.receiver.close();
  });

  it('has checks for every marked block and a marked block for every check, once each', () => {
    const names = blocks.map((block) => block.example!);
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    const stray = markdownFiles().flatMap((file) => readMarkdown(file).strayMarkers.map((line) => `${file}:${line}`));
    assert.deepEqual(repeated, [], 'each example name is used once');
    assert.deepEqual(stray, [], 'every example marker stands right above a fenced block');
    assert.deepEqual(names.filter((name) => !(name in CHECKS)), [], 'marked blocks without checks');
    assert.deepEqual(Object.keys(CHECKS).filter((name) => !names.includes(name)), [], 'checks that name no marked block');
  });

  for (const block of blocks) {
    const check = CHECKS[block.example!];
    it(`${block.example} (${block.file}:${block.line}) runs and does what the docs say`, { skip: check ? false : 'no checks (the test above fails)' }, async () => {
      // Prepare
      assert.ok(check);
      if ('printedBy' in check) {
        assert.equal(block.language, '', 'printed output is a block without a language');

        // Act
        const urls = assertPrinted(block, context.service.output(), context.service.baseUrl);

        // Assess: the links it prints open (the API reference, the studio)
        assert.ok(urls.length > 0);
        for (const url of urls) {
          const response = await fetch(url);
          assert.equal(response.status, 200, url);
          assert.match(response.headers.get('content-type') ?? '', /^text\/html/, url);
        }
        return;
      }
      const dir = join(workRoot, block.example!);
      mkdirSync(dir);
      if ('module' in check) {
        assert.equal(block.language, 'js', 'a module example is a js block');
        writeFileSync(join(dir, 'example.mjs'), block.code);

        // Act
        const exports = (await import(pathToFileURL(join(dir, 'example.mjs')).href)) as Record<string, unknown>;

        // Assess
        await check.module(exports, context);
        return;
      }
      assert.equal(block.language, 'bash', 'a runnable example is a bash block');
      const created = await context.service.request('/v1/templates', {
        json: { name: 'Docs example', variables: { page: { htmlTemplate: b64('<h1>Invoice {{number}}</h1><p>Dear {{name}}</p><p>Quarter {{quarter}}</p>') } } },
      });
      assert.equal(created.status, 201);
      context.templateId = ((await created.json()) as { id: string }).id;
      writeFileSync(join(dir, 'statement.html'), '<!doctype html><title>Statement</title><h1>Statement of account</h1><p>Balance: 120.00 EUR</p>');
      writeFileSync(join(dir, 'cover.html'), '<!doctype html><title>Cover</title><h1>Cover letter</h1>');
      const terms = await context.service.request('/v1/pdf', { json: { page: { html: b64('<h1>Terms and conditions</h1>') } } });
      assert.equal(terms.status, 200);
      writeFileSync(join(dir, 'terms.pdf'), Buffer.from(await terms.arrayBuffer()));
      const contract = await context.service.request('/v1/pdf', { json: { page: { html: b64('<h1>Supply contract</h1><p>The parties agree.</p><h2 style="break-before:page">Schedule</h2>') } } });
      assert.equal(contract.status, 200);
      writeFileSync(join(dir, 'contract.pdf'), Buffer.from(await contract.arrayBuffer()));
      writeFileSync(join(dir, 'application.pdf'), applicationPdf);
      // A photo 1,600 px wide shown 4 inches wide: 400 dpi as printed.
      writeFileSync(
        join(dir, 'catalogue.html'),
        `<!doctype html><title>Catalogue</title><h1>Spring catalogue</h1><img style="width:4in" src="data:image/png;base64,${photoPng.toString('base64')}">`,
      );
      const chapters = Array.from({ length: 9 }, (_, i) => `<section style="break-after:page"><h1>Chapter ${i + 1}</h1></section>`).join('');
      writeFileSync(join(dir, 'report.html'), `<!doctype html><title>Report</title>${chapters}`);

      // Act
      const started = Date.now();
      const run = await runExample(block, context, dir, { DEV_STACK_FILE: stackFile });
      console.log(`example ${block.example}: ${Date.now() - started} ms`);

      // Assess
      assert.equal(run.code, 0, `exit code\n--- stdout\n${run.stdout.slice(0, 2000)}\n--- stderr\n${run.stderr.slice(0, 4000)}`);
      assert.deepEqual(run.answers, check.answers, `curl answers (status, content type)\n--- stdout\n${run.stdout.slice(0, 2000)}`);
      await check.assess(run, context);
    });
  }
});
