import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { OutboundRequest, OutboundResult } from '../../../lib/delivery/outbound-http.js';
import { JobBusyError } from '../../../lib/jobs/errors.js';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { generateWebhookSecret } from '../../../lib/tokens/tokens.js';
import { deliverWebhook, type WebhookDeps } from '../../../lib/webhooks/deliver-webhook.js';
import { b64 } from '../../helpers/service.js';
import { memoryFileStore, memoryJobStore, recordingQueue, silentLogger } from '../jobs/fakes.js';

const DELAYS = [10, 20, 30, 40];

/** A receiver that answers each call with the next status (the last one repeats). */
function receiver(...statuses: number[]) {
  const calls: OutboundRequest[] = [];
  const send = async (request: OutboundRequest): Promise<OutboundResult> => {
    calls.push(request);
    const statusCode = statuses[Math.min(calls.length - 1, statuses.length - 1)] ?? 200;
    const ok = statusCode >= 200 && statusCode < 300;
    return { ok, statusCode, durationMs: 5, ...(ok ? {} : { error: `answered ${statusCode}` }) };
  };
  return { calls, send };
}

async function setup(options: { statuses?: number[]; receiveType?: 'URL' | 'base64'; status?: 'COMPLETED' | 'FAILED' } = {}) {
  const jobs = memoryJobStore();
  const queue = recordingQueue();
  const files = memoryFileStore();
  const secret = generateWebhookSecret();
  const token = { tokenHash: 'hash', webhookSecret: secret } as TokenRecord;
  const target = receiver(...(options.statuses ?? [200]));
  const deps: WebhookDeps = {
    jobs,
    queue,
    files,
    tokens: { findByHash: async (hash) => (hash === 'hash' ? token : undefined) },
    logger: silentLogger,
    config: { fileLifetimeSeconds: 3600, webhookRetryDelaysSeconds: DELAYS },
    send: target.send,
  };
  const stored = await files.put('acct-1', Buffer.from('%PDF-1.7 bytes'), 'application/pdf');
  const job: Job = {
    ...newJob({
      accountId: 'acct-1',
      tokenHash: 'hash',
      input: { output: 'PDF', page: { html: b64('<p>x</p>') } },
      webhook: {
        url: 'https://hooks.example/done',
        method: 'PUT',
        receiveType: options.receiveType,
        headers: { Authorization: 'Bearer receiver-token', 'Webhook-Signature': 'forged' },
        metadata: { orderId: '42' },
      },
    }),
    ...(options.status === 'FAILED'
      ? { status: 'FAILED', error: { code: 'render.navigation', message: 'The page could not be loaded' } }
      : { status: 'COMPLETED', file: stored, signedUrlStatus: 'NOT_PROVIDED' }),
    completedAt: new Date().toISOString(),
  };
  await jobs.create(job);
  return { jobs, queue, deps, target, secret, job };
}

const clock = (now = Date.now()) => ({ timeLeftMs: () => 30_000, now: () => now });
const message = (job: Job, attempt: number) => ({ accountId: job.accountId, jobId: job.jobId, attempt });

describe('deliverWebhook', () => {
  it('calls the webhook with the configured method and headers, signed with the account secret, and records DELIVERED', async () => {
    // Prepare
    const { jobs, queue, deps, target, secret, job } = await setup();

    // Act
    await deliverWebhook(message(job, 1), deps, clock());

    // Assess
    assert.equal(target.calls.length, 1);
    const call = target.calls[0]!;
    assert.equal(call.method, 'PUT');
    assert.equal(call.url, 'https://hooks.example/done');
    assert.equal(call.headers.Authorization, 'Bearer receiver-token');
    const body = String(call.body);
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${call.headers['webhook-id']}.${call.headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    // The caller's header of the same name comes first, so ours is the one sent.
    assert.equal(call.headers['webhook-signature'], `v1,${expected}`);
    assert.equal(call.headers['x-doczilla-signature'], createHmac('sha256', secret).update(body).digest('hex'));
    assert.equal(call.headers['webhook-id'], job.jobId);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    assert.equal(parsed.status, 'COMPLETED');
    assert.equal(parsed.fileSize, 14);
    assert.match(String(parsed.fileUrl), /^https:\/\/files\.example\/files\/acct-1\//);
    assert.deepEqual(parsed.metadata, { orderId: '42' });
    const recorded = jobs.peek(job)!;
    assert.equal(recorded.webhookStatus, 'DELIVERED');
    assert.equal(recorded.webhookAttempts, 1);
    assert.deepEqual(recorded.webhookLog.map((entry) => [entry.attempt, entry.statusCode]), [[1, 200]]);
    assert.deepEqual(queue.webhooks, []);
  });

  it('puts the file bytes in fileBase64 for receiveType base64', async () => {
    const { deps, target, job } = await setup({ receiveType: 'base64' });
    await deliverWebhook(message(job, 1), deps, clock());
    const parsed = JSON.parse(String(target.calls[0]!.body)) as { fileBase64: string; fileUrl?: string };
    assert.equal(Buffer.from(parsed.fileBase64, 'base64').toString(), '%PDF-1.7 bytes');
    assert.equal(parsed.fileUrl, undefined);
  });

  it('records a failed attempt as RETRYING and queues the next one after its delay, without rendering again', async () => {
    // Prepare
    const { jobs, queue, deps, job } = await setup({ statuses: [500, 200] });

    // Act
    await deliverWebhook(message(job, 1), deps, clock());
    const afterFirst = structuredClone(jobs.peek(job)!);
    await deliverWebhook(message(job, 2), deps, clock());

    // Assess
    assert.equal(afterFirst.webhookStatus, 'RETRYING');
    assert.deepEqual(afterFirst.webhookLog.map((entry) => [entry.statusCode, entry.error]), [[500, 'answered 500']]);
    assert.deepEqual(queue.webhooks, [{ message: message(job, 2), delaySeconds: DELAYS[0] }]);
    assert.equal(jobs.peek(job)?.webhookStatus, 'DELIVERED');
    assert.equal(jobs.peek(job)?.webhookAttempts, 2);
  });

  it('gives up (FAILED) after the last attempt, with every attempt recorded at growing delays', async () => {
    // Prepare
    const { jobs, queue, deps, target, job } = await setup({ statuses: [503] });

    // Act
    for (let attempt = 1; attempt <= DELAYS.length + 1; attempt++) await deliverWebhook(message(job, attempt), deps, clock());

    // Assess
    assert.equal(target.calls.length, 5);
    assert.equal(jobs.peek(job)?.webhookStatus, 'FAILED');
    assert.deepEqual(jobs.peek(job)?.webhookLog.map((entry) => entry.attempt), [1, 2, 3, 4, 5]);
    assert.deepEqual(queue.webhooks.map((w) => w.delaySeconds), DELAYS);
  });

  it('fails the webhook once, with a reason, when its stored URL can never be called', async () => {
    // Prepare: a record stored before the schemas refused such URLs, delivered by the real outbound client.
    const { jobs, queue, deps, job } = await setup();
    jobs.peek(job)!.webhook!.url = 'http://user%SZ@hooks.example/done';
    delete deps.send;

    // Act
    await deliverWebhook(message(job, 1), deps, clock());

    // Assess: no throw (the message is not offered again), no further attempt queued.
    assert.equal(jobs.peek(job)?.webhookStatus, 'FAILED');
    assert.equal(jobs.peek(job)?.webhookAttempts, 1);
    assert.match(jobs.peek(job)?.webhookLog[0]?.error ?? '', /malformed percent escape/);
    assert.deepEqual(queue.webhooks, []);
  });

  it('never calls a delivered webhook again when an attempt message is delivered twice', async () => {
    // Prepare
    const { deps, target, job } = await setup();
    await deliverWebhook(message(job, 1), deps, clock());

    // Act
    await deliverWebhook(message(job, 1), deps, clock());

    // Assess
    assert.equal(target.calls.length, 1);
  });

  it('retries later (JobBusyError) while another consumer is making the same attempt', async () => {
    // Prepare
    const { jobs, deps, target, job } = await setup();
    const now = Date.now();
    await jobs.claimWebhookAttempt(job, 1, { runId: 'other', until: now + 20_000 }, now);

    // Act / Assess
    await assert.rejects(deliverWebhook(message(job, 1), deps, clock(now)), JobBusyError);
    assert.equal(target.calls.length, 0);
  });

  it('decides on a refused attempt from the job the store sent back with the refusal, without reading it again', async () => {
    // Prepare
    const { jobs, deps, target, job } = await setup();
    const now = Date.now();
    await jobs.claimWebhookAttempt(job, 1, { runId: 'other', until: now + 20_000 }, now);
    let reads = 0;
    jobs.get = async () => (reads++, undefined);

    // Act / Assess
    await assert.rejects(deliverWebhook(message(job, 1), deps, clock(now)), JobBusyError);
    assert.equal(reads, 0);
    assert.equal(target.calls.length, 0);
  });

  it('makes the attempt again when the consumer making it died before recording it', async () => {
    // Prepare
    const { jobs, deps, target, job } = await setup();
    const now = Date.now();
    await jobs.claimWebhookAttempt(job, 1, { runId: 'dead', until: now - 1 }, now - 30_000);

    // Act
    await deliverWebhook(message(job, 1), deps, clock(now));

    // Assess
    assert.equal(target.calls.length, 1);
    assert.equal(jobs.peek(job)?.webhookStatus, 'DELIVERED');
    assert.equal(jobs.peek(job)?.webhookAttempts, 1);
  });

  it('queues the next attempt again when a redelivered message finds its attempt recorded but the next not taken', async () => {
    // Prepare: attempt 1 failed and was recorded, but its consumer died before queuing attempt 2.
    const { jobs, queue, deps, target, job } = await setup({ statuses: [500] });
    await deliverWebhook(message(job, 1), deps, clock());
    queue.webhooks.length = 0;

    // Act
    await deliverWebhook(message(job, 1), deps, clock());

    // Assess
    assert.equal(target.calls.length, 1, 'the recorded attempt is not made again');
    assert.deepEqual(queue.webhooks, [{ message: message(job, 2), delaySeconds: DELAYS[0] }]);
    assert.equal(jobs.peek(job)?.webhookAttempts, 1);
  });

  it('tells the receiver about a failed job: status, error and no file', async () => {
    const { deps, target, job } = await setup({ status: 'FAILED' });
    await deliverWebhook(message(job, 1), deps, clock());
    const parsed = JSON.parse(String(target.calls[0]!.body)) as Record<string, unknown>;
    assert.equal(parsed.status, 'FAILED');
    assert.deepEqual(parsed.error, { code: 'render.navigation', message: 'The page could not be loaded' });
    assert.equal(parsed.fileUrl, null);
  });

  it('never sends an unsigned webhook: without the account secret the attempt fails and is retried', async () => {
    // Prepare
    const { jobs, queue, deps, target, job } = await setup();
    deps.tokens = { findByHash: async () => undefined };

    // Act
    await deliverWebhook(message(job, 1), deps, clock());

    // Assess
    assert.equal(target.calls.length, 0);
    assert.equal(jobs.peek(job)?.webhookStatus, 'RETRYING');
    assert.equal(jobs.peek(job)?.webhookLog[0]?.error, 'the account has no valid webhook signing secret');
    assert.equal(queue.webhooks.length, 1);
  });
});
