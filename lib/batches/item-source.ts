import { DocumentFetchError } from '../delivery/errors.js';
import { fetchDocument } from '../delivery/fetch-document.js';
import { ValidationError } from '../errors.js';
import { callerUpload, type CallerUploadDeps } from '../files/caller-uploads.js';
import { MAX_ITEMS_FILE_BYTES, type BatchItemEntryOutput } from '../schemas/batch-requests.js';
import { readItemLines } from './item-lines.js';

/** How long fetching an https `itemsUrl` may take: the POST has 29 s in all behind API Gateway. */
export const ITEMS_FETCH_TIMEOUT_MS = 10_000;

export type ItemSourceDeps = CallerUploadDeps;

/**
 * The entries of a batch given as `itemsUrl`, every line checked
 * (readItemLines). An http(s) URL is fetched as documentUrl is (the egress
 * policy, no redirects, at most MAX_ITEMS_FILE_BYTES, ITEMS_FETCH_TIMEOUT_MS).
 * An `s3://` key is read only when it is in the service's files bucket under
 * `uploads/<the caller's account id>/`: never another account's uploads,
 * rendered files or the service's own objects (templates, job inputs), and
 * the same answer whether such a key exists or not. Problems are a 400 on
 * `itemsUrl` (the URL itself is never echoed: it may carry credentials).
 */
export async function readItemsUrl(itemsUrl: string, accountId: string, deps: ItemSourceDeps): Promise<BatchItemEntryOutput[]> {
  if (/^s3:/iu.test(itemsUrl)) return readItemLines(bounded(await callerUpload(itemsUrl, accountId, deps, 'itemsUrl')));
  let body: Buffer;
  try {
    body = await fetchDocument(itemsUrl, { maxBytes: MAX_ITEMS_FILE_BYTES, timeoutMs: ITEMS_FETCH_TIMEOUT_MS, accept: 'application/jsonl, application/x-ndjson, */*' });
  } catch (error) {
    if (error instanceof DocumentFetchError) throw new ValidationError({ itemsUrl: error.message }, { message: 'The items could not be fetched', cause: error });
    throw error;
  }
  return readItemLines((async function* () {
    yield body;
  })());
}

/** `chunks`, refused past MAX_ITEMS_FILE_BYTES. */
async function* bounded(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.length;
    if (read > MAX_ITEMS_FILE_BYTES) throw new ValidationError({ itemsUrl: `Must be at most ${MAX_ITEMS_FILE_BYTES / 1024 / 1024} MB` });
    yield chunk;
  }
}
