import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Context, SQSEvent } from 'aws-lambda';
import { deadBatchItemsConsumer } from '../../../lib/batches/batch-consumers.js';
import { batchItemHooks, type BatchProgressDeps } from '../../../lib/batches/batch-progress.js';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { silentLogger } from '../jobs/fakes.js';

/** A port whose every method records its call (`name.method`) and resolves to `answers[method]`. */
function recorder<T extends object>(name: string, calls: string[], answers: Record<string, unknown> = {}): T {
  return new Proxy({} as T, {
    get: (_target, method) => async () => {
      calls.push(`${name}.${String(method)}`);
      return answers[String(method)];
    },
  });
}

/** A batch of 2 items, open, none recorded yet: a check on it queues the next check. */
const openBatch = { accountId: 'acct', batchId: 'bat_1', total: 2, closed: false, cancelled: true, fannedOut: true, output: { zip: false, merge: false } };

function recordedDeps(calls: string[]) {
  return {
    batches: recorder('batches', calls, { get: openBatch, items: [], cancel: openBatch }),
    batchQueue: recorder('batchQueue', calls),
    queue: recorder('queue', calls),
    jobs: recorder('jobs', calls),
    files: recorder('files', calls),
    batchPlans: recorder('batchPlans', calls),
    logger: silentLogger,
    config: { fileLifetimeSeconds: 3600, webhookRetryDelaysSeconds: [1], batchCheckSeconds: 1 },
  };
}

const context = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'req' } as unknown as Context;

function sqsEvent(body: unknown): SQSEvent {
  const attributes = { ApproximateReceiveCount: '3', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' };
  return {
    Records: [
      { messageId: 'm1', receiptHandle: 'h1', body: JSON.stringify(body), attributes, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:0:dlq', awsRegion: 'us-east-1' },
    ],
  };
}

describe('the batch items dead-letter consumer', () => {
  it('given up a fan-out step, cancels the batch and marks the step done, and queues no second watchdog check', async () => {
    // Prepare
    const calls: string[] = [];
    const handler = deadBatchItemsConsumer(recordedDeps(calls) as unknown as Parameters<typeof deadBatchItemsConsumer>[0]);

    // Act
    const result = await handler(sqsEvent({ kind: 'fanout', accountId: 'acct', batchId: 'bat_1', chunk: 3 }), context);

    // Assess
    assert.deepEqual(result.batchItemFailures, []);
    assert.deepEqual(calls, ['batches.cancel', 'batches.markFannedOut']);
  });
});

describe('batchItemHooks', () => {
  it('never judges a job that is not part of a batch cancelled, nor counts it in one', async () => {
    // Prepare
    const calls: string[] = [];
    const hooks = batchItemHooks({ ...recordedDeps(calls), batches: recorder('batches', calls) } as unknown as BatchProgressDeps);
    const job: Job = { ...newJob({ accountId: 'acct', tokenHash: 'hash', input: { output: 'PDF', page: { html: 'PHA+eDwvcD4=' } }, storage: null, webhook: null }, new Date()), status: 'COMPLETED' };

    // Act
    const refusal = await hooks.refusal(job);
    await hooks.finished(job);

    // Assess
    assert.equal(refusal, undefined);
    assert.deepEqual(calls, []);
  });
});
