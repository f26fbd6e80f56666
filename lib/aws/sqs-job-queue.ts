import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue } from '../jobs/job-queue.js';
import { storageError } from './errors.js';

/** SQS refuses longer per-message delays. */
const MAX_DELAY_SECONDS = 900;

/**
 * The jobs and webhooks queues on SQS. Messages carry only a job's key (the
 * record holds the request, which may be megabytes), and a webhook retry
 * waits in the queue through its per-message delay.
 */
export function createSqsJobQueue(opts: { sqs: SQSClient; jobsQueueUrl: string; webhooksQueueUrl: string }): JobQueue {
  const { sqs, jobsQueueUrl, webhooksQueueUrl } = opts;
  const send = async (queueUrl: string, what: string, body: unknown, delaySeconds = 0) => {
    if (!queueUrl) throw storageError(`Queuing a ${what}`, new Error('the queue URL is not configured'));
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(body),
          DelaySeconds: Math.min(Math.max(Math.round(delaySeconds), 0), MAX_DELAY_SECONDS),
        }),
      );
    } catch (error) {
      throw storageError(`Queuing a ${what}`, error);
    }
  };
  return {
    sendJob: (message, delaySeconds) => send(jobsQueueUrl, 'job', { accountId: message.accountId, jobId: message.jobId }, delaySeconds),
    sendWebhook: (message, delaySeconds) =>
      send(webhooksQueueUrl, 'webhook attempt', { accountId: message.accountId, jobId: message.jobId, attempt: message.attempt }, delaySeconds),
  };
}
