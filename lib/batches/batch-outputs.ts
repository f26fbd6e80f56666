import type { Logger } from '@aws-lambda-powertools/logger';
import type { FileStore, StoredFile } from '../files/file-store.js';
import { safeEntryName, zipStream, type ZipEntry } from '../files/zip-stream.js';
import { documentBudget } from '../budget/document-budget.js';
import { assembleParts, type AssemblyPart } from '../finishing/steps/assemble/assemble.js';
import type { JobError } from '../jobs/job-store.js';
import type { BatchItemRecord, BatchKey, BatchOutput } from './batch-store.js';

/** How long the merged PDF of a batch may take to assemble: batch-outputs-build's 900 s, less a minute to store it. */
const MERGE_BUDGET_MS = 840_000;

/** An item a batch-wide file was made without (its file had expired or was gone), and why: the manifest lists them. */
export type LeftOutItem = { index: number; name: string; error: JobError };

/** A batch-wide file as made: the file, and the items it was made without. */
export type BatchOutputFile = { file: StoredFile; leftOut: LeftOutItem[] };

/** The batch-wide files (`output.zip`, `output.merge`), each stored or, should it fail, its reason. */
export type BatchOutputFiles = {
  zip?: BatchOutputFile | { error: JobError };
  merged?: BatchOutputFile | { error: JobError };
};

/**
 * Bounds of the merged PDF, built in memory by batch-outputs-build (3,008
 * MB): pdf-lib holds every copied page's objects (their streams as stored)
 * and then the saved bytes beside them, so the memory is about twice the
 * parts' bytes plus some 0.05 MB a page (docs/batches.md). Beyond either, the
 * merged PDF is not made and the manifest says why; the archive still is.
 */
export const MAX_MERGED_PAGES = 20_000;
export const MAX_MERGED_BYTES = 512 * 1024 * 1024;

type OutputLimits = { mergedPages: number; mergedBytes: number };

type OutputDeps = { files: Pick<FileStore, 'put' | 'putStream' | 'read' | 'readStream'>; logger: Logger; limits?: OutputLimits };

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Items' files fetched ahead of the one being written: S3's latency overlaps, memory stays a few files' worth. */
const READ_AHEAD = 4;

/** What an item left out of a batch-wide file records: its file was no longer in storage. */
const FILE_GONE: JobError = { code: 'batch.item_file_expired', message: "This item's file had expired (or was gone) when the batch's outputs were made, so they were made without it." };

/**
 * `start(item)` for each item in order, at most `ahead` started before the
 * one being consumed; yields their results in order. A rejection surfaces
 * when its turn comes (caught meanwhile, so it is never unhandled). However
 * the walk ends (the consumer stops on a failure or an abort, a start
 * rejects), every result not consumed, the one in hand included, goes to
 * `release` once it arrives: an S3 stream opened ahead holds a connection
 * until it is destroyed.
 */
async function* readAhead<T, R>(items: T[], start: (item: T) => Promise<R>, release: (result: R) => void = () => undefined, ahead = READ_AHEAD): AsyncGenerator<[T, R]> {
  const started: Array<Promise<R> | undefined> = [];
  // started[unconsumed…] are not yet done with (the one in hand, those ahead): what the walk lets go should it end here.
  let unconsumed = 0;
  try {
    for (let i = 0; i < items.length; i++) {
      while (started.length < i + ahead && started.length < items.length) {
        const loading = start(items[started.length]!);
        loading.catch(() => undefined);
        started.push(loading);
      }
      const result = await started[i]!;
      yield [items[i]!, result];
      started[i] = undefined;
      unconsumed = i + 1;
    }
  } finally {
    for (const loading of started.slice(unconsumed)) loading?.then(release, () => undefined);
  }
}

/** Lets go of an item's stream not read to its end: an S3 body is destroyed (its connection freed), another iterator returned. */
function letGo(body: AsyncIterable<Uint8Array> | undefined): void {
  if (!body) return;
  const stream = body as { destroy?: () => void };
  if (typeof stream.destroy === 'function') stream.destroy();
  else void body[Symbol.asyncIterator]().return?.().catch(() => undefined);
}

/**
 * An item's name in the archive: its `name` (its index when it had none)
 * with its file's extension unless it ends so already, made safe for every
 * extractor (safeEntryName: a name recorded before the schema refused
 * unsafe ones, a Windows device name).
 */
export function archiveName(item: BatchItemRecord): string {
  const extension = EXTENSIONS[item.file?.contentType ?? ''] ?? 'bin';
  return safeEntryName(item.batchItem.name.toLowerCase().endsWith(`.${extension}`) ? item.batchItem.name : `${item.batchItem.name}.${extension}`);
}

/**
 * The batch's archive: every completed item's file, in the items' order,
 * read from storage one at a time and streamed into a multipart upload; no
 * file is held whole. Two items whose names differ only by an extension the
 * other carries (`a` and `a.pdf`) keep distinct names with their index. An
 * item whose file has expired is left out (and named in `leftOut`), not the
 * archive failed.
 */
async function writeZip(key: BatchKey, items: BatchItemRecord[], deps: OutputDeps): Promise<BatchOutputFile> {
  const used = new Set<string>();
  const leftOut: LeftOutItem[] = [];
  async function* entries(): AsyncGenerator<ZipEntry> {
    // Each file's stream opened a few items ahead; its bytes flow only when the archive reaches it.
    for await (const [item, body] of readAhead(items, (entry) => deps.files.readStream(entry.file!.key), letGo)) {
      if (!body) {
        leftOut.push({ index: item.batchItem.index, name: item.batchItem.name, error: FILE_GONE });
        continue;
      }
      let name = archiveName(item);
      if (used.has(name)) name = `${item.batchItem.index}-${name}`;
      used.add(name);
      yield { name, open: async () => body };
    }
  }
  const file = await deps.files.putStream(key.accountId, zipStream(entries()), 'application/zip');
  return { file, leftOut };
}

/** The merged PDF would pass MAX_MERGED_PAGES or MAX_MERGED_BYTES: it is not made. */
class MergedTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergedTooLargeError';
  }
}

/**
 * The batch's merged PDF: every completed PDF item in order, one outline
 * entry per item titled by its name, through the merge endpoint's assembly.
 * Each item's PDF is read when its turn comes and let go once its pages are
 * copied: the merged document grows, the parts are never all held at once.
 * Its pages and bytes are bounded (OutputLimits): the recorded sizes are
 * checked before anything is read, then the bytes read and the pages copied
 * as they come. An item whose file has expired is left out.
 */
async function writeMerged(key: BatchKey, items: BatchItemRecord[], deps: OutputDeps): Promise<BatchOutputFile> {
  const limits = deps.limits ?? { mergedPages: MAX_MERGED_PAGES, mergedBytes: MAX_MERGED_BYTES };
  const tooManyBytes = () => new MergedTooLargeError(`The merged PDF would pass ${limits.mergedBytes / 1024 / 1024} MB (its items' files together); download the items' files from the manifest instead`);
  if (items.reduce((sum, item) => sum + (item.file?.size ?? 0), 0) > limits.mergedBytes) throw tooManyBytes();
  const leftOut: LeftOutItem[] = [];
  let bytes = 0;
  let pages = 0;
  let merging = 0;
  async function* parts(): AsyncGenerator<AssemblyPart> {
    for await (const [item, pdf] of readAhead(items, (entry) => deps.files.read(entry.file!.key))) {
      if (!pdf) {
        leftOut.push({ index: item.batchItem.index, name: item.batchItem.name, error: FILE_GONE });
        continue;
      }
      bytes += pdf.length;
      if (bytes > limits.mergedBytes) throw tooManyBytes();
      merging += 1;
      yield { pdf, title: item.batchItem.name };
    }
  }
  const countPages = (added: number) => {
    pages += added;
    if (pages > limits.mergedPages) throw new MergedTooLargeError(`The merged PDF would pass ${limits.mergedPages} pages; download the items' files from the manifest instead`);
  };
  // The merged file is made within its function's 900 s (serverless.yml, batch-outputs-build), less what writing it takes.
  const merged = await assembleParts(parts(), false, documentBudget({ at: Date.now() + MERGE_BUDGET_MS, budgetMs: MERGE_BUDGET_MS }), countPages);
  if (merging === 0) throw new Error("Every PDF item's file had expired: nothing to merge");
  const file = await deps.files.put(key.accountId, Buffer.from(merged.buffer, merged.byteOffset, merged.byteLength), 'application/pdf');
  return { file, leftOut };
}

/**
 * A batch-wide file that could not be made: the batch still closes, its
 * manifest says why (the items' own files are there): past a bound, the
 * bound; otherwise that it failed (the cause is logged, not shown).
 */
function outputError(what: 'zip' | 'merge', key: BatchKey, error: unknown, logger: Logger): { error: JobError } {
  if (error instanceof MergedTooLargeError) return { error: { code: 'batch.merge_too_large', message: error.message } };
  logger.error(`batch ${what} failed`, { batchId: key.batchId, error: error instanceof Error ? error.message : String(error) });
  return { error: { code: `batch.${what}`, message: `The batch's ${what === 'zip' ? 'archive' : 'merged PDF'} could not be made` } };
}

/**
 * Makes what `output` asks beside the items' own files, from the completed
 * items in order: the archive (`zip`) of all of them, the merged PDF
 * (`merge`) of the PDF ones. None completed (or no PDF one) → no such file.
 */
export async function writeBatchOutputs(key: BatchKey, output: BatchOutput, items: BatchItemRecord[], deps: OutputDeps): Promise<BatchOutputFiles> {
  const completed = items.filter((item) => item.status === 'COMPLETED' && item.file);
  const pdfs = completed.filter((item) => item.file?.contentType === 'application/pdf');
  const files: BatchOutputFiles = {};
  if (output.zip && completed.length > 0) {
    files.zip = await writeZip(key, completed, deps).catch((error: unknown) => outputError('zip', key, error, deps.logger));
  }
  if (output.merge && pdfs.length > 0) {
    files.merged = await writeMerged(key, pdfs, deps).catch((error: unknown) => outputError('merge', key, error, deps.logger));
  }
  return files;
}
