import { randomBytes } from 'node:crypto';

/** Every temporary file lives under this prefix; the bucket's lifecycle rule and the sweeper target it. */
export const FILES_PREFIX = 'files/';

const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'application/json': 'json',
  'application/zip': 'zip',
};

/**
 * A fresh key for an account's file: `files/<accountId>/<192 random bits>.<ext>`.
 * The randomness makes the key, and so any URL naming it, unguessable; the
 * extension lets a downloaded file open with the right program.
 */
export function newFileKey(accountId: string, contentType: string): string {
  const extension = EXTENSIONS[contentType] ?? 'bin';
  return `${FILES_PREFIX}${accountId}/${randomBytes(24).toString('base64url')}.${extension}`;
}
