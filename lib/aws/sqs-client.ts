import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config.js';
import { endpointOverride } from './endpoint-override.js';

/** The SQS client of the job queue. */
export function createSqsClient(config: Pick<Config, 'region'>, env: NodeJS.ProcessEnv = process.env): SQSClient {
  // By default the SDK sends each call to the host inside the queue URL; an
  // emulator's URLs (sqs.<region>.localhost) need not resolve, its endpoint does.
  return new SQSClient({ region: config.region, ...(endpointOverride(env, 'SQS') ? { useQueueUrlAsEndpoint: false } : {}) });
}
