import { PayloadTooLargeError, ValidationError } from '../errors.js';
import type { FileStore } from '../files/file-store.js';
import { bodyBytes } from '../http/body-limit.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpEvent } from '../http/types.js';
import { parseInput } from '../validation/parse.js';
import * as v from 'valibot';
import { FONT_CONTENT_TYPES, FONT_UPLOAD_PREFIX, FamilySchema, FontUploadSchema } from '../schemas/font-requests.js';
import { MAX_FONT_FILE_BYTES } from '../fonts/user-fonts/font-limits.js';
import type { FontUpload } from '../fonts/user-fonts/user-fonts.js';

export type FontUploadDeps = { files: Pick<FileStore, 'readStream'>; filesBucket: string; maxBodyBytes: number };

/**
 * The font a POST /v1/fonts carries, in one of three forms: the file itself as
 * the body (Content-Type font/ttf, font/otf, font/woff or font/woff2; the family
 * may be given as `?family=`), or JSON with the file base64 (`file`) or the
 * key of the caller's own upload (`fileUrl`), which is how a file larger than
 * Lambda's 6 MB request payload gets in. A body over the service's body limit is a 413.
 */
export async function readFontUpload(event: HttpEvent, query: Record<string, string>, accountId: string, deps: FontUploadDeps): Promise<FontUpload> {
  if (bodyBytes(event) > deps.maxBodyBytes) throw new PayloadTooLargeError(deps.maxBodyBytes);
  const contentType = (headerOf(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if ((FONT_CONTENT_TYPES as readonly string[]).includes(contentType)) {
    const family = query.family !== undefined ? parseInput(v.object({ family: FamilySchema }), { family: query.family }).family : undefined;
    const bytes = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'latin1') : Buffer.alloc(0);
    if (bytes.length === 0) throw new ValidationError({ body: 'The font file is empty' }, { message: 'The font cannot be used' });
    return { bytes, field: 'body', ...(family !== undefined ? { family } : {}) };
  }
  const body = parseInput(FontUploadSchema, parseJsonBody(event));
  const family = body.family ?? undefined;
  if (body.file != null) return { bytes: Buffer.from(body.file, 'base64'), field: 'file', ...(family !== undefined ? { family } : {}) };
  return { bytes: await uploadedFontFile(body.fileUrl as string, accountId, deps), field: 'fileUrl', ...(family !== undefined ? { family } : {}) };
}

/**
 * The caller's own upload named by `s3://bucket/key`: only in the service's
 * files bucket under `uploads/<the caller's account id>/` (as a batch's itemsUrl),
 * never another account's uploads or the service's own objects, and the same
 * answer whether such a key exists or not; read up to MAX_FONT_FILE_BYTES.
 */
async function uploadedFontFile(fileUrl: string, accountId: string, deps: FontUploadDeps): Promise<Buffer> {
  const rest = fileUrl.slice('s3://'.length);
  const bucket = rest.slice(0, rest.indexOf('/'));
  const key = rest.slice(rest.indexOf('/') + 1);
  const own = `${FONT_UPLOAD_PREFIX}${accountId}/`;
  const segments = key.slice(own.length).split('/');
  if (bucket !== deps.filesBucket || !key.startsWith(own) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new ValidationError({ fileUrl: `Must be s3://${deps.filesBucket}/${own}<key>: only your account's uploads are read` });
  }
  const stream = await deps.files.readStream(key);
  if (!stream) throw new ValidationError({ fileUrl: 'No file at this key' });
  const chunks: Uint8Array[] = [];
  let read = 0;
  for await (const chunk of stream) {
    read += chunk.length;
    if (read > MAX_FONT_FILE_BYTES) throw new ValidationError({ fileUrl: `Must be at most ${MAX_FONT_FILE_BYTES / 1024 / 1024} MB` }, { message: 'The font cannot be used' });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function headerOf(event: HttpEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === name) return value;
  return undefined;
}
