/**
 * `pdf.signature` through the API of `npm start`, with its development signer
 * and loopback timestamp authority: a raw render signed at B-T with a visible
 * appearance validates in pyHanko and pdfsig and shows its frame where it was
 * asked; a merge, a template, a sync and an async render sign the finished file; the rules at
 * the edge (unknown signer, signature with protection, a signer not granted)
 * answer before anything renders or is charged; a timestamp authority that
 * does not answer fails an async job with the reason, its webhook fired.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import { closedPort } from '../helpers/closed-port.js';
import { pdfsig, validatePades } from '../helpers/pades.js';
import { pdftoppm, qpdf } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

type Usage = { quota: { used: number } };
const page = { html: b64('<h1>Service agreement</h1><p>The parties agree.</p>') };

/** pyHanko and pdfsig both: intact, trusted against `caPem`, the whole file covered. */
function assertSigned(pdf: Uint8Array, caPem: string, timestamped: boolean): void {
  const { statuses, stderr } = validatePades(pdf, caPem);
  assert.equal(statuses?.length, 1, stderr);
  const [status] = statuses ?? [];
  assert.ok(status?.intact && status.trusted && status.valid, status?.summary);
  assert.equal(status.coverage, 'ENTIRE_FILE');
  assert.equal(status.timestamp?.trusted ?? false, timestamped, status.summary);
  const read = pdfsig(pdf).stdout;
  assert.match(read, /Signature Validation: Signature is Valid\./);
  assert.match(read, /Total document signed/);
  assert.equal(qpdf(pdf, ['--check']).status, 0);
}

describe('signing through the API', () => {
  let service: RunningService;
  let caPem: string;
  let granted: string;
  let notGranted: string;

  before(async () => {
    const folder = tempDir('signing-e2e-');
    service = await startService({ DEV_SIGNING_DIR: folder });
    assert.match(service.output(), /Signer "default".*NOT TRUSTED/);
    caPem = readFileSync(join(folder, 'ca.cert.pem'), 'utf8');
    granted = (await service.tokens('create', '--signers', 'default', '--limit', '100')).stdout.trim();
    notGranted = (await service.tokens('create', '--limit', '100')).stdout.trim();
  });
  after(() => service?.stop());

  it('countersigns a signed PDF through /v1/pdf/process: the new signature is an incremental update, both stay valid; certifying it is a 400', async () => {
    // Prepare: a document signed (and certified for form filling) by its first party.
    const first = await service.request('/v1/pdf', { token: granted, json: { page, pdf: { signature: { level: 'B-B', reason: 'Offered', certify: 'formFilling' } } } });
    assert.equal(first.status, 200, await first.clone().text());
    const offered = new Uint8Array(await first.arrayBuffer());

    // Act
    const res = await service.request('/v1/pdf/process', {
      token: granted,
      json: { document: Buffer.from(offered).toString('base64'), pdf: { signature: { level: 'B-T', reason: 'Accepted' } } },
    });
    const certify = await service.request('/v1/pdf/process', {
      token: granted,
      json: { document: Buffer.from(offered).toString('base64'), pdf: { signature: { certify: 'noChanges' } } },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const countersigned = new Uint8Array(await res.arrayBuffer());
    assert.deepEqual(Buffer.from(countersigned.subarray(0, offered.length)), Buffer.from(offered), 'the signed bytes are kept as they were');
    const { statuses, stderr } = validatePades(countersigned, caPem);
    assert.equal(statuses?.length, 2, stderr);
    for (const status of statuses ?? []) assert.ok(status.intact && status.valid && status.trusted, `${status.summary} ${stderr}`);
    assert.equal(pdfsig(countersigned).stdout.match(/Signature Validation: Signature is Valid\./g)?.length, 2);
    assert.equal(certify.status, 400);
    const body = (await certify.json()) as { fields?: Record<string, string> };
    assert.deepEqual(Object.keys(body.fields ?? {}), ['pdf.signature.certify']);
  });

  it('signs a raw render at B-T with a visible signature drawn where it was asked', async () => {
    const rect = { page: 1, x: 300, y: 60, width: 240, height: 70 };
    const res = await service.request('/v1/pdf', {
      token: granted,
      json: { page, pdf: { format: 'A4', signature: { level: 'B-T', reason: 'Approved', location: 'Berlin', appearance: rect } } },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assertSigned(pdf, caPem, true);
    // The frame at 72 dpi (1 px a point), y counted from the top of the A4 page (842 pt).
    const image = PNG.sync.read(pdftoppm(pdf, 72)[0] as Buffer);
    const dark = (x: number, y: number) => {
      const at = (Math.round(y) * image.width + Math.round(x)) * 4;
      return (image.data[at] as number) < 160 || (image.data[at + 2] as number) < 160;
    };
    // A4 as Chromium prints it: 841.92 points high; a 1-point line lands on one pixel or two beside it.
    const top = image.height - rect.y - rect.height;
    const middle = Math.round(top + rect.height / 2);
    const near = (x: number, y: number, dx: number, dy: number) => [-1, 0, 1].some((d) => dark(x + d * dx, y + d * dy));
    assert.equal(image.height, 842);
    assert.ok(near(rect.x, middle, 1, 0), 'the left edge of the frame is drawn');
    assert.ok(near(rect.x + rect.width - 1, middle, 1, 0), 'the right edge of the frame is drawn');
    assert.ok(near(rect.x + rect.width / 2, top, 0, 1), 'the top edge of the frame is drawn');
    assert.ok(!dark(rect.x - 6, middle) && !dark(rect.x + rect.width + 6, middle), 'nothing is drawn beside the rectangle');
    let ink = 0;
    for (let y = top + 6; y < top + rect.height - 6; y += 1) for (let x = rect.x + 6; x < rect.x + rect.width - 6; x += 1) if (dark(x, y)) ink += 1;
    assert.ok(ink > 100, `the text is drawn inside the frame (${ink} dark pixels)`);
  });

  it('signs a merge and a template render: the finished file, invisible, certified as asked', async () => {
    const merged = await service.request('/v1/pdf/merge', {
      token: granted,
      json: { parts: [{ page }, { page: { html: b64('<p>Annex</p>') } }], pdf: { signature: { certify: 'formFilling' } } },
    });
    assert.equal(merged.status, 200, await merged.clone().text());
    const mergedPdf = new Uint8Array(await merged.arrayBuffer());
    // The validators run after the last request: seconds of them let the API close the kept-alive connection under the next fetch.
    const created = await service.request('/v1/templates', {
      token: granted,
      json: { name: 'signed letter', output: 'PDF', variables: { page: { htmlTemplate: b64('<p>Dear {{name}}</p>') }, pdf: { signature: { reason: 'Sent' } } } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const rendered = await service.request(`/v1/template/${id}`, { token: granted, json: { page: { templateData: { name: 'Ada' } } } });
    assert.equal(rendered.status, 200, await rendered.clone().text());
    const renderedPdf = new Uint8Array(await rendered.arrayBuffer());
    assertSigned(mergedPdf, caPem, false);
    assert.equal(validatePades(mergedPdf, caPem).statuses?.[0]?.docmdp, 'FILL_FORMS');
    assertSigned(renderedPdf, caPem, false);
  });

  it('signs a sync render and an async job: the stored files validate', async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    const receiver = await startTestServer({ '/hook/signed': ok });
    try {
      const synced = await service.request('/v1/pdf/sync', { token: granted, json: { page, pdf: { signature: { level: 'B-T' } } } });
      assert.equal(synced.status, 200, await synced.clone().text());
      const syncFile = new Uint8Array(await (await fetch(((await synced.json()) as { fileUrl: string }).fileUrl)).arrayBuffer());
      const queued = await service.request('/v1/pdf/async', {
        token: granted,
        json: { page, pdf: { signature: { certify: 'annotations' } }, webhook: { url: `${receiver.url}/hook/signed` } },
      });
      assert.equal(queued.status, 201, await queued.clone().text());
      const call = await waitFor('the webhook', () => receiver.requests.find((request) => request.url === '/hook/signed'), 180_000);
      const done = JSON.parse(call.body) as { status: string; fileUrl: string };
      assert.equal(done.status, 'COMPLETED', call.body);
      const asyncFile = new Uint8Array(await (await fetch(done.fileUrl)).arrayBuffer());
      assertSigned(syncFile, caPem, true);
      assertSigned(asyncFile, caPem, false);
      assert.equal(validatePades(asyncFile, caPem).statuses?.[0]?.docmdp, 'ANNOTATE');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a signer the token was not granted: 403 with a code, nothing rendered or charged', async () => {
    const used = async () => ((await (await service.request('/v1/usage', { token: notGranted })).json()) as Usage).quota.used;
    const before = await used();
    const res = await service.request('/v1/pdf', { token: notGranted, json: { page, pdf: { signature: {} } } });
    assert.equal(res.status, 403);
    const body = (await res.json()) as { code: string; message: string };
    assert.equal(body.code, 'render.signer_not_granted');
    assert.match(body.message, /"default"/);
    assert.equal(await used(), before, 'the unit was given back');
  });

  it('grants a signer after creation with `tokens set --signers`, and withdraws it with --signers ""', async () => {
    const token = (await service.tokens('create', '--limit', '100')).stdout.trim();
    const ask = () => service.request('/v1/pdf', { token, json: { page, pdf: { signature: { reason: 'Granted later' } } } });
    assert.equal((await ask()).status, 403);
    await service.tokens('set', '--signers', 'default', token);
    assert.match((await service.tokens('show', token)).stdout, /Signers:\s+default/);
    const signed = await ask();
    assert.equal(signed.status, 200, await signed.clone().text());
    assertSigned(new Uint8Array(await signed.arrayBuffer()), caPem, false);
    await service.tokens('set', '--signers', '', token);
    assert.match((await service.tokens('show', token)).stdout, /Signers:\s+none/);
    assert.equal((await ask()).status, 403);
  });

  it('names pdf.signature.signer for an unknown signer, and both fields for signature with protection (400)', async () => {
    const unknown = await service.request('/v1/pdf', { token: granted, json: { page, pdf: { signature: { signer: 'legal' } } } });
    assert.equal(unknown.status, 400);
    const unknownBody = (await unknown.json()) as { fields: Record<string, string> };
    assert.deepEqual(Object.keys(unknownBody.fields), ['pdf.signature.signer']);
    const both = await service.request('/v1/pdf', { token: granted, json: { page, pdf: { signature: {}, protection: { userPassword: 'open-sesame-1' } } } });
    assert.equal(both.status, 400);
    const bothBody = (await both.json()) as { fields: Record<string, string> };
    assert.deepEqual(Object.keys(bothBody.fields).sort(), ['pdf.protection', 'pdf.signature']);
  });
});

describe('signing when the timestamp authority does not answer', () => {
  let service: RunningService;
  let receiver: TestServer;
  let token: string;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    receiver = await startTestServer({ '/hook/signed': ok });
    const port = await closedPort();
    service = await startService({ DEV_SIGNING_DIR: tempDir('signing-e2e-tsa-') }, ['--param', `timestampUrl=http://127.0.0.1:${port}/`]);
    token = (await service.tokens('create', '--signers', 'default')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it('answers 503 with a code for a raw render at B-T, and B-B still signs', async () => {
    const res = await service.request('/v1/pdf', { token, json: { page, pdf: { signature: { level: 'B-T' } } } });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { code: string }).code, 'render.timestamp_unavailable');
    const plain = await service.request('/v1/pdf', { token, json: { page, pdf: { signature: {} } } });
    assert.equal(plain.status, 200);
  });

  it('fails an async job at B-T with the reason, its webhook fired', async () => {
    const queued = await service.request('/v1/pdf/async', {
      token,
      json: { page, pdf: { signature: { level: 'B-T' } }, webhook: { url: `${receiver.url}/hook/signed` } },
    });
    assert.equal(queued.status, 201, await queued.clone().text());
    const call = await waitFor('the webhook', () => receiver.requests.find((request) => request.url === '/hook/signed'), 180_000);
    const body = JSON.parse(call.body) as { status: string; error?: { code: string; message: string } };
    assert.equal(body.status, 'FAILED');
    assert.equal(body.error?.code, 'render.timestamp_unavailable');
    assert.match(String(body.error?.message), /timestamp authority/);
  });
});
