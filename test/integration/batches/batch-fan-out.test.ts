import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeleteMessageBatchCommand, PurgeQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createS3BatchPlanStore } from '../../../lib/aws/s3-batch-plan-store.js';
import { parseBatchQueueMessage, type FanOutMessage } from '../../../lib/batches/batch-queue.js';
import { fanOutChunk, type FanOutDeps } from '../../../lib/batches/fan-out.js';
import { batchItemHooks, CANCELLED_ITEM, checkBatch } from '../../../lib/batches/batch-progress.js';
import type { PreparedItem } from '../../../lib/batches/prepare-batch.js';
import { submitBatch, type SubmitBatchDeps } from '../../../lib/batches/submit-batch.js';
import { batchProgressDeps } from '../../helpers/batch-progress-deps.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { b64 } from '../../helpers/service.js';

const ACCOUNT = 'acct-fan-out';
const ITEMS = 20_000;
const CHUNK = 500;

describe('batch fan-out: the POST stores the plan and queues one step per chunk; each step records and queues its items once', () => {
  let aws: LocalAwsForTests;
  let deps: SubmitBatchDeps & FanOutDeps & ReturnType<typeof batchProgressDeps>;

  before(async () => {
    aws = await withLocalAws();
    const progress = batchProgressDeps(aws, 'batch-fan-out');
    deps = { ...progress, batchPlans: createS3BatchPlanStore({ s3: aws.clients.s3, bucket: aws.config.filesBucket }), config: { ...progress.config, batchFanOutChunkItems: CHUNK } };
    await aws.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: aws.config.batchItemsQueueUrl }));
  });
  after(() => aws.stop());

  /** Every message on the batch items queue, taken off it. */
  async function drain(): Promise<ReturnType<typeof parseBatchQueueMessage>[]> {
    const found: ReturnType<typeof parseBatchQueueMessage>[] = [];
    for (let empty = 0; empty < 2; ) {
      const { Messages = [] } = await aws.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: aws.config.batchItemsQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }),
      );
      if (Messages.length === 0) {
        empty += 1;
        continue;
      }
      for (const message of Messages) found.push(parseBatchQueueMessage(message.Body as string));
      await aws.clients.sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: aws.config.batchItemsQueueUrl, Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string })) }),
      );
    }
    return found;
  }

  it(`fans ${ITEMS} items out in chunks of ${CHUNK}: every item recorded once with its own index, a chunk done twice records nothing twice, the counts untouched`, async () => {
    // Prepare: tiny planned items (the fan-out never renders)
    const items: PreparedItem<unknown>[] = Array.from({ length: ITEMS }, (_, i) => ({
      input: { output: 'PDF', page: { html: b64(`<p>${i}</p>`) } },
      prepared: undefined,
      name: `n-${i}`,
      ...(i % 1000 === 0 ? { metadata: { i: String(i) } } : {}),
    }));

    // Act: the POST's part, then every fan-out step (one of them twice, as a redelivered message would)
    const batch = await submitBatch(deps, { accountId: ACCOUNT, tokenHash: 'hash', items, output: { zip: false, merge: false }, storage: null, webhook: null });
    const queued = await drain();
    const steps = queued.filter((m): m is { kind: 'fanout' } & FanOutMessage => m.kind === 'fanout');
    const beforeSteps = await deps.batches.items(batch);
    for (const step of [...steps, steps[7]!]) await fanOutChunk(step, deps);
    const after = await drain();
    const itemMessages = after.filter((m) => m.kind === 'item');
    const records = await deps.batches.items(batch);
    const stored = await deps.batches.get(batch);

    // Assess
    assert.equal(batch.total, ITEMS);
    assert.deepEqual(steps.map((step) => step.chunk).sort((a, b) => a - b), Array.from({ length: ITEMS / CHUNK }, (_, i) => i));
    assert.equal([...queued, ...after].filter((m) => m.kind === 'check').length, 1, 'the watchdog is queued by the POST (1 s later)');
    assert.equal(beforeSteps.length, 0, 'the POST records no item: the steps do');
    assert.equal(records.length, ITEMS);
    assert.deepEqual(records.map((record) => record.batchItem.index).sort((a, b) => a - b), Array.from({ length: ITEMS }, (_, i) => i));
    for (const record of records) assert.equal(record.batchItem.name, `n-${record.batchItem.index}`);
    assert.deepEqual(records.find((record) => record.batchItem.index === 3000)?.batchItem.metadata, { i: '3000' });
    // every item queued; the chunk done twice queued its items again (harmless: each runs under its job's lease, counted once)
    assert.equal(new Set(itemMessages.map((m) => (m.kind === 'item' ? m.jobId : ''))).size, ITEMS);
    assert.equal(itemMessages.length, ITEMS + CHUNK);
    assert.deepEqual([stored?.status, stored?.total, stored?.done, stored?.failed], ['PENDING', ITEMS, 0, 0]);
  });

  it('keeps a batch cancelled during its fan-out open until every step has recorded its items, so its manifest lists them all', async () => {
    // Prepare: 3 items, one per step; the first step runs, then the batch is cancelled (DELETE) and that item ends as cancelled
    const oneByOne = { ...deps, config: { ...deps.config, batchFanOutChunkItems: 1 } };
    const items: PreparedItem<unknown>[] = [0, 1, 2].map((i) => ({ input: { output: 'PDF', page: { html: b64(`<p>${i}</p>`) } }, prepared: undefined, name: `c-${i}` }));
    const batch = await submitBatch(oneByOne, { accountId: ACCOUNT, tokenHash: 'hash', items, output: { zip: false, merge: false }, storage: null, webhook: null });
    const steps = (await drain()).filter((m): m is { kind: 'fanout' } & FanOutMessage => m.kind === 'fanout').sort((a, b) => a.chunk - b.chunk);
    const hooks = batchItemHooks(deps);
    /** What the item consumer does with an item of a cancelled batch: fails it without rendering, then counts it. */
    const cancelRecorded = async () => {
      for (const record of await deps.batches.items(batch)) {
        if (record.status === 'COMPLETED' || record.status === 'FAILED') continue;
        await hooks.finished(await deps.jobs.failUnfinished({ accountId: ACCOUNT, jobId: record.jobId }, CANCELLED_ITEM, Date.now()));
      }
    };
    await fanOutChunk(steps[0]!, deps);
    await deps.batches.cancel(batch, Date.now());
    await cancelRecorded();

    // Act: the watchdog checks while two steps are still to run; then they run and their items end as cancelled
    await checkBatch(batch, deps);
    const whileFanningOut = await deps.batches.get(batch);
    for (const step of steps.slice(1)) await fanOutChunk(step, deps);
    await cancelRecorded();
    const closed = await deps.batches.get(batch);

    // Assess
    assert.equal(steps.length, 3);
    assert.deepEqual([whileFanningOut?.closed, whileFanningOut?.fannedOut], [false, false], 'not closed while steps are to come');
    assert.deepEqual([closed?.closed, closed?.status, closed?.done, closed?.failed, closed?.fannedOut], [true, 'CANCELLED', 0, 3, true]);
    const manifest = JSON.parse((await deps.files.read(closed!.manifest!.key))!.toString('utf8')) as { items: Array<{ name: string; status: string; error?: { code: string } }> };
    assert.deepEqual(
      manifest.items.map((item) => [item.name, item.status, item.error?.code]),
      [0, 1, 2].map((i) => [`c-${i}`, 'FAILED', 'batch.cancelled']),
    );
    await drain();
  });

  it('fails a step whose chunk cannot be read, so that its message is offered again (and in the end dead-lettered, which cancels the batch)', async () => {
    // Prepare
    const key = { accountId: ACCOUNT, batchId: 'bat_nochunk' };

    // Act + Assess
    await assert.rejects(fanOutChunk({ ...key, chunk: 3 }, deps), /has no planned items for chunk 3/);
    assert.equal((await deps.batches.items(key)).length, 0);
  });
});
