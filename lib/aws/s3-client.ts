import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import { endpointOverride } from './endpoint-override.js';

/** The S3 client of the file, template and job stores. */
export function createS3Client(config: Pick<Config, 'region'>, env: NodeJS.ProcessEnv = process.env): S3Client {
  // Emulators answer on one host and port: virtual-hosted bucket names
  // (bucket.127.0.0.1) do not resolve, so path-style is needed there only.
  return new S3Client({ region: config.region, ...(endpointOverride(env, 'S3') ? { forcePathStyle: true } : {}) });
}
