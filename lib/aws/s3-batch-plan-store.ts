import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { BatchPlanStore } from '../batches/batch-plan-store.js';
import type { BatchKey } from '../batches/batch-store.js';
import { JOB_INPUTS_PREFIX } from './dynamo-job-store.js';
import { awsErrorName, storageError } from './errors.js';

/** A batch's planned items in S3: `job-inputs/<accountId>/<batchId>/plan-<chunk>.json`, beside the jobs' oversized inputs. */
export function createS3BatchPlanStore(opts: { s3: S3Client; bucket: string }): BatchPlanStore {
  const { s3, bucket } = opts;
  const objectKey = (key: BatchKey, chunk: number) => `${JOB_INPUTS_PREFIX}${key.accountId}/${key.batchId}/plan-${chunk}.json`;
  return {
    async put(key, chunk, jobs) {
      try {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: objectKey(key, chunk), Body: JSON.stringify(jobs), ContentType: 'application/json' }));
      } catch (error) {
        throw storageError(`Storing a batch's planned items in bucket ${bucket}`, error);
      }
    },
    async get(key, chunk) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key, chunk) }));
        return JSON.parse(await object.Body!.transformToString('utf8'));
      } catch (error) {
        if (awsErrorName(error) === 'NoSuchKey') return undefined;
        throw storageError(`Reading a batch's planned items from bucket ${bucket}`, error);
      }
    },
  };
}
