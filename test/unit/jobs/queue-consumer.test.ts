import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { parseJobMessage } from '../../../lib/jobs/job-messages.js';
import type { JobMessage } from '../../../lib/jobs/job-queue.js';
import { queueConsumer } from '../../../lib/jobs/queue-consumer.js';
import { silentLogger } from './fakes.js';

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:jobs',
    awsRegion: 'us-east-1',
  };
}

const context = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'req' } as unknown as Context;

describe('queueConsumer', () => {
  it('reports only the records that failed, so the queue keeps exactly those', async () => {
    // Prepare
    const handled: string[] = [];
    const handler = queueConsumer<JobMessage>({
      name: 'test',
      parse: parseJobMessage,
      handle: async (message) => {
        if (message.jobId === 'job-bad') throw new Error('storage unavailable');
        handled.push(message.jobId);
      },
      logger: silentLogger,
    });
    const event: SQSEvent = {
      Records: [
        record('m1', JSON.stringify({ accountId: 'a', jobId: 'job-ok' })),
        record('m2', JSON.stringify({ accountId: 'a', jobId: 'job-bad' })),
        record('m3', JSON.stringify({ accountId: 'a', jobId: 'job-ok-too' })),
      ],
    };

    // Act
    const response = await handler(event, context);

    // Assess
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm2' }]);
    assert.deepEqual(handled.sort(), ['job-ok', 'job-ok-too']);
  });

  it('drops a message it cannot read instead of retrying it into the dead-letter queue', async () => {
    // Prepare
    let calls = 0;
    const handler = queueConsumer<JobMessage>({
      name: 'test',
      parse: parseJobMessage,
      handle: async () => {
        calls += 1;
      },
      logger: silentLogger,
    });

    // Act
    const response = await handler({ Records: [record('m1', 'not json'), record('m2', JSON.stringify({ jobId: 1 }))] }, context);

    // Assess
    assert.deepEqual(response.batchItemFailures, []);
    assert.equal(calls, 0);
  });

  it('reports every record when the whole batch fails, rather than failing the invocation', async () => {
    const handler = queueConsumer<JobMessage>({
      name: 'test',
      parse: parseJobMessage,
      handle: async () => {
        throw new Error('down');
      },
      logger: silentLogger,
    });
    const response = await handler({ Records: [record('m1', JSON.stringify({ accountId: 'a', jobId: 'j' }))] }, context);
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm1' }]);
  });
});
