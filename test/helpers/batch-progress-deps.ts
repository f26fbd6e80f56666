import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoBatchStore } from '../../lib/aws/dynamo-batch-store.js';
import { createDynamoJobStore } from '../../lib/aws/dynamo-job-store.js';
import { createS3FileStore } from '../../lib/aws/s3-file-store.js';
import { createSqsBatchQueue } from '../../lib/aws/sqs-batch-queue.js';
import { createSqsJobQueue } from '../../lib/aws/sqs-job-queue.js';
import type { BatchProgressDeps } from '../../lib/batches/batch-progress.js';
import type { FileStore } from '../../lib/files/file-store.js';
import type { LocalAwsForTests } from './emulators.js';

/** What closing a batch needs, on the emulators' resources: the adapters a batch consumer builds, a silent logger, 1 s checks. */
export function batchProgressDeps(aws: LocalAwsForTests, serviceName: string): BatchProgressDeps & { files: FileStore } {
  const { dynamo, s3, sqs } = aws.clients;
  const { config } = aws;
  return {
    jobs: createDynamoJobStore({ dynamo, s3, tableName: config.tables.jobs, bucket: config.filesBucket }),
    batches: createDynamoBatchStore({ dynamo, tableName: config.tables.jobs }),
    batchQueue: createSqsBatchQueue({ sqs, queueUrl: config.batchItemsQueueUrl, outputsQueueUrl: config.batchOutputsQueueUrl }),
    queue: createSqsJobQueue({ sqs, jobsQueueUrl: config.jobsQueueUrl, webhooksQueueUrl: config.webhooksQueueUrl }),
    files: createS3FileStore({ s3, bucket: config.filesBucket }),
    logger: new Logger({ serviceName, logLevel: 'SILENT' }),
    config: { fileLifetimeSeconds: 3600, webhookRetryDelaysSeconds: [1], batchCheckSeconds: 1 },
  };
}
