import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config.js';

/** The SDK v3 clients one container shares. */
export type AwsClients = {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
};

/**
 * Builds the SDK clients once from config. Endpoints are never configured
 * here: the SDK reads `AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_DYNAMODB` /
 * `_S3` / `_SQS` itself, so the same code talks to the embedded emulators,
 * LocalStack or AWS. `env` is only consulted to adapt to an override.
 */
export function createAwsClients(config: Pick<Config, 'region'>, env: NodeJS.ProcessEnv = process.env): AwsClients {
  const region = config.region;
  const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  // Emulators answer on one host and port: virtual-hosted bucket names
  // (bucket.127.0.0.1) do not resolve, so path-style is needed there only.
  const s3 = new S3Client({ region, ...(endpointOverride(env, 'S3') ? { forcePathStyle: true } : {}) });
  // By default the SDK sends each call to the host inside the queue URL; an
  // emulator's URLs (sqs.<region>.localhost) need not resolve, its endpoint does.
  const sqs = new SQSClient({ region, ...(endpointOverride(env, 'SQS') ? { useQueueUrlAsEndpoint: false } : {}) });
  return { dynamo, s3, sqs };
}

/**
 * The endpoint URL the SDK will use for `service` instead of AWS's, read the
 * way the SDK reads it (service-specific variable first), or undefined.
 */
export function endpointOverride(env: NodeJS.ProcessEnv, service: 'DYNAMODB' | 'S3' | 'SQS'): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true') return undefined;
  return env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL || undefined;
}
