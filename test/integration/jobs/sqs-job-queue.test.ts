import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { createSqsJobQueue } from '../../../lib/aws/sqs-job-queue.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

describe('createSqsJobQueue', () => {
  let aws: LocalAwsForTests;

  before(async () => {
    aws = await withLocalAws();
  });
  after(() => aws.stop());

  const receive = async (queueUrl: string, waitSeconds: number): Promise<Message[]> =>
    (await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: waitSeconds, MaxNumberOfMessages: 10 }))).Messages ?? [];

  it('queues a job as its key alone', async () => {
    // Prepare
    const queue = createSqsJobQueue({ sqs: aws.clients.sqs, jobsQueueUrl: aws.config.jobsQueueUrl, webhooksQueueUrl: aws.config.webhooksQueueUrl });

    // Act
    await queue.sendJob({ accountId: 'acct-1', jobId: 'job_1' });
    const messages = await receive(aws.config.jobsQueueUrl, 2);

    // Assess
    assert.deepEqual(messages.map((m) => JSON.parse(m.Body ?? '')), [{ accountId: 'acct-1', jobId: 'job_1' }]);
  });

  it('holds a webhook retry back for its delay', async () => {
    // Prepare
    const queue = createSqsJobQueue({ sqs: aws.clients.sqs, jobsQueueUrl: aws.config.jobsQueueUrl, webhooksQueueUrl: aws.config.webhooksQueueUrl });

    // Act
    await queue.sendWebhook({ accountId: 'acct-1', jobId: 'job_1', attempt: 2 }, 2);
    const early = await receive(aws.config.webhooksQueueUrl, 0);
    const later = await receive(aws.config.webhooksQueueUrl, 5);

    // Assess
    assert.deepEqual(early, []);
    assert.deepEqual(later.map((m) => JSON.parse(m.Body ?? '')), [{ accountId: 'acct-1', jobId: 'job_1', attempt: 2 }]);
  });

  it('fails with a StorageError naming the queue when no queue URL is configured', async () => {
    const queue = createSqsJobQueue({ sqs: aws.clients.sqs, jobsQueueUrl: '', webhooksQueueUrl: '' });
    await assert.rejects(queue.sendJob({ accountId: 'a', jobId: 'j' }), { name: 'StorageError', message: /Queuing a job/ });
  });
});
