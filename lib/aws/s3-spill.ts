import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { nestsWithin } from '../validation/json-depth.js';
import { holdsOnlyItemNumbers } from './dynamo-numbers.js';

/** Values larger than this (as JSON) go to S3: DynamoDB items stop at 400 KB, and the rest of the item needs room. */
export const INLINE_LIMIT_BYTES = 300 * 1024;

/**
 * Values nesting deeper than this go to S3 too: DynamoDB refuses an item whose
 * maps and lists nest more than 32 levels (a ValidationException, which no
 * emulator here reproduces), and `templateData` alone may nest 100; the item
 * itself and the value's own wrapping (`input.page`) take a few of the 32.
 */
export const INLINE_MAX_DEPTH = 24;

/** Where a value is kept: inline in the DynamoDB item, or in S3 under `key`. */
export type Kept<T> = { inline: T } | { key: string };

/** A JSON value's place beside a DynamoDB item: kept in the item when it fits there, moved to S3 when it does not. */
export type S3Spill = {
  /** Keeps `value` inline when it fits in an item; otherwise writes it to S3 under `key` first. */
  keep<T>(value: T, key: string): Promise<Kept<T>>;
  /** Reads back a value that was moved to S3. */
  load<T>(key: string): Promise<T>;
  /** Deletes a value that was moved to S3. */
  discard(key: string): Promise<void>;
};

/** The one "keep in DynamoDB or move to S3" rule, for every store whose items may hold a large caller-supplied value. */
export function createS3Spill(opts: { s3: S3Client; bucket: string }): S3Spill {
  const { s3, bucket } = opts;
  return {
    async keep(value, key) {
      const serialized = JSON.stringify(value ?? null);
      // Too large, too deep, or holding numbers an item cannot hold (1e308, 1e-160: dynamo-numbers.ts): S3.
      if (
        Buffer.byteLength(serialized) <= INLINE_LIMIT_BYTES &&
        nestsWithin(value, INLINE_MAX_DEPTH) &&
        holdsOnlyItemNumbers(value, INLINE_MAX_DEPTH)
      ) {
        return { inline: value };
      }
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: serialized, ContentType: 'application/json' }));
      return { key };
    },

    async load(key) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return JSON.parse(await object.Body!.transformToString('utf8'));
    },

    async discard(key) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
