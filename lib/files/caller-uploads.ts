/**
 * A caller's own uploads in the service's files bucket: `s3://<bucket>/uploads/<account id>/<key>`,
 * read for a batch's itemsUrl, a font's fileUrl and a page's templateDataUrl. Only that
 * account's prefix in that bucket is read: never another account's uploads, the rendered
 * files or the service's own objects (templates, job inputs), and the answer is the same
 * whether such a key exists or not. Every problem is a 400 on the field that named the key.
 */
import { ValidationError } from '../errors.js';
import type { FileStore } from './file-store.js';

/** Where the files bucket takes a caller's uploads: `uploads/<accountId>/…`, read by that account only. */
export const UPLOAD_PREFIX = 'uploads/';

export type CallerUploadDeps = { files: Pick<FileStore, 'readStream'>; filesBucket: string };

/** The upload named by `url` (`s3://bucket/key`) as it is read, or a 400 on `field`. */
export async function callerUpload(url: string, accountId: string, deps: CallerUploadDeps, field: string): Promise<AsyncIterable<Uint8Array>> {
  const rest = url.trim().slice('s3://'.length);
  const bucket = rest.slice(0, rest.indexOf('/'));
  const key = rest.slice(rest.indexOf('/') + 1);
  const own = `${UPLOAD_PREFIX}${accountId}/`;
  const segments = key.slice(own.length).split('/');
  if (bucket !== deps.filesBucket || !key.startsWith(own) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new ValidationError({ [field]: `Must be s3://${deps.filesBucket}/${own}<key>: only your account's uploads are read` });
  }
  const stream = await deps.files.readStream(key);
  if (!stream) throw new ValidationError({ [field]: 'No file at this key' });
  return stream;
}

/** The whole upload named by `url`, read up to `maxBytes` (past it, a 400 on `field` with `message`). */
export async function callerUploadBytes(
  url: string,
  accountId: string,
  deps: CallerUploadDeps,
  limit: { field: string; maxBytes: number; message?: string },
): Promise<Buffer> {
  const stream = await callerUpload(url, accountId, deps, limit.field);
  const chunks: Uint8Array[] = [];
  let read = 0;
  for await (const chunk of stream) {
    read += chunk.length;
    if (read > limit.maxBytes) {
      (stream as { destroy?: () => void }).destroy?.();
      throw new ValidationError({ [limit.field]: `Must be at most ${limit.maxBytes / 1024 / 1024} MB` }, limit.message ? { message: limit.message } : {});
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
