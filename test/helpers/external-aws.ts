import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DeleteTableCommand, DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import { DeleteBucketCommand, DeleteObjectsCommand, ListBucketsCommand, paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3';
import { DeleteQueueCommand, paginateListQueues, SQSClient } from '@aws-sdk/client-sqs';
import { parse } from 'yaml';
import { PROJECT_SERVERLESS_FILE } from '../../scripts/local-runtime/service-definition.js';

/**
 * TEST_AWS_ENDPOINT: AWS-compatible services already running (LocalStack, as
 * `npm run localstack:host -- --run …` starts it) for the test helpers to
 * provision on instead of starting the embedded emulators. Unset, the tests
 * run on the embedded emulators, as `npm start` does by default.
 */
export function externalAwsEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TEST_AWS_ENDPOINT?.replace(/\/+$/, '') || undefined;
}

/**
 * A stage no other test or run uses: every resource is named
 * `<service>-<stage>-…`, so tests sharing one LocalStack never see each
 * other's tables, bucket or queues, and cleaning up one touches no other.
 */
export function uniqueStage(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** The project's service name (serverless.yml `service:`), the first part of every resource name. */
export function projectServiceName(): string {
  return (parse(readFileSync(PROJECT_SERVERLESS_FILE, 'utf8')) as { service: string }).service;
}

/**
 * Deletes every table, bucket (its objects first) and queue named
 * `<service>-<stage>-…` at `endpoint`: what a test provisioned there.
 */
export async function deleteStageResources(endpoint: string, region: string, service: string, stage: string): Promise<void> {
  const prefix = `${service}-${stage}-`;
  const config = { region, endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  const dynamodb = new DynamoDBClient(config);
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  const sqs = new SQSClient(config);
  try {
    for await (const page of paginateListTables({ client: dynamodb }, {})) {
      for (const name of page.TableNames ?? []) if (name.startsWith(prefix)) await dynamodb.send(new DeleteTableCommand({ TableName: name }));
    }
    const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
    for (const { Name: bucket } of Buckets) {
      if (!bucket?.startsWith(prefix.toLowerCase())) continue;
      for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket })) {
        const objects = (page.Contents ?? []).map(({ Key }) => ({ Key }));
        if (objects.length) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
      }
      await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    }
    for await (const page of paginateListQueues({ client: sqs }, { QueueNamePrefix: prefix })) {
      for (const url of page.QueueUrls ?? []) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    }
  } finally {
    dynamodb.destroy();
    s3.destroy();
    sqs.destroy();
  }
}
