import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { FILES_PREFIX, newFileKey } from '../files/file-keys.js';
import type { FileStore } from '../files/file-store.js';
import { awsErrorName, storageError } from './errors.js';

/**
 * S3 gives LastModified to the second, rounded down (AWS, and LocalStack as
 * it; the embedded emulator to the millisecond): an object listed at 12:00:05
 * may have been stored at 12:00:05.900. It was surely stored before `cutoff`
 * only if its whole second was: a file stored just after the cutoff is never
 * deleted, one stored in the cutoff's own second waits for the next sweep.
 */
function storedBefore(lastModified: Date, cutoff: Date): boolean {
  return lastModified.getTime() + 1000 <= cutoff.getTime();
}

/** DeleteObjects takes at most this many keys per call. */
const DELETE_BATCH = 1000;
/**
 * Files larger than this go up as a multipart upload, in parts of this size
 * sent four at a time: a long screenshot or document of tens of MiB is not one
 * long request, and the local S3 emulator (11 MiB per request) takes it too.
 * Smaller files are one PutObject, as before.
 */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Temporary files in the service's S3 bucket under `files/`, served through
 * pre-signed GET URLs. Locally the S3 client points at the emulator, so the
 * URLs it signs are emulator URLs on 127.0.0.1 and work the same way.
 */
export function createS3FileStore(opts: { s3: S3Client; bucket: string }): FileStore {
  const { s3, bucket } = opts;

  /** Stores a new file under a fresh key, as one PutObject or a multipart upload of PART_BYTES parts, `queueSize` at once. */
  const upload = async (accountId: string, body: Buffer | Readable, contentType: string, queueSize: number) => {
    const key = newFileKey(accountId, contentType);
    const createdAt = new Date().toISOString();
    try {
      await new Upload({
        client: s3,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
        partSize: PART_BYTES,
        queueSize,
        // A part that failed for good aborts the upload: no orphaned parts are billed.
        leavePartsOnError: false,
      }).done();
    } catch (error) {
      throw storageError(`Storing a file in bucket ${bucket}`, error);
    }
    return { key, contentType, createdAt };
  };

  return {
    async put(accountId, body, contentType) {
      return { ...(await upload(accountId, body, contentType, 4)), size: body.length };
    },

    async putStream(accountId, body, contentType) {
      let size = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of body) {
            size += chunk.length;
            yield chunk;
          }
        })(),
      );
      // At most queueSize + 1 parts of PART_BYTES in memory, whatever the file's size.
      const stored = await upload(accountId, counted, contentType, 2);
      return { ...stored, size };
    },

    async readStream(key) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return object.Body as Readable;
      } catch (error) {
        if (awsErrorName(error) === 'NoSuchKey') return undefined;
        throw storageError(`Reading a file from bucket ${bucket}`, error);
      }
    },

    async read(key) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (awsErrorName(error) === 'NoSuchKey') return undefined;
        throw storageError(`Reading a file from bucket ${bucket}`, error);
      }
    },

    async downloadUrl(key, expiresInSeconds) {
      try {
        return await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
      } catch (error) {
        throw storageError(`Signing a download URL for bucket ${bucket}`, error);
      }
    },

    async deleteOlderThan(cutoff) {
      let deleted = 0;
      let continuationToken: string | undefined;
      try {
        do {
          const page = await s3.send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: FILES_PREFIX, ContinuationToken: continuationToken }),
          );
          const old = (page.Contents ?? []).filter((object) => object.Key && object.LastModified && storedBefore(object.LastModified, cutoff));
          for (let i = 0; i < old.length; i += DELETE_BATCH) {
            const batch = old.slice(i, i + DELETE_BATCH);
            const result = await s3.send(
              new DeleteObjectsCommand({
                Bucket: bucket,
                Delete: { Objects: batch.map((object) => ({ Key: object.Key })), Quiet: true },
              }),
            );
            deleted += batch.length - (result.Errors?.length ?? 0);
          }
          continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (continuationToken);
      } catch (error) {
        throw storageError(`Deleting old files from bucket ${bucket}`, error);
      }
      return deleted;
    },
  };
}
