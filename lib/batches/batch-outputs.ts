import type { Logger } from '@aws-lambda-powertools/logger';
import type { FileStore, StoredFile } from '../files/file-store.js';
import { safeEntryName, zipStream, type ZipEntry } from '../files/zip-stream.js';
import { assembleParts, type AssemblyPart } from '../finishing/assemble.js';
import type { JobError } from '../jobs/job-store.js';
import type { BatchItemRecord, BatchKey, BatchOutput } from './batch-store.js';

/** The batch-wide files (`output.zip`, `output.merge`), each stored or, should it fail, its reason. */
export type BatchOutputFiles = {
  zip?: { file: StoredFile } | { error: JobError };
  merged?: { file: StoredFile } | { error: JobError };
};

type OutputDeps = { files: Pick<FileStore, 'put' | 'putStream' | 'read' | 'readStream'>; logger: Logger };

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Items' files fetched ahead of the one being written: S3's latency overlaps, memory stays a few files' worth. */
const READ_AHEAD = 4;

/**
 * `start(item)` for each item in order, at most `ahead` started before the
 * one being consumed; yields their results in order. A rejection surfaces
 * when its turn comes (caught meanwhile, so it is never unhandled).
 */
async function* readAhead<T, R>(items: T[], start: (item: T) => Promise<R>, ahead = READ_AHEAD): AsyncGenerator<[T, R]> {
  const started: Promise<R>[] = [];
  for (let i = 0; i < items.length; i++) {
    while (started.length < i + ahead && started.length < items.length) {
      const loading = start(items[started.length]!);
      loading.catch(() => undefined);
      started.push(loading);
    }
    yield [items[i]!, await started[i]!];
    delete started[i];
  }
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
 * other carries (`a` and `a.pdf`) keep distinct names with their index.
 */
async function writeZip(key: BatchKey, items: BatchItemRecord[], deps: OutputDeps): Promise<StoredFile> {
  const used = new Set<string>();
  async function* entries(): AsyncGenerator<ZipEntry> {
    // Each file's stream opened a few items ahead; its bytes flow only when the archive reaches it.
    for await (const [item, body] of readAhead(items, (entry) => deps.files.readStream(entry.file!.key))) {
      if (!body) throw new Error(`Item ${item.batchItem.index}'s file has expired`);
      let name = archiveName(item);
      if (used.has(name)) name = `${item.batchItem.index}-${name}`;
      used.add(name);
      yield { name, open: async () => body };
    }
  }
  return deps.files.putStream(key.accountId, zipStream(entries()), 'application/zip');
}

/**
 * The batch's merged PDF: every completed PDF item in order, one outline
 * entry per item titled by its name, through the merge endpoint's assembly.
 * Each item's PDF is read when its turn comes and let go once its pages are
 * copied: the merged document grows, the parts are never all held at once.
 */
async function writeMerged(key: BatchKey, items: BatchItemRecord[], deps: OutputDeps): Promise<StoredFile> {
  async function* parts(): AsyncGenerator<AssemblyPart> {
    for await (const [item, pdf] of readAhead(items, (entry) => deps.files.read(entry.file!.key))) {
      if (!pdf) throw new Error(`Item ${item.batchItem.index}'s file has expired`);
      yield { pdf, title: item.batchItem.name };
    }
  }
  const merged = await assembleParts(parts(), false);
  return deps.files.put(key.accountId, Buffer.from(merged.buffer, merged.byteOffset, merged.byteLength), 'application/pdf');
}

/** A batch-wide file that could not be made: the batch still closes, its manifest says why (the items' own files are there). */
function outputError(what: string, key: BatchKey, error: unknown, logger: Logger): { error: JobError } {
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
    files.zip = await writeZip(key, completed, deps).then((file) => ({ file }), (error: unknown) => outputError('zip', key, error, deps.logger));
  }
  if (output.merge && pdfs.length > 0) {
    files.merged = await writeMerged(key, pdfs, deps).then((file) => ({ file }), (error: unknown) => outputError('merge', key, error, deps.logger));
  }
  return files;
}
