/** A temporary file as stored: where it is and what it holds. */
export type StoredFile = {
  /** `files/<accountId>/<random>.<ext>`; unguessable, so it can appear in a download URL. */
  key: string;
  contentType: string;
  /** Bytes. */
  size: number;
  /** ISO 8601; the file's lifetime counts from here. */
  createdAt: string;
};

/**
 * Port: where rendered files wait to be downloaded. Files are temporary:
 * download URLs expire and a sweeper deletes them after the file lifetime.
 */
export interface FileStore {
  /** Stores a new file for `accountId` under a fresh unguessable key. */
  put(accountId: string, body: Buffer, contentType: string): Promise<StoredFile>;
  /**
   * Stores a new file whose bytes arrive as a stream (a batch's archive): sent
   * as a multipart upload part by part, never held whole.
   */
  putStream(accountId: string, body: AsyncIterable<Uint8Array>, contentType: string): Promise<StoredFile>;
  /** The file's bytes as a stream, or undefined once it is gone. */
  readStream(key: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** The file's bytes, or undefined once it is gone. */
  read(key: string): Promise<Buffer | undefined>;
  /** A URL anyone holding it can GET the file from, for `expiresInSeconds`. */
  downloadUrl(key: string, expiresInSeconds: number): Promise<string>;
  /** Deletes temporary files stored before `cutoff`; resolves to how many were deleted. */
  deleteOlderThan(cutoff: Date): Promise<number>;
}
