import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PurgeQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchItemJobId, newBatchId } from '../../../lib/batches/batch-ids.js';
import { batchItemHooks, checkBatch, type BatchProgressDeps } from '../../../lib/batches/batch-progress.js';
import type { BatchKey } from '../../../lib/batches/batch-store.js';
import type { FileStore } from '../../../lib/files/file-store.js';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { batchProgressDeps } from '../../helpers/batch-progress-deps.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { b64 } from '../../helpers/service.js';

const ACCOUNT = 'acct-batch';

describe('batch progress: counted once, closed once, recovered by the watchdog', () => {
  let aws: LocalAwsForTests;
  let deps: BatchProgressDeps & { files: FileStore };

  before(async () => {
    aws = await withLocalAws();
    deps = batchProgressDeps(aws, 'batch-progress');
  });
  after(() => aws.stop());

  /** A batch of `total` items, all finished (COMPLETED with a stored file), none counted yet. */
  async function finishedBatch(total: number, failing: readonly number[] = []): Promise<{ key: BatchKey; items: Job[] }> {
    const key = { accountId: ACCOUNT, batchId: newBatchId() };
    const now = new Date();
    // No fan-out steps: the items are recorded here, as they are.
    await deps.batches.create({ ...key, tokenHash: 'hash', total, fanOutChunks: 0, output: { zip: false, merge: false }, storage: null, webhook: { url: 'https://hooks.example/batch' }, createdAt: now.toISOString(), expiresAt: 0 });
    const items: Job[] = [];
    for (let index = 0; index < total; index++) {
      const file = await deps.files.put(ACCOUNT, Buffer.from(`%PDF-1.4 item ${index}`), 'application/pdf');
      const job: Job = {
        ...newJob({ accountId: ACCOUNT, tokenHash: 'hash', input: { output: 'PDF', page: { html: b64('<p>x</p>') } }, storage: null, webhook: null }, now),
        jobId: batchItemJobId(key.batchId, index),
        batchItem: { batchId: key.batchId, index, name: `item-${index}` },
        ...(failing.includes(index) ? { status: 'FAILED' as const, error: { code: 'render.navigation', message: 'The page did not load' } } : { status: 'COMPLETED' as const, file }),
      };
      await deps.jobs.create(job);
      items.push(job);
    }
    return { key, items };
  }

  /** The webhook attempts queued so far (drained). */
  async function queuedWebhooks(): Promise<Array<{ jobId: string; attempt: number }>> {
    const found: Array<{ jobId: string; attempt: number }> = [];
    for (;;) {
      const { Messages = [] } = await aws.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: aws.config.webhooksQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 300 }),
      );
      if (Messages.length === 0) return found;
      for (const message of Messages) found.push(JSON.parse(message.Body as string) as { jobId: string; attempt: number });
    }
  }

  it('closes the batch exactly once when its last two items finish at the same instant, and counts a redelivered item once', async () => {
    // Prepare
    await aws.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: aws.config.webhooksQueueUrl }));
    const { key, items } = await finishedBatch(3);
    const hooks = batchItemHooks(deps);
    await hooks.finished(items[0]!);

    // Act: the last two at once, each twice (a redelivered message)
    await Promise.all([hooks.finished(items[1]!), hooks.finished(items[2]!), hooks.finished(items[1]!), hooks.finished(items[2]!)]);
    await hooks.finished(items[0]!);

    // Assess
    const batch = await deps.batches.get(key);
    assert.equal(batch?.status, 'COMPLETED');
    assert.deepEqual([batch?.done, batch?.failed, batch?.closed], [3, 0, true]);
    const webhooks = (await queuedWebhooks()).filter((message) => message.jobId === key.batchId);
    assert.deepEqual(webhooks.map((message) => message.attempt), [1]);
  });

  it('ends COMPLETED_WITH_ERRORS when some items failed, and FAILED when all did, each reason in the manifest', async () => {
    // Prepare
    const some = await finishedBatch(3, [1]);
    const all = await finishedBatch(2, [0, 1]);
    const hooks = batchItemHooks(deps);

    // Act
    for (const item of [...some.items, ...all.items]) await hooks.finished(item);

    // Assess
    const withErrors = await deps.batches.get(some.key);
    assert.deepEqual([withErrors?.status, withErrors?.done, withErrors?.failed], ['COMPLETED_WITH_ERRORS', 2, 1]);
    const manifest = JSON.parse((await deps.files.read(withErrors!.manifest!.key))!.toString('utf8')) as { items: Array<{ status: string; error?: { code: string } }> };
    assert.deepEqual(manifest.items.map((item) => [item.status, item.error?.code]), [['COMPLETED', undefined], ['FAILED', 'render.navigation'], ['COMPLETED', undefined]]);
    const failed = await deps.batches.get(all.key);
    assert.deepEqual([failed?.status, failed?.done, failed?.failed], ['FAILED', 0, 2]);
  });

  it('closes a batch whose fan-out failed half-way (cancelled, fewer items recorded than its total) at its next check, the missing items failed', async () => {
    // Prepare: a batch of 3 whose third item was never recorded, cancelled by the failed request
    const { key, items } = await finishedBatch(2);
    await deps.batches.countItem(items[0]!, key, 'done', Date.now());
    const { dynamo } = aws.clients;
    await dynamo.send(new UpdateCommand({ TableName: aws.config.tables.jobs, Key: { accountId: ACCOUNT, jobId: key.batchId }, UpdateExpression: 'SET #t = :t', ExpressionAttributeNames: { '#t': 'total' }, ExpressionAttributeValues: { ':t': 3 } }));
    await deps.batches.cancel(key, Date.now());
    await batchItemHooks(deps).finished(items[1]!);

    // Act
    await checkBatch(key, deps);

    // Assess
    const batch = await deps.batches.get(key);
    assert.deepEqual([batch?.status, batch?.closed, batch?.done, batch?.failed], ['CANCELLED', true, 2, 1]);
  });

  it('closes a batch whose finisher died between counting its last item and closing, with exact counts, from the watchdog check', async () => {
    // Prepare: item 0 counted; item 1 marked counted but the batch never moved (the finisher died there)
    await aws.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: aws.config.webhooksQueueUrl }));
    const { key, items } = await finishedBatch(2);
    await batchItemHooks(deps).finished(items[0]!);
    await aws.clients.dynamo.send(
      new UpdateCommand({ TableName: aws.config.tables.jobs, Key: { accountId: ACCOUNT, jobId: items[1]!.jobId }, UpdateExpression: 'SET counted = :t', ExpressionAttributeValues: { ':t': true } }),
    );
    await batchItemHooks(deps).finished(items[1]!);
    assert.equal((await deps.batches.get(key))?.closed, false, 'no finisher closes it: the lost count keeps it open');

    // Act
    await checkBatch(key, deps);
    await checkBatch(key, deps);

    // Assess
    const batch = await deps.batches.get(key);
    assert.deepEqual([batch?.status, batch?.done, batch?.failed, batch?.closed], ['COMPLETED', 2, 0, true]);
    const manifest = JSON.parse((await deps.files.read(batch!.manifest!.key))!.toString('utf8')) as { items: Array<{ name: string; status: string }> };
    assert.deepEqual(manifest.items.map((item) => [item.name, item.status]), [['item-0', 'COMPLETED'], ['item-1', 'COMPLETED']]);
    // one attempt queued by the close; the second check queues attempt 1 again only since none was made (only one can claim it)
    const attempts = (await queuedWebhooks()).filter((message) => message.jobId === key.batchId);
    assert.ok(attempts.length >= 1 && attempts.every((message) => message.attempt === 1));
  });
});
