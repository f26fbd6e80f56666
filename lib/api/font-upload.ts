import { PayloadTooLargeError, ValidationError } from '../errors.js';
import type { FileStore } from '../files/file-store.js';
import { callerUploadBytes } from '../files/caller-uploads.js';
import { bodyBytes } from '../http/body-limit.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpEvent } from '../http/types.js';
import { parseInput } from '../validation/parse.js';
import * as v from 'valibot';
import { FONT_CONTENT_TYPES, FamilySchema, FontUploadSchema } from '../schemas/font-requests.js';
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
  const bytes = await callerUploadBytes(body.fileUrl as string, accountId, deps, { field: 'fileUrl', maxBytes: MAX_FONT_FILE_BYTES, message: 'The font cannot be used' });
  return { bytes, field: 'fileUrl', ...(family !== undefined ? { family } : {}) };
}

function headerOf(event: HttpEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === name) return value;
  return undefined;
}
