import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config.js';
import { createDynamoClient } from './dynamo-client.js';
import { createS3Client } from './s3-client.js';
import { createSqsClient } from './sqs-client.js';

/** The SDK v3 clients, all three (scripts and tests; a function builds each one as it first needs it, see lib/bootstrap/app-deps.ts). */
export type AwsClients = {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
};

/**
 * Builds the SDK clients from config. Endpoints are never configured here:
 * the SDK reads `AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_DYNAMODB` / `_S3` /
 * `_SQS` itself, so the same code talks to the embedded emulators,
 * LocalStack or AWS. `env` is only consulted to adapt to an override.
 */
export function createAwsClients(config: Pick<Config, 'region'>, env: NodeJS.ProcessEnv = process.env): AwsClients {
  return { dynamo: createDynamoClient(config), s3: createS3Client(config, env), sqs: createSqsClient(config, env) };
}
