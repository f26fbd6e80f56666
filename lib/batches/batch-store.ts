import type { SignedUrlStatus } from '../delivery/caller-upload.js';
import type { StoredFile } from '../files/file-store.js';
import type { BatchItemRef, BatchSummary, Job, JobKey, WebhookStatus } from '../jobs/job-store.js';
import type { WebhookOptionsOutput } from '../schemas/render-options.js';

/** GET /v1/batches/{id}'s status: PENDING (queued) → RUNNING (an item started) → how it ended. */
export type BatchStatus = 'PENDING' | 'RUNNING' | BatchSummary['status'];

export type BatchKey = { accountId: string; batchId: string };

/** `storage`: where the batch's one file is PUT once it has ended. */
export type BatchStorage = { preSignedUrl: string };

/** `output`: the batch-wide files made when it closes, beside the items' own. */
export type BatchOutput = { zip: boolean; merge: boolean };

/** A batch: its counts, kept exact by conditional writes, and once closed its summary and manifest. */
export type Batch = BatchKey & {
  tokenHash: string;
  status: BatchStatus;
  total: number;
  /** Items finished with a file. */
  done: number;
  /** Items finished without one (their reason in the manifest). */
  failed: number;
  /** DELETE asked: items not started fail as `batch.cancelled` instead of rendering. */
  cancelled: boolean;
  /** The end was recorded (once): status, counts and manifest are final. */
  closed: boolean;
  /**
   * Every fan-out step has recorded its items, or was given up: no item
   * record is still to come. A cancelled batch closes with fewer records than
   * its total only then, so its manifest lists every item that was recorded.
   */
  fannedOut: boolean;
  manifest?: StoredFile;
  /** Once closed: the archive and the merged PDF, when `output` asked and they were made. */
  zip?: StoredFile;
  merged?: StoredFile;
  /** Once closed, with `storage`: how the PUT of its one file went. */
  signedUrlStatus?: SignedUrlStatus;
  output: BatchOutput;
  /** `storage`: the caller's pre-signed URL, which gets the batch's one file once it has ended. */
  storage: BatchStorage | null;
  webhook: WebhookOptionsOutput | null;
  webhookStatus: WebhookStatus;
  webhookAttempts: number;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
};

/** A batch as recorded when accepted. */
export type NewBatch = BatchKey & {
  tokenHash: string;
  total: number;
  output: BatchOutput;
  storage: BatchStorage | null;
  webhook: WebhookOptionsOutput | null;
  createdAt: string;
  /** How many fan-out steps (chunks of planned items) record its items. */
  fanOutChunks: number;
  /** Epoch seconds after which DynamoDB may delete the record (TTL), as for jobs. */
  expiresAt: number;
};

/** What the manifest needs of an item, as its job record holds it. */
export type BatchItemRecord = Pick<Job, 'jobId' | 'status' | 'file' | 'error' | 'missingGlyphs' | 'pageCount' | 'renderMs'> & { batchItem: BatchItemRef };

/**
 * Port: where batches live, beside their items (each item is an async job of
 * the job store whose id is `<batchId>.<index>`). Counting rests on two
 * conditional writes per item: the item is marked counted once, then the
 * batch's counters move by one; the batch closes once. A count lost between
 * the two (a crash) is found by `items` and `close`, which recount.
 */
export interface BatchStore {
  /** Records a new PENDING batch with `total` items pending. */
  create(batch: NewBatch): Promise<void>;
  /** The batch, or undefined when this account has none with that id. */
  get(key: BatchKey): Promise<Batch | undefined>;
  /** PENDING → RUNNING; nothing when it is past that. */
  markStarted(key: BatchKey, now: number): Promise<void>;
  /** Records that fan-out step `chunk` has recorded its items (or was given up); done again, it changes nothing. */
  markFannedOut(key: BatchKey, chunk: number): Promise<void>;
  /** Marks an open batch cancelled (status CANCELLED); resolves to the batch as it stands after, undefined when there is none. */
  cancel(key: BatchKey, now: number): Promise<Batch | undefined>;
  /**
   * Counts a finished item once: marks the item counted, then moves the
   * batch's counters (done or failed up, pending down). Resolves to the
   * batch's counters after this count, or undefined when the item was
   * counted before or the batch is closed.
   */
  countItem(item: JobKey, batch: BatchKey, outcome: 'done' | 'failed', now: number): Promise<{ pending: number } | undefined>;
  /**
   * Claims the queuing of the batch's outputs step: resolves true when no
   * step was queued for it since `now - staleMs` (and records `now`), false
   * otherwise, so that the watchdog queues a step again only once the last
   * one has had its time (a crashed builder), never beside a running one.
   */
  claimOutputsStep(key: BatchKey, now: number, staleMs: number): Promise<boolean>;
  /** Every item's record, in no particular order. */
  items(key: BatchKey): Promise<BatchItemRecord[]>;
  /**
   * Claims the closing of an open batch: resolves to a claim (records it)
   * when no other claim was made since `now - staleMs`, undefined otherwise.
   * Whoever holds it makes the outputs, the manifest and the upload, once;
   * a claim gone stale is a closer that died, and the next may take it.
   */
  claimClose(key: BatchKey, now: number, staleMs: number): Promise<string | undefined>;
  /** Gives a claim back (its closer failed), so that the next check may close at once; nothing when it is not the current one. */
  releaseClose(key: BatchKey, claim: string): Promise<void>;
  /**
   * Records the end, once, under `claim`: open → closed with `summary`.
   * Resolves to the closed batch, or undefined when it was closed already or
   * the claim is no longer the current one.
   */
  close(key: BatchKey, summary: BatchSummary, now: number, claim: string): Promise<Batch | undefined>;
}
