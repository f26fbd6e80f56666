/**
 * Drop-in suite: code written against the vendor's Node SDK and its
 * documented webhook verification, pointed at our base URL, works unchanged.
 * Calls, bodies and expected answers come from the vendor's public API
 * reference and the SDK's models (see vendor-client.ts), not from our README.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { readImage, readPdf } from '../../helpers/documents.js';
import { startService, type RunningService } from '../../helpers/service.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { createVendorClient, VendorApiError, type WebhookEvent } from './vendor-client.js';

const JOB_STATUSES = ['PENDING', 'RUNNING', 'FAILED', 'COMPLETED'];
const SIGNED_URL_STATUSES = ['NOT_PROVIDED', 'UPLOADED', 'FAILED'];
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function rejectsWith(promise: Promise<unknown>, status: number): Promise<VendorApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof VendorApiError, String(error));
    assert.equal(error.status, status, JSON.stringify(error.data));
    return error;
  }
  assert.fail(`expected a ${status}`);
}

describe('drop-in for the vendor SDK', () => {
  let service: RunningService;
  let receiver: TestServer;
  let client: ReturnType<typeof createVendorClient>;
  let webhookSecret: string;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    receiver = await startTestServer({ '/webhook': ok, '/webhook-base64': ok, '/upload': ok });
    service = await startService();
    // The secret is the one `npm start` prints with its token, as the vendor's settings page shows it.
    webhookSecret = /^Webhook signing secret: (whsec_\S+)$/m.exec(service.output())?.[1] ?? '';
    assert.ok(webhookSecret, `npm start prints the signing secret:\n${service.output()}`);
    client = createVendorClient(service.token, { baseURL: service.baseUrl });
  });

  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  describe('pdf', () => {
    it('direct: plain HTML in (the SDK base64-encodes it), PDF bytes out, with the rate-limit headers the SDK reads', async () => {
      // Act
      const pdf = await client.pdf.direct({ page: { html: '<h1>Your first Doczilla PDF</h1>' } });

      // Assess
      assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
      assert.match((await readPdf(pdf)).text.join(' '), /Your first Doczilla PDF/);
      const headers = client.lastHeaders()!;
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        assert.match(headers.get(name) ?? '', /^\d+$/, name);
      }
    });

    it('prints headerHtml/footerHtml only with displayHeaderFooter: true (default false)', async () => {
      // Prepare
      const page = { html: '<title>Report</title><p>Body text</p>' };
      const pdf = { footerHtml: '<div style="font-size:10px">Footer page <span class="pageNumber"></span></div>' };

      // Act
      const shown = await readPdf(await client.pdf.direct({ page, pdf: { ...pdf, displayHeaderFooter: true } }));
      const hidden = await readPdf(await client.pdf.direct({ page, pdf }));

      // Assess
      assert.match(shown.text.join(' '), /Footer page 1/);
      assert.doesNotMatch(hidden.text.join(' '), /Footer page/);
    });

    it('takes margin sides as strings with a unit or numbers (PDFMargin), and answers anything else with a 400', async () => {
      // Act
      const mixed = await client.pdf.direct({ page: { html: '<p>m</p>' }, pdf: { margin: { top: '1in', bottom: 40, left: '2cm', right: 0 } } });
      const error = await rejectsWith(client.pdf.direct({ page: { html: '<p>m</p>' }, pdf: { margin: { top: true } } }), 400);

      // Assess
      assert.equal(mixed.subarray(0, 5).toString(), '%PDF-');
      assert.equal(typeof error.data.message, 'string');
      assert.equal(error.data.code, 'api.validation');
      assert.ok('pdf.margin.top' in error.data.fields, JSON.stringify(error.data));
    });

    it('sync: a SyncJob whose fileUrl downloads the PDF; with storage.preSignedUrl the file is uploaded there', async () => {
      // Act
      const job = await client.pdf.sync({ page: { html: '<p>sync</p>' } });
      const stored = await client.pdf.sync({ page: { html: '<p>stored</p>' }, storage: { preSignedUrl: `${receiver.url}/upload` } });

      // Assess
      assert.equal(typeof job.id, 'string');
      assert.ok(JOB_STATUSES.includes(job.status));
      assert.equal(job.signedUrlStatus, 'NOT_PROVIDED');
      const download = await fetch(job.fileUrl!);
      assert.equal(download.status, 200);
      assert.equal(Buffer.from(await download.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
      assert.equal(stored.signedUrlStatus, 'UPLOADED');
      const upload = receiver.requests.find((r) => r.url === '/upload');
      assert.equal(upload?.method, 'PUT');
    });
  });

  describe('screenshot', () => {
    it('direct: image bytes out (png by default)', async () => {
      // Act
      const image = await client.screenshot.direct({ page: { html: '<body style="background:#0a0">shot</body>' }, screenshot: { viewport: { width: 400, height: 300 } } });

      // Assess
      assert.deepEqual(readImage(image), { type: 'png', width: 400, height: 300 });
    });

    it('sync: a SyncJob with a fileUrl', async () => {
      // Act
      const job = await client.screenshot.sync({ page: { html: '<p>shot</p>' }, screenshot: { type: 'jpeg', quality: 80 } });

      // Assess
      assert.ok(JOB_STATUSES.includes(job.status));
      assert.ok(SIGNED_URL_STATUSES.includes(job.signedUrlStatus!));
      const download = await fetch(job.fileUrl!);
      assert.equal(readImage(Buffer.from(await download.arrayBuffer())).type, 'jpg');
    });
  });

  describe('templates', () => {
    it('create, get, list with paging, update (POST, as the SDK sends it), render, delete (204)', async () => {
      // Act: create as the SDK's CreateTemplate model describes (name, output, variables), plain HTML in.
      const created = await client.template.create({
        name: 'Invoice',
        output: 'PDF',
        variables: { page: { htmlTemplate: '<h1>Invoice {{number}}</h1>' }, pdf: { format: 'a4' } },
      });

      // Assess the Template model
      assert.equal(created.name, 'Invoice');
      assert.equal(created.output, 'PDF');
      assert.match(created.createdAt, ISO_DATE);
      assert.match(created.updatedAt, ISO_DATE);
      assert.equal(Buffer.from(created.variables.page.htmlTemplate, 'base64').toString(), '<h1>Invoice {{number}}</h1>');
      const fetched = await client.template.get(created.id);
      assert.deepEqual(fetched, created);

      // Update: the SDK POSTs to /v1/templates/{id}
      await client.template.update(created.id, { name: 'Invoice v2', variables: { page: { htmlTemplate: '<h1>Invoice #{{number}}</h1>' } } });
      const updated = await client.template.get(created.id);
      assert.equal(updated.name, 'Invoice v2');
      assert.equal(Buffer.from(updated.variables.page.htmlTemplate, 'base64').toString(), '<h1>Invoice #{{number}}</h1>');

      // Render from it, the three ways
      const direct = await client.template.direct(created.id, { page: { templateData: { number: '42' } } });
      assert.match((await readPdf(direct)).text.join(' '), /Invoice #42/);
      const sync = await client.template.sync(created.id, { page: { templateData: { number: '43' } } });
      assert.match((await readPdf(Buffer.from(await (await fetch(sync.fileUrl!)).arrayBuffer()))).text.join(' '), /Invoice #43/);

      // List: ListTemplateResponse, one page of 20
      const first = await client.template.list();
      assert.equal(first.hasPreviousPage, false);
      const item = first.data.find((t) => t.id === created.id);
      assert.ok(item, 'the new template is listed');
      assert.equal(item.name, 'Invoice v2');
      assert.equal(item.output, 'PDF');
      assert.match(item.createdAt, ISO_DATE);

      // Delete: 204, then it is gone
      assert.equal(await client.template.delete(created.id), '');
      await rejectsWith(client.template.get(created.id), 404);
    });

    it('pages the list with { page } (hasNextPage / hasPreviousPage)', async () => {
      // Prepare: more than a page
      for (let i = 0; i < 21; i += 1) await client.template.create({ name: `paged ${i}`, output: 'IMAGE', variables: { screenshot: {} } });

      // Act
      const first = await client.template.list({ page: 1 });
      const second = await client.template.list({ page: 2 });

      // Assess
      assert.equal(first.data.length, 20);
      assert.equal(first.hasNextPage, true);
      assert.equal(first.hasPreviousPage, false);
      assert.equal(second.hasPreviousPage, true);
      assert.ok(second.data.length >= 1);
      assert.equal(new Set([...first.data, ...second.data].map((t) => t.id)).size, first.data.length + second.data.length);
    });
  });

  describe('async and the webhook', () => {
    it('queues an AsyncJob and calls the webhook with a WebhookEvent that verifyPayload accepts with the printed secret', async () => {
      // Act
      const job = await client.pdf.async({
        page: { html: '<p>queued</p>' },
        webhook: { url: `${receiver.url}/webhook`, metadata: { orderId: '42' } },
      });
      const call = await waitFor('the webhook call', () => receiver.requests.find((r) => r.url === '/webhook'));

      // Assess: AsyncJob
      assert.equal(typeof job.id, 'string');
      assert.equal(job.status, 'PENDING');
      // The vendor's documented verification: raw body, x-doczilla-signature, the secret string.
      const event: WebhookEvent = client.webhook.verifyPayload(call.body, String(call.headers['x-doczilla-signature']), webhookSecret);
      assert.equal(event.id, job.id);
      assert.equal(event.status, 'COMPLETED');
      assert.equal(event.signedUrlStatus, 'NOT_PROVIDED');
      assert.deepEqual(event.metadata, { orderId: '42' });
      const download = await fetch(event.fileUrl!);
      assert.equal(Buffer.from(await download.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
      assert.equal(call.method, 'POST');
      // And a forged or altered body is refused
      assert.throws(() => client.webhook.verifyPayload(call.body.replace('COMPLETED', 'FAILED'), String(call.headers['x-doczilla-signature']), webhookSecret), /Signature does not match/);
      assert.throws(() => client.webhook.verifyPayload(call.body, String(call.headers['x-doczilla-signature']), 'whsec_other'), /Signature does not match/);
    });

    it('sends the file as fileBase64 with receiveType base64, by PUT when asked, from a screenshot and from a template', async () => {
      // Prepare
      const template = await client.template.create({ name: 'Shot', output: 'IMAGE', variables: { page: { html: '<p>tpl</p>' } } });

      // Act
      const shot = await client.screenshot.async({
        page: { html: '<p>queued shot</p>' },
        screenshot: { viewport: { width: 320, height: 200 } },
        webhook: { url: `${receiver.url}/webhook-base64`, receiveType: 'base64', method: 'PUT' },
      });
      const fromTemplate = await client.template.async(template.id, { webhook: { url: `${receiver.url}/webhook-base64`, receiveType: 'base64' } });
      const calls = await waitFor('both webhook calls', () => {
        const found = receiver.requests.filter((r) => r.url === '/webhook-base64');
        return found.length >= 2 ? found : undefined;
      });

      // Assess
      for (const job of [shot, fromTemplate]) {
        const call = calls.find((c) => JSON.parse(c.body).id === job.id);
        assert.ok(call, `webhook for ${job.id}`);
        const event = client.webhook.verifyPayload(call.body, String(call.headers['x-doczilla-signature']), webhookSecret);
        assert.equal(event.status, 'COMPLETED');
        assert.equal(readImage(Buffer.from(event.fileBase64!, 'base64')).type, 'png');
      }
      assert.equal(calls.find((c) => JSON.parse(c.body).id === shot.id)?.method, 'PUT');
    });
  });

  describe('the signing secret, as the vendor settings page would show it', () => {
    it('`tokens show` prints account id, plan, state and secret: the printed one for the npm start token, the issued one for others', async () => {
      // Prepare
      const issued = JSON.parse((await service.tokens('create', '--plan', 'free', '--json')).stdout) as { token: string; accountId: string; webhookSecret: string };
      await service.tokens('deactivate', issued.token);

      // Act
      const mine = JSON.parse((await service.tokens('show', '--json', service.token)).stdout) as Record<string, unknown>;
      const theirs = JSON.parse((await service.tokens('show', '--json', issued.token)).stdout) as Record<string, unknown>;
      const text = (await service.tokens('show', issued.token)).stdout;
      const unknown = await service.tokens('show', 'dr_not_a_token_of_this_service').then(
        () => 'exit 0',
        (error: { code?: number; stderr?: string }) => `exit ${error.code}: ${error.stderr}`,
      );

      // Assess
      assert.equal(mine.webhookSecret, webhookSecret);
      assert.equal(mine.active, true);
      assert.equal(mine.plan, 'unlimited');
      assert.equal(typeof mine.accountId, 'string');
      assert.deepEqual(
        { accountId: theirs.accountId, webhookSecret: theirs.webhookSecret, plan: theirs.plan, active: theirs.active },
        { accountId: issued.accountId, webhookSecret: issued.webhookSecret, plan: 'free', active: false },
      );
      assert.ok(text.includes(`Webhook signing secret: ${issued.webhookSecret}`), text);
      assert.ok(text.includes(issued.accountId), text);
      assert.match(unknown, /^exit 1: tokens: Unknown token/);
    });
  });

  describe('errors', () => {
    it('answers a wrong token with 401 {message}, an unknown template with 404 {message}, a bad body with 400 {message, code, fields}', async () => {
      // Prepare
      const stranger = createVendorClient('doczilla-not-a-real-token-000000', { baseURL: service.baseUrl });

      // Act
      const unauthorized = await rejectsWith(stranger.pdf.direct({ page: { html: '<p>x</p>' } }), 401);
      const missing = await rejectsWith(client.template.get('tpl_does_not_exist'), 404);
      const invalid = await rejectsWith(client.pdf.direct({ page: { url: 'not a url' } }), 400);

      // Assess
      assert.equal(typeof unauthorized.data.message, 'string');
      assert.equal(typeof missing.data.message, 'string');
      assert.equal(invalid.data.code, 'api.validation');
      assert.ok('page.url' in invalid.data.fields);
    });
  });
});
