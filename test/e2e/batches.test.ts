import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { processTree } from '../../scripts/local-runtime/process-tree.js';
import { readLiveDevStack } from '../../scripts/local-runtime/dev-stack.js';
import { outlineOf, pageCountOf, pdftotext } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { html, startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

type Account = { token: string; accountId: string; webhookSecret: string };
type BatchBody = {
  id: string;
  status: string;
  total: number;
  counts: { done: number; failed: number; pending: number };
  manifestUrl?: string | null;
  zipUrl?: string | null;
  mergedUrl?: string | null;
  webhook?: { status: string; attempts: number };
  fields?: Record<string, string>;
};
type Manifest = {
  id: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  items: Array<{
    index: number;
    name: string;
    status: string;
    metadata: Record<string, string>;
    fileUrl?: string;
    missingGlyphs?: { count: number; codePoints: string[]; firstPage?: number };
    pageCount?: number;
    renderMs?: number;
    error?: { code: string };
  }>;
};

/** Items of the proof batch: 200 in CI (BATCH_E2E_ITEMS=1000 runs the full proof). */
const ITEMS = Number(process.env.BATCH_E2E_ITEMS ?? 200);

/** BATCH_E2E_POST_ITEMS=N measures a POST of N items by itemsUrl (checking, planning, writing and queueing them: docs/batches.md). */
const POST_ITEMS = Number(process.env.BATCH_E2E_POST_ITEMS ?? 0);

/** A receiver's check of a Standard Webhooks signature, with node:crypto alone. */
function signedBy(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest();
  const given = Buffer.from(String(headers['webhook-signature']).split(',')[1] ?? '', 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The command line of a process, or '' once it is gone. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Whether a process of this test's tree runs `functions/<name>` (a local Lambda instance carries its handler file in its environment). */
function runsFunction(pid: number, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`LOCAL_HANDLER_FILE=`) && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`functions/${name}.`);
  } catch {
    return false;
  }
}

/** A process's peak resident set so far (VmHWM), MB; 0 once it is gone. */
function peakRssMb(pid: number): number {
  try {
    return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** Kills with SIGKILL, as a crash would; a process already gone is skipped. */
function kill(pids: number[]): number {
  let killed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {
      // gone already
    }
  }
  return killed;
}

describe('batches: POST /v1/batches fans out, counts, closes once and calls one webhook', () => {
  let service: RunningService;
  let receiver: TestServer;
  let account: Account;
  let other: Account;
  let sqs: SQSClient;
  let s3: S3Client;
  let bucket: string;
  let stage: string;
  let templateId: string;
  let flakyCalls = 0;
  let itemLines = '';
  const stackFile = join(tempDir('docrender-batches-'), 'dev-stack.json');

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    receiver = await startTestServer({
      '/hook/batch': ok,
      '/hook/cancel': ok,
      '/page/slow': html('<p>slow</p>'),
      // JSON Lines files of items (itemsUrl), set by each test.
      '/items.jsonl': (_req, res) => res.writeHead(200, { 'content-type': 'application/jsonl' }).end(itemLines),
      '/items/redirect': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end(),
      // Fails twice, then takes the call.
      '/hook/flaky': (_req, res) => {
        flakyCalls += 1;
        res.writeHead(flakyCalls <= 2 ? 503 : 200).end();
      },
    });
    // BATCH_E2E_INSTANCES=1|2|4 measures the throughput of that many consumer instances (docs/batches.md, "Throughput").
    const instances = process.env.BATCH_E2E_INSTANCES ? ['--instances', process.env.BATCH_E2E_INSTANCES] : [];
    service = await startService({ WEBHOOK_RETRY_DELAYS: '1,1,1,1,1', BATCH_CHECK_SECONDS: '5', DEV_STACK_FILE: stackFile }, ['--idle-seconds', '3600', ...instances]);
    account = JSON.parse((await service.tokens('create', '--json', '--limit', String(ITEMS + 300), '--rate', '1000')).stdout) as Account;
    other = JSON.parse((await service.tokens('create', '--json')).stdout) as Account;
    const stack = readLiveDevStack(stackFile);
    assert.ok(stack, 'the service wrote its stack file');
    stage = stack.stage;
    sqs = new SQSClient({ region: stack.region, endpoint: stack.endpoints.sqs, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, useQueueUrlAsEndpoint: false });
    s3 = new S3Client({ region: stack.region, endpoint: stack.endpoints.s3, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, forcePathStyle: true });
    const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
    bucket = Buckets.find((b) => b.Name?.startsWith(`docrender-${stage}-filesbucket`))?.Name as string;
    assert.ok(bucket, 'the files bucket');
    const created = await service.request('/v1/templates', {
      token: account.token,
      json: { name: 'Statement', variables: { page: { htmlTemplate: b64('<h1>Statement</h1><p>Customer {{customer}}</p><p>Reference {{ref}}</p>') } } },
    });
    assert.equal(created.status, 201);
    templateId = ((await created.json()) as { id: string }).id;
  });
  after(async () => {
    sqs?.destroy();
    s3?.destroy();
    await service?.stop();
    await receiver?.close();
  });

  const post = async (json: unknown, token = account.token) => {
    const res = await service.request('/v1/batches', { json, token });
    return { status: res.status, body: (await res.json()) as BatchBody, location: res.headers.get('location') };
  };
  const getBatch = async (id: string, token = account.token) => {
    const res = await service.request(`/v1/batches/${id}`, { token });
    return { status: res.status, body: (await res.json()) as BatchBody };
  };
  const used = async () => ((await (await service.request('/v1/usage', { token: account.token })).json()) as { quota: { used: number } }).quota.used;
  const ended = (id: string, timeoutMs: number) =>
    waitFor(`batch ${id} to end`, async () => {
      const { body } = await getBatch(id);
      return body.manifestUrl !== undefined && (!body.webhook || ['DELIVERED', 'FAILED'].includes(body.webhook.status)) ? body : undefined;
    }, timeoutMs);
  const batchQueueLeft = async () => {
    const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: `docrender-${stage}-BatchItemsQueue` }))).QueueUrl as string;
    const { Attributes: a = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }),
    );
    return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) + Number(a.ApproximateNumberOfMessagesDelayed);
  };

  it(`renders ${ITEMS} items of one template, each file carrying its own data, with a manifest of ${ITEMS} entries, one signed webhook and exactly ${ITEMS} units spent`, async () => {
    // Prepare
    const before = await used();
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      name: `statement-${i}`,
      page: { templateData: { customer: `Customer ${i}`, ref: `REF${i}Q${(i * 7919) % 100000}` } },
      metadata: { customerId: String(i) },
    }));

    // Act
    const startedAt = Date.now();
    const queued = await post({
      items,
      defaults: { templateId, pdf: { format: 'a5' } },
      output: { zip: true, merge: true },
      webhook: { url: `${receiver.url}/hook/batch`, metadata: { run: 'monthly' } },
    });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    const batch = await ended(queued.body.id, 60_000 + ITEMS * 3_000);
    const seconds = (Date.now() - startedAt) / 1000;
    console.log(`batch of ${ITEMS} items: ${seconds.toFixed(1)} s (${(ITEMS / seconds).toFixed(2)} documents/s)`);

    // Assess: the answers
    assert.deepEqual(queued.body, { id: queued.body.id, status: 'PENDING', total: ITEMS });
    assert.equal(queued.location, `/v1/batches/${queued.body.id}`);
    assert.equal(batch.status, 'COMPLETED');
    assert.deepEqual(batch.counts, { done: ITEMS, failed: 0, pending: 0 });
    assert.equal(batch.webhook?.status, 'DELIVERED');
    // the quota moved by exactly one unit per item
    assert.equal((await used()) - before, ITEMS);
    // the manifest: every item once, in order, each file its own item's
    const manifest = (await (await fetch(batch.manifestUrl as string)).json()) as Manifest;
    assert.equal(manifest.items.length, ITEMS);
    assert.deepEqual(manifest.items.map((item) => item.index), items.map((_, i) => i));
    assert.equal(new Set(manifest.items.map((item) => item.fileUrl)).size, ITEMS);
    for (const [i, entry] of manifest.items.entries()) {
      assert.equal(entry.name, `statement-${i}`);
      assert.equal(entry.status, 'COMPLETED');
      assert.deepEqual(entry.metadata, { customerId: String(i) });
      const pdf = new Uint8Array(await (await fetch(entry.fileUrl as string)).arrayBuffer());
      const text = pdftotext(pdf).stdout;
      assert.ok(text.includes(items[i]!.page.templateData.ref), `item ${i}'s file carries its own reference`);
      assert.ok(text.includes(`Customer ${i}\n`), `item ${i}'s file carries its own customer`);
    }
    // one webhook, signed, with the counts and the manifest
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const calls = receiver.requests.filter((r) => r.url === '/hook/batch');
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.ok(signedBy(account.webhookSecret, call.headers, call.body), 'the webhook is signed with the account secret');
    const hook = JSON.parse(call.body) as Record<string, unknown>;
    assert.equal(hook.id, queued.body.id);
    assert.equal(hook.type, 'batch');
    assert.equal(hook.status, 'COMPLETED');
    assert.deepEqual([hook.total, hook.done, hook.failed], [ITEMS, ITEMS, 0]);
    assert.deepEqual(hook.metadata, { run: 'monthly' });
    assert.equal(((await (await fetch(hook.manifestUrl as string)).json()) as Manifest).items.length, ITEMS);
    // output.zip: one archive of every item's file, by name; output.merge: one PDF, one outline entry per item
    assert.match(String(hook.zipUrl), /^http/);
    assert.match(String(hook.mergedUrl), /^http/);
    const dir = tempDir('docrender-batch-outputs-');
    const zipPath = join(dir, 'batch.zip');
    writeFileSync(zipPath, Buffer.from(await (await fetch(batch.zipUrl as string)).arrayBuffer()));
    assert.deepEqual(execFileSync('unzip', ['-Z1', zipPath], { encoding: 'utf8' }).trim().split('\n'), items.map((item) => `${item.name}.pdf`));
    execFileSync('unzip', ['-tq', zipPath]);
    for (const i of [0, ITEMS - 1]) assert.ok(pdftotext(execFileSync('unzip', ['-p', zipPath, `statement-${i}.pdf`])).stdout.includes(items[i]!.page.templateData.ref));
    const merged = new Uint8Array(await (await fetch(batch.mergedUrl as string)).arrayBuffer());
    assert.equal(pageCountOf(merged), ITEMS, 'one A5 page per statement');
    assert.deepEqual(outlineOf(merged).map((entry) => entry.title), items.map((item) => item.name));
    // the outputs step's memory: the peak resident set (VmHWM) of the batch-outputs-build instance that made them and closed the batch
    const peaks = processTree(process.pid).filter((pid) => runsFunction(pid, 'batch-outputs-build')).map(peakRssMb);
    assert.ok(peaks.length > 0, 'a batch-outputs-build instance made the outputs');
    console.log(`batch-outputs-build instance's peak RSS after zip and merge of ${ITEMS}: ${peaks.join(', ')} MB`);
  });

  it('loses nothing and counts nothing twice when consumer instances and browsers are killed mid-batch, and calls a webhook that fails twice once more, once', async () => {
    // Prepare: a killed instance's messages come back after the queue's visibility timeout, set past the
    // two-minute lease a run holds (JOB_LEASE; the production 5,400 s would make this test wait 90 minutes).
    const queue = (await sqs.send(new GetQueueUrlCommand({ QueueName: `docrender-${stage}-BatchItemsQueue` }))).QueueUrl as string;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queue, Attributes: { VisibilityTimeout: '125' } }));
    const total = 60;
    const before = await used();
    const items = Array.from({ length: total }, (_, i) => ({ name: `fault-${i}`, page: { templateData: { customer: `Faulty ${i}`, ref: `FLT${i}Z` } } }));

    // Act: the batch, then an instance and its browsers killed twice, a browser alone once
    const queued = await post({ items, defaults: { templateId }, webhook: { url: `${receiver.url}/hook/flaky` } });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    let instancesKilled = 0;
    let browsersKilled = 0;
    for (let round = 0; round < 3; round++) {
      await waitFor('a busy batch consumer', () => (processTree(process.pid).some((pid) => runsFunction(pid, 'batch-items-consume')) ? true : undefined), 60_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const tree = processTree(process.pid);
      const browsers = tree.filter((pid) => /chrom/i.test(commandLine(pid)) && !commandLine(pid).includes('--type=') && !commandLine(pid).includes('node'));
      browsersKilled += kill(browsers.slice(0, 1));
      if (round < 2) instancesKilled += kill(tree.filter((pid) => runsFunction(pid, 'batch-items-consume')).slice(0, 1));
    }
    const batch = await ended(queued.body.id, 600_000);
    console.log(`faults: ${instancesKilled} instances and ${browsersKilled} browsers killed; ${batch.counts.done} done, ${batch.counts.failed} failed`);

    // Assess: every item once, counts exact, the files their own
    assert.ok(instancesKilled >= 1 && browsersKilled >= 1, `killed ${instancesKilled} instances and ${browsersKilled} browsers`);
    assert.equal(batch.counts.done + batch.counts.failed, total);
    assert.equal(batch.counts.pending, 0);
    const manifest = (await (await fetch(batch.manifestUrl as string)).json()) as Manifest;
    assert.deepEqual(manifest.items.map((item) => item.index), items.map((_, i) => i));
    assert.equal(manifest.items.filter((item) => item.status === 'COMPLETED').length, batch.counts.done);
    for (const entry of manifest.items.filter((item) => item.status === 'COMPLETED')) {
      const text = pdftotext(new Uint8Array(await (await fetch(entry.fileUrl as string)).arrayBuffer())).stdout;
      assert.ok(text.includes(`FLT${entry.index}Z`), `item ${entry.index}'s file carries its own reference`);
    }
    // the units: one per item, given back for each that failed
    assert.equal((await used()) - before, batch.counts.done);
    // the webhook: two refusals, then delivered once, and never again
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const calls = receiver.requests.filter((r) => r.url === '/hook/flaky');
    assert.equal(calls.length, 3);
    assert.equal(batch.webhook?.status, 'DELIVERED');
    assert.equal(new Set(calls.map((call) => (JSON.parse(call.body) as { id: string }).id)).size, 1);
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queue, Attributes: { VisibilityTimeout: '5400' } }));
  });

  it("reports in the manifest an item's characters no font draws, and refuses an item that asked for \"fail\" (issue 46)", async () => {
    // Prepare: U+E000 is private use, which no font has
    const items = [
      { name: 'missing', page: { html: b64('<p>Total \uE000 due</p>') } },
      { name: 'drawn', page: { html: b64('<p>Total due</p>') } },
      { name: 'refused', page: { html: b64('<p>Total \uE000 due</p>') }, pdf: { missingGlyphs: 'fail' } },
    ];
    // Act
    const queued = await post({ items });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    const batch = await ended(queued.body.id, 90_000);
    const manifest = (await (await fetch(batch.manifestUrl as string)).json()) as Manifest;
    // Assess
    const [missing, drawn, refused] = manifest.items;
    assert.deepEqual(missing?.missingGlyphs, { count: 1, codePoints: ['U+E000'], firstPage: 1 });
    assert.equal(drawn?.status, 'COMPLETED');
    assert.equal(drawn?.missingGlyphs, undefined);
    // what each item cost (issue 47): its one page, and how long it rendered
    assert.equal(drawn?.pageCount, pageCountOf(new Uint8Array(await (await fetch(drawn?.fileUrl as string)).arrayBuffer())));
    assert.ok((drawn?.renderMs as number) > 0);
    assert.equal(refused?.status, 'FAILED');
    assert.equal(refused?.error?.code, 'render.missing_glyphs');
  });

  it("answers 404 for another account's batch, to GET and DELETE alike", async () => {
    // Prepare
    const queued = await post({ items: [{ page: { html: b64('<p>mine</p>') } }] });
    assert.equal(queued.status, 202);

    // Act
    const read = await getBatch(queued.body.id, other.token);
    const cancel = await service.request(`/v1/batches/${queued.body.id}`, { method: 'DELETE', token: other.token });

    // Assess
    assert.equal(read.status, 404);
    assert.equal(cancel.status, 404);
    assert.equal((await getBatch(queued.body.id)).status, 200);
  });

  it('refuses a batch with a bad item with a 400 naming items.17.page.templateData: nothing spent, nothing queued', async () => {
    // Prepare
    await waitFor('the batch queue to drain', async () => ((await batchQueueLeft()) === 0 ? true : undefined), 120_000);
    const before = await used();
    const items = Array.from({ length: 20 }, (_, i) => ({ page: { html: b64(`<p>${i}</p>`) } }));
    items[17] = { page: { html: b64('<p>17</p>'), templateData: { a: 1 } } } as never;
    items[18] = { name: 'same', page: { html: b64('<p>18</p>') } } as never;
    items[19] = { name: 'same', page: { html: b64('<p>19</p>') } } as never;

    // Act
    const refused = await post({ items });
    const unknownTemplate = await post({ items: [{ templateId: 'tpl_doesnotexist', page: { templateData: {} } }] });

    // Assess
    assert.equal(refused.status, 400);
    assert.ok(refused.body.fields?.['items.17.page.templateData'], JSON.stringify(refused.body.fields));
    assert.ok(refused.body.fields?.['items.19.name'], JSON.stringify(refused.body.fields));
    assert.equal(unknownTemplate.status, 400);
    assert.ok(unknownTemplate.body.fields?.['items.0.templateId'], JSON.stringify(unknownTemplate.body.fields));
    assert.equal(await used(), before);
    assert.equal(await batchQueueLeft(), 0);
  });

  it('refuses a batch larger than the quota left with a 402: nothing spent, nothing queued', async () => {
    // Prepare
    const small = JSON.parse((await service.tokens('create', '--json', '--limit', '3')).stdout) as Account;
    await waitFor('the batch queue to drain', async () => ((await batchQueueLeft()) === 0 ? true : undefined), 120_000);

    // Act
    const refused = await post({ items: Array.from({ length: 4 }, (_, i) => ({ page: { html: b64(`<p>${i}</p>`) } })) }, small.token);
    const usage = (await (await service.request('/v1/usage', { token: small.token })).json()) as { quota: { used: number } };

    // Assess
    assert.equal(refused.status, 402);
    assert.equal(usage.quota.used, 0);
    assert.equal(await batchQueueLeft(), 0);
  });

  it('cancels what has not started: the batch ends CANCELLED with one webhook, the cancelled items given back', async () => {
    // Prepare
    const before = await used();
    const total = 40;
    const items = Array.from({ length: total }, (_, i) => ({ page: { url: `${receiver.url}/page/slow`, waitForMilliseconds: 500 }, name: `slow-${i}` }));
    const queued = await post({ items, webhook: { url: `${receiver.url}/hook/cancel` } });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));

    // Act
    const cancelled = await service.request(`/v1/batches/${queued.body.id}`, { method: 'DELETE', token: account.token });
    const batch = await ended(queued.body.id, 120_000);

    // Assess
    assert.equal(cancelled.status, 200);
    assert.equal(((await cancelled.json()) as BatchBody).status, 'CANCELLED');
    assert.equal(batch.status, 'CANCELLED');
    assert.equal(batch.counts.done + batch.counts.failed, total);
    assert.ok(batch.counts.failed > 0, 'items not started were cancelled');
    const manifest = (await (await fetch(batch.manifestUrl as string)).json()) as Manifest;
    const cancelledItems = manifest.items.filter((item) => item.error?.code === 'batch.cancelled').length;
    assert.equal(cancelledItems, batch.counts.failed);
    // the units of the cancelled items came back; the rendered ones stay spent
    assert.equal((await used()) - before, batch.counts.done);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(receiver.requests.filter((r) => r.url === '/hook/cancel').length, 1);
  });

  const upload = async (key: string, lines: string) => {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: lines, ContentType: 'application/jsonl' }));
    return `s3://${bucket}/${key}`;
  };
  const jsonl = (entries: unknown[]) => entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n';

  it("takes its items as JSON Lines from itemsUrl: a site's URL through the egress policy, or a key under the caller's own upload prefix", async () => {
    // Prepare
    const before = await used();
    itemLines = jsonl(Array.from({ length: 3 }, (_, i) => ({ name: `web-${i}`, page: { templateData: { customer: `Web ${i}`, ref: `WEB${i}X` } }, metadata: { line: String(i) } })));
    const key = await upload(
      `uploads/${account.accountId}/november.jsonl`,
      // CRLF line ends and a blank line are taken; the index counts items, not lines
      `${JSON.stringify({ name: 's3-0', page: { templateData: { customer: 'Key 0', ref: 'KEY0Y' } } })}\r\n\r\n${JSON.stringify({ page: { templateData: { customer: 'Key 1', ref: 'KEY1Y' } } })}`,
    );

    // Act
    const fromSite = await post({ itemsUrl: `${receiver.url}/items.jsonl`, defaults: { templateId } });
    const fromKey = await post({ itemsUrl: key, defaults: { templateId } });
    assert.equal(fromSite.status, 202, JSON.stringify(fromSite.body));
    assert.equal(fromKey.status, 202, JSON.stringify(fromKey.body));
    const site = await ended(fromSite.body.id, 120_000);
    const keyed = await ended(fromKey.body.id, 120_000);

    // Assess
    assert.deepEqual([fromSite.body.total, fromKey.body.total], [3, 2]);
    assert.deepEqual([site.status, keyed.status], ['COMPLETED', 'COMPLETED']);
    const siteManifest = (await (await fetch(site.manifestUrl as string)).json()) as Manifest;
    const keyManifest = (await (await fetch(keyed.manifestUrl as string)).json()) as Manifest;
    assert.deepEqual(siteManifest.items.map((item) => [item.name, item.metadata]), [0, 1, 2].map((i) => [`web-${i}`, { line: String(i) }]));
    assert.deepEqual(keyManifest.items.map((item) => item.name), ['s3-0', '1']);
    for (const [entry, ref] of [...siteManifest.items.map((item, i) => [item, `WEB${i}X`] as const), ...keyManifest.items.map((item, i) => [item, `KEY${i}Y`] as const)]) {
      assert.ok(pdftotext(new Uint8Array(await (await fetch(entry.fileUrl as string)).arrayBuffer())).stdout.includes(ref), `${entry.name} carries ${ref}`);
    }
    assert.equal((await used()) - before, 5);
  });

  it("refuses an itemsUrl with a bad line (naming items.N…), an SSRF target, a redirect, another tenant's key and the service's own objects: nothing spent, nothing queued", async () => {
    // Prepare
    await waitFor('the batch queue to drain', async () => ((await batchQueueLeft()) === 0 ? true : undefined), 120_000);
    const before = await used();
    const good = { page: { templateData: { customer: 'A', ref: 'R' } } };
    itemLines = jsonl([good, good, { page: { templateData: 'not an object' } }, good]) + '{not json\n';
    const othersKey = await upload(`uploads/${other.accountId}/theirs.jsonl`, jsonl([good]));
    const serviceKey = await upload(`files/${account.accountId}/looks-like-mine.jsonl`, jsonl([good]));

    // Act
    const badLines = await post({ itemsUrl: `${receiver.url}/items.jsonl`, defaults: { templateId } });
    const refusals = await Promise.all(
      [
        'http://169.254.169.254/latest/meta-data',
        `${receiver.url}/items/redirect`,
        `${receiver.url}/items/missing.jsonl`,
        othersKey,
        serviceKey,
        othersKey.replace(`uploads/${other.accountId}/`, `uploads/${account.accountId}/../${other.accountId}/`),
        `s3://another-bucket/uploads/${account.accountId}/x.jsonl`,
        `s3://${bucket}/uploads/${account.accountId}/missing.jsonl`,
      ].map(async (itemsUrl) => ({ itemsUrl, ...(await post({ itemsUrl, defaults: { templateId } })) })),
    );
    const both = await post({ items: [good], itemsUrl: `${receiver.url}/items.jsonl`, defaults: { templateId } });
    const neither = await post({ defaults: { templateId } });

    // Assess
    assert.equal(badLines.status, 400);
    assert.deepEqual(Object.keys(badLines.body.fields ?? {}).sort(), ['items.2.page.templateData', 'items.4']);
    for (const refused of refusals) {
      assert.equal(refused.status, 400, refused.itemsUrl);
      assert.deepEqual(Object.keys(refused.body.fields ?? {}), ['itemsUrl'], refused.itemsUrl);
      assert.ok(!JSON.stringify(refused.body).includes('theirs'), "another account's key is not echoed");
    }
    assert.match(refusals[1]!.body.fields?.itemsUrl ?? '', /redirects are not followed/);
    assert.match(refusals[2]!.body.fields?.itemsUrl ?? '', /404/);
    assert.equal(refusals[3]!.body.fields?.itemsUrl, refusals[6]!.body.fields?.itemsUrl, "another tenant's key is refused as any key outside one's own prefix");
    for (const answer of [both, neither]) {
      assert.equal(answer.status, 400);
      assert.deepEqual(Object.keys(answer.body.fields ?? {}).sort(), ['items', 'itemsUrl']);
    }
    assert.equal(await used(), before);
    assert.equal(await batchQueueLeft(), 0);
  });

  it(`measures a POST of ${POST_ITEMS} items by itemsUrl, cancelled at once`, { skip: POST_ITEMS === 0 }, async () => {
    // Prepare
    const big = JSON.parse((await service.tokens('create', '--json', '--limit', String(POST_ITEMS), '--rate', '1000')).stdout) as Account;
    const template = await service.request('/v1/templates', { token: big.token, json: { name: 'Statement', variables: { page: { htmlTemplate: b64('<p>{{customer}} {{ref}}</p>') } } } });
    const bigTemplate = ((await template.json()) as { id: string }).id;
    itemLines = jsonl(Array.from({ length: POST_ITEMS }, (_, i) => ({ page: { templateData: { customer: `C${i}`, ref: `R${i}` } } })));

    // Act
    const startedAt = Date.now();
    const queued = await post({ itemsUrl: `${receiver.url}/items.jsonl`, defaults: { templateId: bigTemplate } }, big.token);
    const seconds = (Date.now() - startedAt) / 1000;
    if (queued.status === 202) await service.request(`/v1/batches/${queued.body.id}`, { method: 'DELETE', token: big.token });
    console.log(`POST of ${POST_ITEMS} items by itemsUrl (${(itemLines.length / 1024 / 1024).toFixed(1)} MB): ${queued.status} in ${seconds.toFixed(1)} s`);

    // Assess
    assert.equal(queued.status, 202, JSON.stringify(queued.body).slice(0, 300));
    assert.equal(queued.body.total, POST_ITEMS);
  });
});
