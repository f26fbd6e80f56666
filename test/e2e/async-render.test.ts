import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readLiveDevStack } from '../../scripts/local-runtime/dev-stack.js';
import { readImage, readPdf } from '../helpers/documents.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait-for.js';
import { html, startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempDir } from '../helpers/temp-dir.js';

type Account = { token: string; accountId: string; webhookSecret: string };
type WebhookCall = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
type JobBody = {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  fileUrl?: string;
  signedUrlStatus?: string;
  error?: { code: string; message: string; fields?: Record<string, string> };
  webhook: { status: string; attempts: number };
};

/** decisions.md's fields in its order; a completed job adds what it cost (issue 47) last: a PDF's pages and the render's milliseconds. */
const WEBHOOK_FIELDS = ['id', 'status', 'output', 'contentType', 'fileSize', 'fileUrl', 'signedUrlStatus', 'metadata', 'createdAt', 'completedAt'];
const PDF_COST = ['pageCount', 'renderMs'];

/** Verifies a Standard Webhooks signature the way a receiver would, with node:crypto alone. */
function verifySignature(secret: string, call: WebhookCall): boolean {
  const id = String(call.headers['webhook-id']);
  const timestamp = String(call.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${call.body}`).digest();
  return String(call.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('async rendering, webhooks and the job endpoint', () => {
  let service: RunningService;
  let receiver: TestServer;
  let account: Account;
  let sqs: SQSClient;
  /** The stage the service runs as: its queues are docrender-<stage>-…. */
  let stage: string;
  const stackFile = join(tempDir('docrender-async-'), 'dev-stack.json');
  let flakyCalls = 0;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    receiver = await startTestServer({
      '/page/report': html('<h1>Monthly report</h1>'),
      '/page/shot': html('<body style="margin:0;background:#123456">shot</body>'),
      '/page/duplicate': html('<p>rendered once</p>'),
      '/hook/pdf': ok,
      '/hook/shot': ok,
      '/hook/template': ok,
      '/hook/bands': ok,
      '/hook/merged-bands': ok,
      '/hook/failed': ok,
      '/hook/duplicate': ok,
      '/hook/flaky': (_req, res) => {
        flakyCalls += 1;
        res.writeHead(flakyCalls === 1 ? 503 : 204).end();
      },
      '/upload': ok,
    });
    // Retries a second apart so the retry test does not wait for the production delays.
    service = await startService({ WEBHOOK_RETRY_DELAYS: '1,1,1,1,1', DEV_STACK_FILE: stackFile });
    account = JSON.parse((await service.tokens('create', '--json')).stdout) as Account;
    const stack = readLiveDevStack(stackFile);
    assert.ok(stack, 'the service wrote its stack file');
    stage = stack.stage;
    sqs = new SQSClient({
      region: stack.region,
      endpoint: stack.endpoints.sqs,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      useQueueUrlAsEndpoint: false,
    });
  });
  after(async () => {
    sqs?.destroy();
    await service?.stop();
    await receiver?.close();
  });

  const submit = async (path: string, json: unknown) => {
    const res = await service.request(path, { json, token: account.token });
    const body = (await res.json()) as { id: string; status: string; fields?: Record<string, string> };
    return { status: res.status, body };
  };
  const webhookCalls = (path: string): WebhookCall[] => receiver.requests.filter((r) => r.url === path);
  const firstWebhook = (path: string) => waitFor(`the webhook ${path}`, () => webhookCalls(path)[0]);
  const getJob = async (id: string, token = account.token) => {
    const res = await service.request(`/v1/jobs/${id}`, { token });
    return { status: res.status, body: (await res.json()) as JobBody };
  };
  const settledJob = (id: string) =>
    waitFor(`job ${id} to settle`, async () => {
      const { body } = await getJob(id);
      return ['DELIVERED', 'FAILED'].includes(body.webhook.status) ? body : undefined;
    });
  const queueUrl = async (name: string) =>
    (await sqs.send(new GetQueueUrlCommand({ QueueName: `docrender-${stage}-${name}` }))).QueueUrl as string;
  const drained = (url: string) =>
    waitFor(`queue ${url} to drain`, async () => {
      const { Attributes: a = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      const left = Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) + Number(a.ApproximateNumberOfMessagesDelayed);
      return left === 0 ? true : undefined;
    });

  it('queues a PDF job (201 PENDING), then POSTs a signed webhook with the configured headers and metadata; the fileUrl serves the PDF', async () => {
    // Act
    const queued = await submit('/v1/pdf/async', {
      page: { url: `${receiver.url}/page/report` },
      pdf: { format: 'a4' },
      webhook: {
        url: `${receiver.url}/hook/pdf`,
        headers: { Authorization: 'Bearer receiver-secret', 'X-Tenant': 'acme' },
        metadata: { orderId: '42', customer: 'Zoë' },
      },
    });
    const call = await firstWebhook('/hook/pdf');

    // Assess: the queuing answer
    assert.equal(queued.status, 201);
    assert.deepEqual(Object.keys(queued.body).sort(), ['id', 'status']);
    assert.equal(queued.body.status, 'PENDING');
    // the webhook call
    assert.equal(call.method, 'POST');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.equal(call.headers.authorization, 'Bearer receiver-secret');
    assert.equal(call.headers['x-tenant'], 'acme');
    assert.equal(call.headers['webhook-id'], queued.body.id);
    assert.ok(Math.abs(Number(call.headers['webhook-timestamp']) - Date.now() / 1000) < 300, 'timestamp is now, in seconds');
    assert.ok(verifySignature(account.webhookSecret, call), 'signature verifies with the account secret');
    assert.equal(verifySignature(account.webhookSecret, { ...call, body: call.body.replace('42', '43') }), false);
    const body = JSON.parse(call.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), [...WEBHOOK_FIELDS, ...PDF_COST]);
    assert.equal(body.id, queued.body.id);
    assert.equal(body.status, 'COMPLETED');
    assert.equal(body.output, 'PDF');
    assert.equal(body.contentType, 'application/pdf');
    assert.equal(body.signedUrlStatus, 'NOT_PROVIDED');
    assert.deepEqual(body.metadata, { orderId: '42', customer: 'Zoë' });
    assert.ok(Date.parse(String(body.createdAt)) <= Date.parse(String(body.completedAt)));
    const download = await fetch(String(body.fileUrl));
    assert.equal(download.status, 200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    assert.equal(body.fileSize, bytes.length);
    assert.match((await readPdf(bytes)).text.join(' '), /Monthly report/);
    // and the job as its owner sees it
    const job = await settledJob(queued.body.id);
    assert.equal(job.status, 'COMPLETED');
    assert.deepEqual(job.webhook, { status: 'DELIVERED', attempts: 1 });
    assert.equal(job.signedUrlStatus, 'NOT_PROVIDED');
    assert.equal((await fetch(String(job.fileUrl))).status, 200);
  });

  it('PUTs the webhook with the file in fileBase64 for receiveType base64, after uploading to the caller’s URL', async () => {
    // Act
    const queued = await submit('/v1/screenshot/async', {
      page: { url: `${receiver.url}/page/shot` },
      screenshot: { viewport: { width: 300, height: 200 } },
      storage: { preSignedUrl: `${receiver.url}/upload` },
      webhook: { url: `${receiver.url}/hook/shot`, method: 'PUT', receiveType: 'base64' },
    });
    const call = await firstWebhook('/hook/shot');

    // Assess
    assert.equal(queued.status, 201);
    assert.equal(call.method, 'PUT');
    assert.ok(verifySignature(account.webhookSecret, call));
    const body = JSON.parse(call.body) as Record<string, unknown>;
    // an image has no page count: only its render time is added
    assert.deepEqual(Object.keys(body), [...WEBHOOK_FIELDS.map((field) => (field === 'fileUrl' ? 'fileBase64' : field)), 'renderMs']);
    assert.equal(body.output, 'IMAGE');
    assert.equal(body.contentType, 'image/png');
    assert.equal(body.signedUrlStatus, 'UPLOADED');
    assert.deepEqual(body.metadata, {});
    const image = Buffer.from(String(body.fileBase64), 'base64');
    assert.equal(body.fileSize, image.length);
    assert.deepEqual(readImage(image), { type: 'png', width: 300, height: 200 });
    const upload = receiver.requests.find((r) => r.url === '/upload');
    assert.equal(upload?.method, 'PUT');
    assert.equal(upload?.headers['content-type'], 'image/png');
  });

  it('renders a saved template asynchronously with the request merged over it; 404 comes before 400', async () => {
    // Prepare
    const created = await service.request('/v1/templates', {
      json: { name: 'Invoice', variables: { page: { htmlTemplate: b64('<h1>Invoice {{number}}</h1>'), templateData: { number: '1' } } } },
      token: account.token,
    });
    const { id } = (await created.json()) as { id: string };

    // Act
    const queued = await submit(`/v1/template/${id}/async`, {
      page: { templateData: { number: 'A-77' } },
      webhook: { url: `${receiver.url}/hook/template` },
    });
    const call = await firstWebhook('/hook/template');
    const unknown = await submit('/v1/template/tpl_00000000000000000000000000/async', { bogus: true });

    // Assess
    assert.equal(queued.status, 201);
    const body = JSON.parse(call.body) as { output: string; fileUrl: string };
    assert.equal(body.output, 'PDF');
    const pdf = await readPdf(new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer()));
    assert.match(pdf.text.join(' '), /Invoice A-77/);
    assert.equal(unknown.status, 404);
  });

  it("carries the bands in an async job's file: a render's header and a merge's footer over its merged pages", async () => {
    // Act
    const rendered = await submit('/v1/pdf/async', {
      page: { html: b64('<h1>First</h1><h1 style="break-before:page">Second</h1>') },
      pdf: { header: { html: b64('<p style="font:9px sans-serif">Async band <span class="pageNumber"></span>/<span class="totalPages"></span> <span class="section"></span></p>') } },
      webhook: { url: `${receiver.url}/hook/bands` },
    });
    const merged = await submit('/v1/pdf/merge/async', {
      parts: [{ page: { html: b64('<p>Part one</p>') } }, { page: { html: b64('<p>Part two</p><p style="break-before:page">Part two, again</p>') } }],
      pdf: { footer: { htmlTemplate: b64('<p style="font:9px sans-serif">Merged {{pageNumber}} of {{totalPages}}</p>') } },
      webhook: { url: `${receiver.url}/hook/merged-bands` },
    });
    assert.equal(rendered.status, 201, JSON.stringify(rendered.body));
    assert.equal(merged.status, 201, JSON.stringify(merged.body));
    const files = await Promise.all(
      ['/hook/bands', '/hook/merged-bands'].map(async (path) => {
        const call = await firstWebhook(path);
        const body = JSON.parse(call.body) as { status: string; fileUrl: string };
        assert.equal(body.status, 'COMPLETED', call.body);
        return readPdf(new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer()));
      }),
    );

    // Assess
    const [single, merge] = files as [Awaited<ReturnType<typeof readPdf>>, Awaited<ReturnType<typeof readPdf>>];
    assert.match(single.text[0] ?? '', /Async band 1\/2 First/);
    assert.match(single.text[1] ?? '', /Async band 2\/2 Second/);
    assert.equal(merge.pageCount, 3);
    merge.text.forEach((page, index) => assert.match(page, new RegExp(`Merged ${index + 1} of 3`)));
  });

  it('refuses an async request without a webhook (400 naming it)', async () => {
    const res = await submit('/v1/pdf/async', { page: { html: b64('<p>x</p>') } });
    assert.equal(res.status, 400);
    assert.equal(typeof res.body.fields?.webhook, 'string');
  });

  it('ends a job whose page cannot load as FAILED, says why in its webhook and on the job', async () => {
    // Prepare: a port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    // Act
    const queued = await submit('/v1/screenshot/async', {
      page: { url: `http://127.0.0.1:${port}/nothing-here` },
      webhook: { url: `${receiver.url}/hook/failed`, metadata: { attempt: 'x' } },
    });
    const call = await firstWebhook('/hook/failed');

    // Assess
    assert.ok(verifySignature(account.webhookSecret, call));
    const body = JSON.parse(call.body) as Record<string, unknown> & { error: JobBody['error'] };
    assert.equal(body.status, 'FAILED');
    assert.equal(body.fileUrl, null);
    assert.equal(body.contentType, null);
    assert.equal(body.fileSize, null);
    assert.deepEqual(body.metadata, { attempt: 'x' });
    assert.equal(body.error?.code, 'render.navigation');
    assert.match(String(body.error?.fields?.['page.url']), /\S/);
    const job = await settledJob(queued.body.id);
    assert.equal(job.status, 'FAILED');
    assert.deepEqual(job.error, body.error);
    assert.equal(job.fileUrl, undefined);
  });

  it('retries a webhook whose receiver failed at first, without rendering again, and records both attempts', async () => {
    // Act
    const queued = await submit('/v1/pdf/async', {
      page: { html: b64('<p>retry me</p>') },
      webhook: { url: `${receiver.url}/hook/flaky` },
    });
    const job = await settledJob(queued.body.id);

    // Assess
    const calls = webhookCalls('/hook/flaky');
    assert.equal(calls.length, 2);
    assert.deepEqual(job.webhook, { status: 'DELIVERED', attempts: 2 });
    assert.equal(calls[0]?.headers['webhook-id'], calls[1]?.headers['webhook-id'], 'one message id across retries');
    for (const call of calls) assert.ok(verifySignature(account.webhookSecret, call));
    const [first, second] = calls.map((call) => JSON.parse(call.body) as { fileUrl: string; completedAt: string });
    assert.equal(first?.completedAt, second?.completedAt, 'the same result, not a new render');
    assert.equal(new URL(String(first?.fileUrl)).pathname, new URL(String(second?.fileUrl)).pathname);
  });

  it('renders once and calls the webhook once although the job and webhook messages are delivered twice', async () => {
    // Prepare
    const queued = await submit('/v1/screenshot/async', {
      page: { url: `${receiver.url}/page/duplicate` },
      screenshot: { viewport: { width: 200, height: 100 } },
      webhook: { url: `${receiver.url}/hook/duplicate` },
    });
    await settledJob(queued.body.id);
    const jobsQueue = await queueUrl('JobsQueue');
    const webhooksQueue = await queueUrl('WebhooksQueue');

    // Act: SQS delivers at least once; here the duplicates are sent by hand.
    const key = { accountId: account.accountId, jobId: queued.body.id };
    await sqs.send(new SendMessageCommand({ QueueUrl: jobsQueue, MessageBody: JSON.stringify(key) }));
    await sqs.send(new SendMessageCommand({ QueueUrl: webhooksQueue, MessageBody: JSON.stringify({ ...key, attempt: 1 }) }));
    await drained(jobsQueue);
    await drained(webhooksQueue);

    // Assess
    assert.equal(receiver.requests.filter((r) => r.url === '/page/duplicate').length, 1, 'the page was loaded once');
    assert.equal(webhookCalls('/hook/duplicate').length, 1);
    const job = await getJob(queued.body.id);
    assert.deepEqual(job.body.webhook, { status: 'DELIVERED', attempts: 1 });
  });

  it('shows a job to its owner only: another account, an unknown id and a malformed id are 404', async () => {
    // Prepare
    const queued = await submit('/v1/pdf/async', { page: { html: b64('<p>mine</p>') }, webhook: { url: `${receiver.url}/hook/pdf` } });
    const other = (await service.tokens('create')).stdout.trim();

    // Act
    const mine = await getJob(queued.body.id);
    const theirs = await getJob(queued.body.id, other);
    const unknown = await getJob('job_00000000000000000000000000');
    const malformed = await getJob('not-a-job');

    // Assess
    assert.equal(mine.status, 200);
    assert.equal(mine.body.id, queued.body.id);
    assert.ok(['PENDING', 'RUNNING', 'COMPLETED'].includes(mine.body.status));
    for (const res of [theirs, unknown, malformed]) {
      assert.equal(res.status, 404);
      assert.deepEqual(Object.keys(res.body), ['message']);
    }
  });
});
