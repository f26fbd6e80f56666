import type { FileStore, StoredFile } from './file-store.js';

/** Shortest validity worth handing out: a URL that expires before it can be used helps nobody. */
const MIN_URL_SECONDS = 1;

/**
 * A download URL for a temporary file, valid for what is left of its
 * lifetime (so a URL never outlives the file), or undefined once the file
 * has expired.
 */
export async function temporaryFileUrl(
  files: Pick<FileStore, 'downloadUrl'>,
  file: Pick<StoredFile, 'key' | 'createdAt'>,
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<string | undefined> {
  const ageSeconds = Math.max(0, (now - Date.parse(file.createdAt)) / 1000);
  const remaining = Math.floor(lifetimeSeconds - ageSeconds);
  if (!(remaining >= MIN_URL_SECONDS)) return undefined;
  return files.downloadUrl(file.key, remaining);
}

/** Deletes the temporary files older than their lifetime; resolves to how many. */
export function sweepTemporaryFiles(
  files: Pick<FileStore, 'deleteOlderThan'>,
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<number> {
  return files.deleteOlderThan(new Date(now - lifetimeSeconds * 1000));
}
