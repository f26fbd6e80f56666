import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { rateIntervalMs } from '../../../scripts/local-runtime/schedules.js';
import { failedMessageIds } from '../../../scripts/local-runtime/sqs-poller.js';

const event: SQSEvent = { Records: ['m1', 'm2', 'm3'].map((messageId) => ({ messageId }) as SQSRecord) };
const succeeded = (result: unknown) => ({ ok: true as const, result, durationMs: 1 });

describe('failedMessageIds', () => {
  it('keeps the whole batch when the invocation failed', () => {
    // Act
    const failed = failedMessageIds({ ok: false, error: new Error('x'), timedOut: false, durationMs: 1 }, event, true);

    // Assess
    assert.deepEqual([...failed].sort(), ['m1', 'm2', 'm3']);
  });

  it('deletes every message of a successful batch without ReportBatchItemFailures, whatever it returned', () => {
    // Act
    const failed = failedMessageIds(succeeded({ batchItemFailures: [{ itemIdentifier: 'm1' }] }), event, false);

    // Assess
    assert.equal(failed.size, 0);
  });

  it('keeps only the listed messages with ReportBatchItemFailures', () => {
    // Act
    const failed = failedMessageIds(succeeded({ batchItemFailures: [{ itemIdentifier: 'm2' }] }), event, true);

    // Assess
    assert.deepEqual([...failed], ['m2']);
  });

  it('treats an empty or absent list as full success', () => {
    // Act & Assess
    assert.equal(failedMessageIds(succeeded({ batchItemFailures: [] }), event, true).size, 0);
    assert.equal(failedMessageIds(succeeded(undefined), event, true).size, 0);
  });

  it('keeps the whole batch when an identifier is missing or not in the batch, as Lambda does', () => {
    // Act & Assess
    assert.equal(failedMessageIds(succeeded({ batchItemFailures: [{ itemIdentifier: 'other' }] }), event, true).size, 3);
    assert.equal(failedMessageIds(succeeded({ batchItemFailures: [{}] }), event, true).size, 3);
  });
});

describe('rateIntervalMs', () => {
  it('reads EventBridge rate expressions and ignores cron ones', () => {
    // Act & Assess
    assert.equal(rateIntervalMs('rate(1 minute)'), 60_000);
    assert.equal(rateIntervalMs('rate(2 hours)'), 7_200_000);
    assert.equal(rateIntervalMs('rate(1 day)'), 86_400_000);
    assert.equal(rateIntervalMs('cron(0 * * * ? *)'), undefined);
  });
});
