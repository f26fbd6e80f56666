/**
 * `npm run smoke -- <base URL> <token> [--webhook URL] [--site URL] [--timeout SECONDS]`:
 * exercises a deployed stage (AWS, LocalStack or `npm start`) the way a
 * customer would, prints what passed and exits non-zero if anything failed.
 *
 * Checks: a raw PDF and a raw screenshot, a sync PDF (its file downloaded),
 * an async PDF (followed on GET /v1/jobs/{id} to its file, and to its webhook
 * with --webhook), a saved template rendered with data, and isolation: a
 * cookie that one render sets is absent from the next render of the same site.
 * The renders use Chromium the way the stack is configured (CHROMIUM_MODE),
 * so a deployment whose launch mode does not work on Lambda fails here.
 *
 * The cookie check renders --site (default https://example.com/, a domain
 * reserved for examples), which the deployment must be able to reach. Async
 * jobs need a webhook: without --webhook it goes to https://example.com/ and
 * only the job endpoint is checked.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { extractText } from 'unpdf';
import { pathToFileURL } from 'node:url';

export type SmokeOptions = {
  baseUrl: string;
  token: string;
  /** A receiver the deployment can reach; then the webhook's delivery is checked too. */
  webhookUrl?: string;
  /** A page with an origin the deployment can reach, for the cookie isolation check. */
  siteUrl?: string;
  /** How long the async job may take, end to end. */
  timeoutMs?: number;
  /** Called as each check ends. */
  onResult?: (result: SmokeResult) => void;
};

export type SmokeResult = { name: string; ok: boolean; ms: number; detail: string };

const DEFAULT_SITE = 'https://example.com/';
const DEFAULT_WEBHOOK = 'https://example.com/docrender-smoke-webhook';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

class SmokeFailure extends Error {}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeFailure(message);
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return text;
}

function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const buffer = Buffer.from(bytes);
  if (buffer.length < 24 || buffer.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every check against the deployment at `baseUrl`; never throws for a failed check. */
export async function runSmoke(opts: SmokeOptions): Promise<SmokeResult[]> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const site = opts.siteUrl ?? DEFAULT_SITE;
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const results: SmokeResult[] = [];

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const response = await fetch(base + path, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${opts.token}`,
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      redirect: 'manual',
      signal: AbortSignal.timeout(60_000),
    });
    return response;
  };
  const bodyOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());
  /** Fails the check with what the deployment said unless it answered `status`. */
  const expectStatus = async (response: Response, status: number, what: string) => {
    if (response.status !== status) throw new SmokeFailure(`${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  };
  /** A raw render's file: the body, or behind the 303 for a file too large for Lambda. */
  const rawFile = async (response: Response) => {
    if (response.status === 303) return bodyOf(await fetch(response.headers.get('location') ?? ''));
    await expectStatus(response, 200, 'the render');
    return bodyOf(response);
  };
  const download = async (url: unknown) => {
    expect(typeof url === 'string' && /^https?:\/\//.test(url), `no file URL (${String(url)})`);
    const file = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    expect(file.ok, `downloading the file answered ${file.status}`);
    return bodyOf(file);
  };

  const check = async (name: string, work: () => Promise<string>) => {
    const started = Date.now();
    let result: SmokeResult;
    try {
      result = { name, ok: true, ms: Date.now() - started, detail: await work() };
      result.ms = Date.now() - started;
    } catch (error) {
      const detail = error instanceof SmokeFailure ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
      result = { name, ok: false, ms: Date.now() - started, detail };
    }
    results.push(result);
    opts.onResult?.(result);
  };

  const marker = `smoke-${randomBytes(4).toString('hex')}`;

  await check('raw PDF', async () => {
    const html = `<h1>DocRender smoke ${marker}</h1><p>Héllo wörld</p>`;
    const bytes = await rawFile(await api('/v1/pdf', { json: { page: { html: b64(html) }, pdf: { format: 'a4' } } }));
    expect(isPdf(bytes), 'the answer is not a PDF');
    const text = await pdfText(bytes);
    expect(text.includes(marker), `the PDF does not hold the page's text (${text.slice(0, 80)})`);
    return `${bytes.length} bytes`;
  });

  await check('raw screenshot', async () => {
    const html = '<body style="margin:0;background:#0a7"><h1>smoke</h1></body>';
    const bytes = await rawFile(
      await api('/v1/screenshot', { json: { page: { html: b64(html) }, screenshot: { viewport: { width: 640, height: 400 } } } }),
    );
    const size = pngSize(bytes);
    expect(size, 'the answer is not a PNG');
    expect(size.width === 640 && size.height === 400, `the image is ${size.width}x${size.height}, not 640x400`);
    return `PNG ${size.width}x${size.height}`;
  });

  await check('sync PDF', async () => {
    const response = await api('/v1/pdf/sync', { json: { page: { html: b64(`<p>sync ${marker}</p>`) } } });
    await expectStatus(response, 200, 'POST /v1/pdf/sync');
    const body = (await response.json()) as { status?: string; fileUrl?: string; signedUrlStatus?: string };
    expect(body.status === 'COMPLETED', `status ${body.status}`);
    const bytes = await download(body.fileUrl);
    expect(isPdf(bytes) && (await pdfText(bytes)).includes(marker), 'the file at fileUrl is not the rendered PDF');
    return `fileUrl served ${bytes.length} bytes`;
  });

  await check(opts.webhookUrl ? 'async PDF, job and webhook' : 'async PDF and job', async () => {
    const response = await api('/v1/pdf/async', {
      json: {
        page: { html: b64(`<p>async ${marker}</p>`) },
        webhook: { url: opts.webhookUrl ?? DEFAULT_WEBHOOK, metadata: { smoke: marker } },
      },
    });
    await expectStatus(response, 201, 'POST /v1/pdf/async');
    const { id, status } = (await response.json()) as { id: string; status: string };
    expect(status === 'PENDING', `queued as ${status}`);
    const deadline = Date.now() + timeoutMs;
    type JobView = { status: string; fileUrl?: string; error?: { message?: string }; webhook?: { status: string; attempts: number } };
    let job: JobView | undefined;
    const settled = (view: JobView) =>
      (view.status === 'COMPLETED' || view.status === 'FAILED') &&
      (!opts.webhookUrl || (view.webhook?.status !== 'PENDING' && view.webhook?.status !== 'RETRYING'));
    while (Date.now() < deadline) {
      const read = await api(`/v1/jobs/${id}`);
      await expectStatus(read, 200, `GET /v1/jobs/${id}`);
      job = (await read.json()) as JobView;
      if (settled(job)) break;
      await sleep(1000);
    }
    expect(job && (job.status === 'COMPLETED' || job.status === 'FAILED'), `job ${id} still ${job?.status} after ${timeoutMs / 1000} s`);
    expect(job.status === 'COMPLETED', `job ${id} FAILED: ${job.error?.message ?? 'no reason given'}`);
    const bytes = await download(job.fileUrl);
    expect(isPdf(bytes) && (await pdfText(bytes)).includes(marker), 'the job file is not the rendered PDF');
    if (!opts.webhookUrl) return `job ${id} COMPLETED, file served (webhook not checked: no --webhook)`;
    expect(job.webhook?.status === 'DELIVERED', `webhook ${job.webhook?.status} after ${job.webhook?.attempts} attempt(s)`);
    return `job ${id} COMPLETED, webhook DELIVERED`;
  });

  await check('template', async () => {
    const created = await api('/v1/templates', {
      json: { name: `smoke ${marker}`, variables: { page: { htmlTemplate: b64('<h1>Invoice {{number}}</h1>') }, pdf: { format: 'a5' } } },
    });
    await expectStatus(created, 201, 'POST /v1/templates');
    const { id } = (await created.json()) as { id: string };
    try {
      const bytes = await rawFile(await api(`/v1/template/${id}`, { json: { page: { templateData: { number: marker } } } }));
      expect(isPdf(bytes), 'the template render is not a PDF');
      const text = await pdfText(bytes);
      expect(text.includes(`Invoice ${marker}`), `the PDF does not hold the merged data (${text.slice(0, 80)})`);
    } finally {
      await api(`/v1/templates/${id}`, { method: 'DELETE' }).catch(() => undefined);
    }
    return `template ${id} rendered with its data, then deleted`;
  });

  await check('isolation between renders', async () => {
    const nonce = randomBytes(6).toString('hex');
    // waitForFunction runs in the page: it sets (or only reads) the cookie and writes what it sees into the page.
    const show = "document.body.textContent = 'cookie=[' + document.cookie + ']'";
    const setAndShow = `(document.cookie = 'docrender_smoke=${nonce}; max-age=3600; path=/', ${show}, true)`;
    const first = await rawFile(
      await api('/v1/pdf', { json: { page: { url: site, adblock: false, waitForFunction: { pageFunction: setAndShow } } } }),
    );
    const firstText = await pdfText(first);
    expect(firstText.includes(nonce), `the first render could not set a cookie on ${site} (${firstText.slice(0, 80)})`);
    const second = await rawFile(
      await api('/v1/pdf', { json: { page: { url: site, adblock: false, waitForFunction: { pageFunction: `(${show}, true)` } } } }),
    );
    const secondText = await pdfText(second);
    expect(/cookie=\[/.test(secondText), `the second render did not run its check (${secondText.slice(0, 80)})`);
    expect(!secondText.includes(nonce), 'the cookie set by the first render was there in the next one');
    return `a cookie set on ${new URL(site).host} did not reach the next render`;
  });

  return results;
}

const USAGE = `Usage: npm run smoke -- <base URL> <token> [--webhook URL] [--site URL] [--timeout SECONDS]

  <base URL>   the deployment, e.g. the ApiUrl output of serverless deploy
  <token>      an active token of that deployment (npm run -s tokens -- create --stage <stage>)
  --webhook    a receiver the deployment can reach; its delivery is checked too
  --site       a page the deployment can reach, for the cookie check (default ${DEFAULT_SITE})
  --timeout    seconds an async job may take (default 180)
`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      options: { webhook: { type: 'string' }, site: { type: 'string' }, timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [baseUrl, token] = positionals;
  if (!baseUrl || !token || positionals.length > 2) {
    process.stderr.write(USAGE);
    return 2;
  }
  process.stdout.write(`Smoke test of ${baseUrl}\n`);
  const results = await runSmoke({
    baseUrl,
    token,
    webhookUrl: values.webhook,
    siteUrl: values.site,
    timeoutMs: values.timeout ? Number(values.timeout) * 1000 : undefined,
    onResult: (r) => process.stdout.write(`${r.ok ? '✔' : '✘'} ${r.name} (${r.ms} ms): ${r.detail}\n`),
  });
  const failed = results.filter((r) => !r.ok).length;
  process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
