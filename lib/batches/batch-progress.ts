import type { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from '../config.js';
import { uploadToCaller, type SignedUrlStatus } from '../delivery/caller-upload.js';
import type { FileStore, StoredFile } from '../files/file-store.js';
import type { MissingGlyphReport } from '../glyphs/glyph-report.js';
import { temporaryFileUrl } from '../files/temporary-files.js';
import type { BatchItemHooks } from '../job-runner/run-job.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { isFinished, type BatchSummary, type Job, type JobError, type JobStore } from '../jobs/job-store.js';
import { queueFollowingAttempt, queueWebhookAttempt } from '../webhooks/webhook-schedule.js';
import { writeBatchOutputs, type BatchOutputFiles } from './batch-outputs.js';
import type { BatchQueue } from './batch-queue.js';
import type { Batch, BatchItemRecord, BatchKey, BatchStorage, BatchStore } from './batch-store.js';

export type BatchProgressDeps = {
  jobs: JobStore;
  batches: BatchStore;
  batchQueue: BatchQueue;
  /** Where the batch's one webhook is queued (the webhooks queue, as for jobs). */
  queue: JobQueue;
  files: Pick<FileStore, 'put' | 'putStream' | 'read' | 'readStream' | 'downloadUrl'>;
  logger: Logger;
  config: Pick<Config, 'fileLifetimeSeconds' | 'webhookRetryDelaysSeconds' | 'batchCheckSeconds'>;
};

/** What an item of a cancelled batch records instead of rendering (its unit is given back). */
export const CANCELLED_ITEM: JobError = { code: 'batch.cancelled', message: 'The batch was cancelled before this item started.' };

/** The batch an item belongs to; undefined for a job that is no batch's item (never judged by a batch). */
function batchOf(job: Job): BatchKey | undefined {
  return job.batchItem?.batchId ? { accountId: job.accountId, batchId: job.batchItem.batchId } : undefined;
}

/**
 * The batch consumers' part of running an item (`runJob`): an item of a
 * cancelled batch fails without rendering, the first item to start marks the
 * batch RUNNING, and each finished item is counted once; the item whose count
 * leaves none pending closes the batch.
 */
export function batchItemHooks(deps: BatchProgressDeps): BatchItemHooks {
  return {
    async refusal(job) {
      const key = batchOf(job);
      // A job of no batch has no batch to be cancelled with (looking one up by an empty id found none: "cancelled").
      if (!key) return undefined;
      const batch = await deps.batches.get(key);
      if (!batch || batch.cancelled) return CANCELLED_ITEM;
      if (batch.status === 'PENDING') await deps.batches.markStarted(key, Date.now());
      return undefined;
    },
    async finished(job) {
      const key = batchOf(job);
      if (!key) return;
      const counted = await deps.batches.countItem(job, key, job.status === 'COMPLETED' ? 'done' : 'failed', Date.now());
      if (counted && counted.pending <= 0) await closeBatch(key, deps);
    },
  };
}

/**
 * The batch's watchdog (a delayed message on its queue, queued again until
 * the batch is closed): closes a batch whose items have all finished though
 * none closed it (its finisher died between counting and closing, or a count
 * was lost), recounting from the items; on a closed batch, queues its webhook
 * should the closer have died before doing so (a second attempt 1 is harmless:
 * only one consumer can take it).
 */
export async function checkBatch(key: BatchKey, deps: BatchProgressDeps): Promise<void> {
  const batch = await deps.batches.get(key);
  if (!batch) return;
  if (batch.closed) {
    await ensureWebhook(key, deps);
    return;
  }
  if (!(await closeBatch(key, deps))) await deps.batchQueue.sendCheck(key, deps.config.batchCheckSeconds);
}

/**
 * How a closer treats `output`: `queue` (an item's finisher, the watchdog)
 * queues its making on the outputs queue, whose consumer has the time and
 * memory for 10,000 files, and leaves the batch open; `build` (that consumer)
 * makes them, then closes; `give-up` (the dead-letter consumer, once the
 * outputs step kept failing) closes with each output's reason instead.
 */
export type OutputsMode = 'queue' | 'build' | 'give-up';

/**
 * How long an outputs step may take before the watchdog queues another
 * (batch-outputs-build's 900 s timeout, and a minute for its queue): a
 * second step beside a running one would make the same files twice.
 */
export const OUTPUTS_STEP_MS = 960_000;

/**
 * How long a claim on a batch's close lasts: batch-outputs-build's 900 s
 * timeout, the longest any closer runs. A claim older than that belongs to a
 * closer that died (a crash, a timeout): the watchdog's next check takes it.
 */
export const CLOSE_CLAIM_MS = 900_000;

/** What an output records when its step was given up. */
const OUTPUT_GIVEN_UP: JobError = { code: 'batch.output', message: 'The batch output could not be made (its step kept failing).' };

/**
 * Closes the batch once every item has finished: its counts recounted from
 * the items (exact even when a count was lost), the close claimed (one
 * conditional write: whoever loses it, a second finisher, the watchdog or
 * an outputs step run twice, does nothing more), then, once, its outputs
 * made (or queued to be made first: `outputs`), the manifest written, the
 * batch's file uploaded, the end recorded under the claim and its webhook
 * queued. Resolves false while the batch stays open (items unfinished, its
 * outputs queued, or another closer at work), so the watchdog checks again:
 * an outputs step that crashed is queued again by the next check, and a
 * closer that died leaves a claim the next check takes once it is stale
 * (CLOSE_CLAIM_MS). A closer that fails gives its claim back.
 */
export async function closeBatch(key: BatchKey, deps: BatchProgressDeps, outputs: OutputsMode = 'queue', now = Date.now): Promise<boolean> {
  const batch = await deps.batches.get(key);
  if (!batch) return true;
  if (batch.closed) return true;
  const items = await deps.batches.items(key);
  // Fewer items than the total: fan-out steps still to run, or one that failed (its batch cancelled, or its request
  // answered 500). A cancelled batch waits until every step has recorded its items or was given up, so the manifest
  // lists every item recorded; the items never recorded count as failed, so the watchdog does not wait for them
  // until the record expires.
  if ((items.length < batch.total && !(batch.cancelled && batch.fannedOut)) || !items.every(isFinished)) return false;
  if (outputs === 'queue' && (batch.output.zip || batch.output.merge)) {
    if (await deps.batches.claimOutputsStep(key, now(), OUTPUTS_STEP_MS)) await deps.batchQueue.sendOutputs(key);
    return false;
  }
  // The dead-letter consumer gives up on an outputs step that has ended failing: any claim left is that step's.
  const claim = await deps.batches.claimClose(key, now(), outputs === 'give-up' ? 0 : CLOSE_CLAIM_MS);
  if (!claim) return false;
  let closed: Awaited<ReturnType<BatchStore['close']>>;
  let status: BatchSummary['status'];
  try {
    ({ closed, status } = await closeClaimed(key, batch, items, outputs, claim, deps, now));
  } catch (error) {
    await deps.batches.releaseClose(key, claim).catch(() => undefined);
    throw error;
  }
  if (!closed) return true;
  deps.logger.info('batch closed', { batchId: key.batchId, status, total: batch.total, done: closed.done, failed: closed.failed });
  if (closed.webhook) await queueWebhookAttempt(deps.queue, { accountId: key.accountId, jobId: key.batchId }, 1, deps.config.webhookRetryDelaysSeconds);
  return true;
}

/** The work of a close, done once under its claim: the outputs, the manifest, the upload, then the end recorded. */
async function closeClaimed(
  key: BatchKey,
  batch: Batch,
  items: BatchItemRecord[],
  outputs: OutputsMode,
  claim: string,
  deps: BatchProgressDeps,
  now: () => number,
): Promise<{ closed: Batch | undefined; status: BatchSummary['status'] }> {
  items.sort((a, b) => a.batchItem.index - b.batchItem.index);
  const done = items.filter((item) => item.status === 'COMPLETED').length;
  const failed = batch.total - done;
  const status: BatchSummary['status'] = batch.cancelled ? 'CANCELLED' : done === 0 ? 'FAILED' : failed > 0 ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED';
  // The batch-wide files come first, so the manifest, the batch's answer and its webhook can give their URLs.
  const made: BatchOutputFiles =
    outputs === 'give-up'
      ? { ...(batch.output.zip ? { zip: { error: OUTPUT_GIVEN_UP } } : {}), ...(batch.output.merge ? { merged: { error: OUTPUT_GIVEN_UP } } : {}) }
      : await writeBatchOutputs(key, batch.output, items, deps);
  const completedAt = new Date(now()).toISOString();
  const manifest = await writeManifest(key, { status, total: batch.total, done, failed, createdAt: batch.createdAt, completedAt }, items, made, deps);
  const zip = made.zip && 'file' in made.zip ? made.zip.file : undefined;
  const merged = made.merged && 'file' in made.merged ? made.merged.file : undefined;
  // Before the close (a closer that dies after its upload leaves a claim that goes stale, and the next uploads the file again).
  const signedUrlStatus = batch.storage ? await uploadBatchFile(key, batch.storage, zip ?? merged ?? manifest, deps) : 'NOT_PROVIDED';
  const closed = await deps.batches.close(
    key,
    { status, total: batch.total, done, failed, manifest, ...(zip ? { zip } : {}), ...(merged ? { merged } : {}), signedUrlStatus },
    now(),
    claim,
  );
  return { closed, status };
}

/** Queues a closed batch's first webhook attempt unless one was made or is under way. */
async function ensureWebhook(key: BatchKey, deps: BatchProgressDeps): Promise<void> {
  const record = await deps.jobs.get({ accountId: key.accountId, jobId: key.batchId });
  if (record?.webhook) await queueFollowingAttempt(deps.queue, record, 0, deps.config.webhookRetryDelaysSeconds, Date.now());
}

/** One entry of the manifest: the item's name, how it ended, and its file (a URL valid for the rest of its lifetime) or reason. */
export type ManifestEntry = {
  index: number;
  name: string;
  status: 'COMPLETED' | 'FAILED';
  metadata: Record<string, string>;
  fileUrl?: string | null;
  contentType?: string;
  fileSize?: number;
  /** Characters the item's file draws with no glyph (issue 46), as its job reports them: present only when there are any. */
  missingGlyphs?: MissingGlyphReport;
  /** What the item cost (issue 47), as its job records it: a PDF's pages, the render's milliseconds. */
  pageCount?: number;
  renderMs?: number;
  error?: JobError;
};

const renderTime = (item: BatchItemRecord) => (item.renderMs !== undefined ? { renderMs: item.renderMs } : {});

/** How long the PUT of a batch's file to the caller's URL may take: an archive can be gigabytes (the outputs step has 900 s). */
const BATCH_UPLOAD_MS = 300_000;

/**
 * `storage`: the batch's one file (its archive, else its merged PDF, else its
 * manifest) PUT to the caller's pre-signed URL as it is read from the bucket,
 * as a sync render's file is. A failure is recorded, never thrown: the
 * temporary copies still hold everything.
 */
async function uploadBatchFile(key: BatchKey, storage: BatchStorage, file: StoredFile, deps: BatchProgressDeps): Promise<SignedUrlStatus> {
  const stream = await deps.files.readStream(file.key);
  if (!stream) return 'FAILED';
  const upload = await uploadToCaller(storage, { body: { stream, length: file.size }, contentType: file.contentType }, { timeoutMs: BATCH_UPLOAD_MS, maxTimeoutMs: BATCH_UPLOAD_MS }).finally(
    // A call refused before it was made leaves the bucket's answer unread: its connection is let go.
    () => (stream as { destroy?: () => void }).destroy?.(),
  );
  // The reason only: the URL carries the caller's credentials.
  if (upload.status === 'FAILED') deps.logger.warn('batch file upload failed', { batchId: key.batchId, reason: upload.result?.error });
  return upload.status;
}

/**
 * The results manifest as a JSON file among the temporary files: one entry
 * per item in the items' order. It lives in S3, not in the batch's record or
 * the API's answers, because 10,000 entries with their URLs are megabytes.
 */
async function writeManifest(
  key: BatchKey,
  head: { status: BatchSummary['status']; total: number; done: number; failed: number; createdAt: string; completedAt: string },
  items: BatchItemRecord[],
  outputs: BatchOutputFiles,
  deps: BatchProgressDeps,
): Promise<StoredFile> {
  const entries: ManifestEntry[] = [];
  for (const item of items) {
    const base = { index: item.batchItem.index, name: item.batchItem.name, metadata: item.batchItem.metadata ?? {} };
    if (item.status === 'COMPLETED' && item.file) {
      const fileUrl = (await temporaryFileUrl(deps.files, item.file, deps.config.fileLifetimeSeconds)) ?? null;
      const report = item.missingGlyphs ? { missingGlyphs: item.missingGlyphs } : {};
      const pages = item.pageCount !== undefined ? { pageCount: item.pageCount } : {};
      entries.push({ ...base, status: 'COMPLETED', fileUrl, contentType: item.file.contentType, fileSize: item.file.size, ...report, ...pages, ...renderTime(item) });
    } else {
      entries.push({ ...base, status: 'FAILED', ...renderTime(item), ...(item.error ? { error: item.error } : {}) });
    }
  }
  // An output made without some items (their files had expired) names them and why.
  const output = async (made: BatchOutputFiles['zip']) =>
    made && 'file' in made
      ? {
          fileUrl: (await temporaryFileUrl(deps.files, made.file, deps.config.fileLifetimeSeconds)) ?? null,
          fileSize: made.file.size,
          ...(made.leftOut.length > 0 ? { leftOut: made.leftOut } : {}),
        }
      : made;
  const zip = await output(outputs.zip);
  const merged = await output(outputs.merged);
  const body = Buffer.from(JSON.stringify({ id: key.batchId, ...head, ...(zip ? { zip } : {}), ...(merged ? { merged } : {}), items: entries }));
  return deps.files.put(key.accountId, body, 'application/json');
}
