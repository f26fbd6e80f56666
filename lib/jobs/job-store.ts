import type { SignedUrlStatus } from '../delivery/caller-upload.js';
import type { StoredFile } from '../files/file-store.js';
import type { StoredCompanions } from '../files/companion-files.js';
import type { QuotaSpend } from '../quota/quota.js';
import type { MissingGlyphReport } from '../glyphs/glyph-report.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import type { StorageOptionsOutput, WebhookOptionsOutput } from '../schemas/render-options.js';

/** decisions.md: PENDING (queued) → RUNNING (a consumer took it) → COMPLETED or FAILED. */
export type JobStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

/**
 * Where the job's webhook stands: PENDING until the first attempt is
 * recorded, RETRYING after a failed attempt with more to come, then
 * DELIVERED (a 2xx answer) or FAILED (every attempt failed).
 */
export type WebhookStatus = 'PENDING' | 'RETRYING' | 'DELIVERED' | 'FAILED';

/** Why a job failed, in terms the caller can act on (the shape of the API's error bodies). */
export type JobError = {
  message: string;
  code: string;
  fields?: Record<string, string>;
};

/** One call of the webhook, as recorded on the job. */
export type WebhookAttempt = {
  attempt: number;
  /** ISO 8601 start of the call. */
  at: string;
  durationMs: number;
  statusCode?: number;
  /** Why it failed; absent on success. */
  error?: string;
};

/** A claim on a job or on one webhook attempt: who holds it and until when (epoch ms). */
export type Lease = { runId: string; until: number };

export type JobKey = { accountId: string; jobId: string };

/** Where a batch item belongs (POST /v1/batches): its batch, its place in the items, the file's name and the caller's metadata. */
export type BatchItemRef = { batchId: string; index: number; name: string; metadata?: Record<string, string> };

/** How a batch ended, as its webhook reports it: written once, when the batch closes. */
export type BatchSummary = {
  status: 'COMPLETED' | 'COMPLETED_WITH_ERRORS' | 'FAILED' | 'CANCELLED';
  total: number;
  done: number;
  failed: number;
  /** The results manifest (JSON), a temporary file like the items' own. */
  manifest: StoredFile;
  /** The archive of the items' files (`output.zip`), when made. */
  zip?: StoredFile;
  /** The PDF items merged (`output.merge`), when made. */
  merged?: StoredFile;
  /** How the PUT of the batch's one file to `storage.preSignedUrl` went (NOT_PROVIDED without `storage`). */
  signedUrlStatus?: SignedUrlStatus;
};

/** An async render job. Every field the consumers and the job endpoint need lives here. */
export type Job = JobKey & {
  /** Hash of the token that queued it: the webhook is signed with that token's secret. */
  tokenHash: string;
  /** The quota unit the request spent, given back if the job fails for a reason other than the page. */
  spend?: QuotaSpend;
  status: JobStatus;
  output: DocumentInput['output'];
  createdAt: string;
  updatedAt: string;
  /** When it became COMPLETED or FAILED. */
  completedAt?: string;
  /** Epoch seconds after which DynamoDB may delete the record (TTL). */
  expiresAt: number;
  /** What to render; absent once read back from a record that keeps it elsewhere (see JobStore.loadInput). */
  input?: DocumentInput;
  storage?: StorageOptionsOutput | null;
  /** Null on a batch item (its batch has the webhook) and on a batch without one. */
  webhook: WebhookOptionsOutput | null;
  /** How many times a consumer took the job. */
  runs: number;
  /** The consumer currently holding the job (RUNNING only). */
  lease?: Lease;
  file?: StoredFile;
  /** Images stored beside the file (issue 34): each page's when the file is their ZIP, a PDF's preview. */
  companions?: StoredCompanions;
  signedUrlStatus?: SignedUrlStatus;
  /** Characters the file draws with no glyph (issue 46), when it has any: the job endpoint and webhook report them. */
  missingGlyphs?: MissingGlyphReport;
  /** The last run's cost (RunCost), once the job has ended. */
  pageCount?: number;
  renderMs?: number;
  error?: JobError;
  webhookStatus: WebhookStatus;
  /** Webhook attempts started so far. */
  webhookAttempts: number;
  /** The consumer currently making a webhook attempt. */
  webhookLease?: Lease;
  webhookLog: WebhookAttempt[];
  /** On a batch's item: which batch, and where in it. The item has no webhook of its own; its batch has one. */
  batchItem?: BatchItemRef;
  /** On a closed batch's record (kept beside its items): what its one webhook reports. */
  batch?: BatchSummary;
};

/** How a run ended: the outcome recorded on the job. */
export type RunOutcome =
  | ({ status: 'COMPLETED'; file: StoredFile; companions?: StoredCompanions; signedUrlStatus: SignedUrlStatus; missingGlyphs?: MissingGlyphReport } & RunCost)
  | ({ status: 'FAILED'; error: JobError } & RunCost);

/**
 * What a run cost (issue 47): the PDF's pages (absent for images, or where
 * they could not be read; on a run out of time in the finishing, the pages
 * printed) and the milliseconds from taking the job to the file ready to
 * store, or to the failure; the file's bytes are its `size`.
 */
export type RunCost = { pageCount?: number; renderMs?: number };

/**
 * Port: where jobs live. Every change of state is a conditional write, so
 * that consumers racing on the same job (a duplicated or redelivered queue
 * message) cannot both take it, finish it or call its webhook. A change that
 * did not happen, because the job was not in the state it requires, is told
 * in one of two ways: the three that take a job (`claimRun`,
 * `failUnfinished`, `claimWebhookAttempt`) reject with a JobConflictError
 * carrying the job as it stood, since their callers act on it; the others
 * resolve to undefined or false.
 */
export interface JobStore {
  /** Records a new PENDING job; its input may be kept outside the record when large. */
  create(job: Job): Promise<void>;
  /** As `create`, resolving false instead when a job with that id exists (a batch's fan-out done again). */
  createIfAbsent(job: Job): Promise<boolean>;
  /** The job, or undefined when this account has no job with that id (or it expired). */
  get(key: JobKey): Promise<Job | undefined>;
  /** The job's render input, wherever it is kept. */
  loadInput(job: Job): Promise<DocumentInput>;
  /** Deletes a job that was never queued. */
  remove(key: JobKey): Promise<void>;
  /** PENDING, or RUNNING under an expired lease → RUNNING under `lease`. Resolves to the job as claimed; else JobConflictError. */
  claimRun(key: JobKey, lease: Lease, now: number): Promise<Job>;
  /** RUNNING under `runId` → the same, its lease held until `until` (the run's heartbeat). Resolves false when the run no longer holds it. */
  renewRun(key: JobKey, runId: string, until: number, now: number): Promise<boolean>;
  /** RUNNING under `runId` → PENDING, so that the next delivery of the message can run it again. */
  releaseRun(key: JobKey, runId: string, now: number): Promise<boolean>;
  /** RUNNING under `runId` → COMPLETED or FAILED. Resolves to the finished job. */
  finishRun(key: JobKey, runId: string, outcome: RunOutcome, now: number): Promise<Job | undefined>;
  /** PENDING, or RUNNING under an expired lease → FAILED (the job's message was given up on); else JobConflictError. */
  failUnfinished(key: JobKey, error: JobError, now: number): Promise<Job>;
  /**
   * Takes webhook attempt `attempt` of a finished job: the previous attempt
   * is recorded and failed (or `attempt` is 1), no attempt is under way, and
   * the webhook is neither DELIVERED nor FAILED; or `attempt` was taken by a
   * consumer whose lease expired before it recorded the result. Else JobConflictError.
   */
  claimWebhookAttempt(key: JobKey, attempt: number, lease: Lease, now: number): Promise<Job>;
  /** Records how attempt `attempt` (held under `runId`) went and the webhook's new status. */
  recordWebhookAttempt(
    key: JobKey,
    attempt: number,
    runId: string,
    record: { status: WebhookStatus; entry: WebhookAttempt },
    now: number,
  ): Promise<boolean>;
}

/**
 * What happened to the caller's upload: a failed job never attempted one,
 * which for a caller who asked for it means the file is not there (FAILED).
 */
export function signedUrlStatusOf(job: Pick<Job, 'signedUrlStatus' | 'storage'>): SignedUrlStatus {
  return job.signedUrlStatus ?? (job.storage ? 'FAILED' : 'NOT_PROVIDED');
}

/** Whether a job has reached its end (COMPLETED or FAILED). */
export function isFinished(job: Pick<Job, 'status'>): boolean {
  return job.status === 'COMPLETED' || job.status === 'FAILED';
}

/** Whether someone else holds `lease` at `now`. */
export function isLive(lease: Lease | undefined, now: number): boolean {
  return lease !== undefined && lease.until >= now;
}
