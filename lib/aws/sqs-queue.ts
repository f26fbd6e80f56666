import type { Config } from '../config.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { createSqsClient } from './sqs-client.js';
import { createSqsJobQueue } from './sqs-job-queue.js';

/** Builds the SQS client and the job queue on it (`lib/bootstrap/app-deps.ts` loads this module on the queue's first call). */
export function createSqsQueue(config: Pick<Config, 'region' | 'jobsQueueUrl' | 'webhooksQueueUrl'>): JobQueue {
  return createSqsJobQueue({ sqs: createSqsClient(config), jobsQueueUrl: config.jobsQueueUrl, webhooksQueueUrl: config.webhooksQueueUrl });
}
