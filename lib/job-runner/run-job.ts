import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from '../config.js';
import { uploadToCaller } from '../delivery/caller-upload.js';
import { OUTBOUND_TIMEOUT_MS } from '../delivery/outbound-http.js';
import type { FileStore } from '../files/file-store.js';
import { storeCompanions } from '../files/companion-files.js';
import { recordJobRender, renderOutcomeOf } from '../observability/metrics.js';
import { refundQuota } from '../quota/quota.js';
import type { UsageStore } from '../quota/usage-store.js';
import { buildDocumentPlan } from '../plan/build-plan.js';
import { accountFonts } from '../fonts/user-fonts/account-fonts.js';
import { withAccountFonts } from '../plan/with-account-fonts.js';
import type { FontStore } from '../fonts/user-fonts/font-store.js';
import { templatesFor } from '../templates/template-engine.js';
import { withTemplateData } from '../templates/template-data-source.js';
import { renderForRequest } from '../plan/request-errors.js';
import type { DocumentRenderer } from '../render/types.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import { parseMergedOptions } from '../schemas/render-requests.js';
import { RECORD_MARGIN_MS, type ConsumerClock } from '../jobs/queue-consumer.js';
import { queueFollowingAttempt, queueWebhookAttempt } from '../webhooks/webhook-schedule.js';
import { plainPageCount } from '../pdf/page-count.js';
import { JobBusyError, JobConflictError } from '../jobs/errors.js';
import { RenderTimeoutError } from '../errors.js';
import { GIVEN_UP, permanentFailure } from './job-failures.js';
import type { JobMessage, JobQueue } from '../jobs/job-queue.js';
import { isFinished, type Job, type JobError, type JobStore, type RunOutcome } from '../jobs/job-store.js';

export type RunJobDeps = {
  jobs: JobStore;
  queue: JobQueue;
  files: FileStore;
  renderer: Pick<DocumentRenderer, 'render'>;
  logger: Logger;
  config: Pick<Config, 'webhookRetryDelaysSeconds' | 'filesBucket'>;
  /** Where the quota unit of a job that failed on the service's side is given back. */
  usage?: UsageStore;
  /** The accounts' own fonts, given to the job's pages (issue 46); absent, pages get none. */
  fonts?: FontStore;
  /** What a batch's items do instead of a webhook (the batch consumers'); absent, items are run as any job. */
  batchItems?: BatchItemHooks;
  /** How a run holds its job; JOB_LEASE unless a test shortens it. */
  lease?: LeaseTiming;
};

/** How long a run's lease on its job lasts, and how often the running consumer renews it. */
export type LeaseTiming = { ms: number; renewEveryMs: number };

/**
 * A run holds its job for two minutes at a time and renews the lease every
 * 30 s while it renders, however long the render (up to the consumer's 15
 * minutes): a consumer that dies mid-render (out of memory, killed at its
 * timeout) leaves a job another can take two minutes later, when its
 * message comes back, instead of one held for the whole invocation it had.
 */
export const JOB_LEASE: LeaseTiming = { ms: 120_000, renewEveryMs: 30_000 };

/** How a batch item differs from a single job: its batch may refuse it, and its end is counted there instead of sending a webhook. */
export type BatchItemHooks = {
  /** Before an item renders: why it must not (its batch was cancelled), else undefined. */
  refusal(job: Job): Promise<JobError | undefined>;
  /** An item finished or was found finished: counts it in its batch, once, and closes the batch after the last. */
  finished(job: Job): Promise<void>;
};

/**
 * How long after a failure on the service's side (the browser crashed, AWS
 * was unavailable) the job is tried again: a fresh message with this delay,
 * instead of waiting out the jobs queue's visibility timeout (90 minutes).
 */
export const JOB_RETRY_DELAY_SECONDS = 10;

/** Runs a job may take before failures on the service's side end it FAILED (the queue's maxReceiveCount, 3). */
export const MAX_JOB_RUNS = 3;

/**
 * Runs one job message: takes the job (PENDING → RUNNING), renders it,
 * stores the file, uploads it to the caller's URL if asked, records
 * COMPLETED or FAILED and queues the webhook. Exactly-once effects rest on the
 * job record: a message for a finished job renders nothing, and a job another
 * consumer holds is left to it (JobBusyError: the message comes back later).
 * A failure on the service's side hands the job back (RUNNING → PENDING) and
 * queues it again with a short delay (`retrySoon`), up to MAX_JOB_RUNS runs,
 * after which the job ends FAILED with its reason; should re-queuing fail,
 * the throw leaves the message to be redelivered and, after the queue's
 * maxReceiveCount, to the dead-letter queue (see `giveUpJob`).
 */
export async function runJob(message: JobMessage, deps: RunJobDeps, clock: ConsumerClock): Promise<void> {
  const now = clock.now ?? Date.now;
  const runId = randomUUID();
  const lease = deps.lease ?? JOB_LEASE;
  let job: Job;
  try {
    job = await deps.jobs.claimRun(message, { runId, until: now() + lease.ms }, now());
  } catch (error) {
    if (!(error instanceof JobConflictError)) throw error;
    return whenNotClaimed(message, error.current, deps, now());
  }

  let outcome: RunOutcome;
  const kind = job.output === 'IMAGE' ? 'screenshot' : 'pdf';
  const startedAt = now();
  const heartbeat = holdLease(job, runId, lease, deps, now);
  try {
    const refused = job.batchItem ? await deps.batchItems?.refusal(job) : undefined;
    if (refused) outcome = { status: 'FAILED', error: refused };
    else try {
      outcome = await produce(job, deps, clock);
      recordJobRender({ kind, mode: 'async', outcome: renderOutcomeOf(outcome.status === 'FAILED' ? outcome.error : undefined), durationMs: now() - startedAt });
    } catch (error) {
      recordJobRender({ kind, mode: 'async', outcome: renderOutcomeOf(error), durationMs: now() - startedAt });
      if (job.runs >= MAX_JOB_RUNS) {
        // The last run allowed: end the job now, with its reason and one webhook, rather than hand it back.
        deps.logger.error('job failed on the service side on its last run; given up', { jobId: job.jobId, runs: job.runs, error: error as Error });
        outcome = { status: 'FAILED', error: GIVEN_UP };
      } else {
        await heartbeat.stop();
        await retrySoon(message, job, runId, error, deps, now());
        return;
      }
    }
  } finally {
    await heartbeat.stop();
  }
  const finished = await deps.jobs.finishRun(job, runId, outcome, now());
  if (!finished) {
    deps.logger.warn('job was taken over before it finished; its result is dropped', { jobId: job.jobId });
    return;
  }
  deps.logger.info('job finished', { jobId: job.jobId, status: finished.status, runs: finished.runs });
  await refundIfDeserved(finished, deps);
  await announce(finished, deps);
}

/**
 * Renews the run's lease every `timing.renewEveryMs` until stopped. A lease
 * found taken (the run was too slow to renew, and another consumer took the
 * job) is logged once; that run's result is then dropped by `finishRun`.
 * `stop()` waits for a renewal under way, so none is left running when the
 * invocation ends (Lambda would freeze it mid-call).
 */
function holdLease(job: Job, runId: string, timing: LeaseTiming, deps: Pick<RunJobDeps, 'jobs' | 'logger'>, now: () => number): { stop(): Promise<void> } {
  let lost = false;
  let renewal: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (lost) return;
    renewal = deps.jobs.renewRun(job, runId, now() + timing.ms, now()).then(
      (held) => {
        if (held) return;
        lost = true;
        deps.logger.warn('another consumer took the job while it ran; its result will be dropped', { jobId: job.jobId });
      },
      (error: unknown) => deps.logger.warn('could not renew the lease on the job; tried again shortly', { jobId: job.jobId, error: error as Error }),
    );
  }, timing.renewEveryMs);
  return {
    async stop() {
      clearInterval(timer);
      await renewal;
    },
  };
}

/** Tells of a finished job: its webhook, or for a batch's item its count in the batch (whose own webhook comes at its end). */
async function announce(job: Job, deps: Pick<RunJobDeps, 'queue' | 'config' | 'batchItems'>): Promise<void> {
  if (job.batchItem && deps.batchItems) return deps.batchItems.finished(job);
  if (job.webhook) await queueWebhookAttempt(deps.queue, job, 1, deps.config.webhookRetryDelaysSeconds);
}

/**
 * After a failure on the service's side: hands the job back (RUNNING →
 * PENDING) and queues it again to run in JOB_RETRY_DELAY_SECONDS, so the
 * current message can be dropped. If that message cannot be sent, the error
 * is thrown and the current message comes back after its visibility timeout,
 * as before: slower, but the job is never lost.
 */
async function retrySoon(message: JobMessage, job: Job, runId: string, error: unknown, deps: RunJobDeps, now: number): Promise<void> {
  await deps.jobs.releaseRun(job, runId, now).catch((releaseError: unknown) => {
    // The lease then runs out by itself before the job is taken again.
    deps.logger.warn('could not hand the job back', { jobId: job.jobId, error: releaseError as Error });
  });
  try {
    await deps.queue.sendJob({ accountId: message.accountId, jobId: message.jobId }, JOB_RETRY_DELAY_SECONDS);
  } catch (sendError) {
    deps.logger.warn('could not queue the job again; its message will be offered again instead', { jobId: job.jobId, error: sendError as Error });
    throw error;
  }
  deps.logger.warn('job failed on the service side; it runs again shortly', {
    jobId: job.jobId,
    runs: job.runs,
    retryInSeconds: JOB_RETRY_DELAY_SECONDS,
    error: error as Error,
  });
}

/**
 * Gives up on a job whose message went to the dead-letter queue: an
 * unfinished job becomes FAILED and its webhook is queued. A finished job
 * only gets its webhook queued if that had not happened.
 */
export async function giveUpJob(
  message: JobMessage,
  deps: Omit<RunJobDeps, 'renderer' | 'files'>,
  clock: Pick<ConsumerClock, 'now'> = {},
): Promise<void> {
  const now = clock.now ?? Date.now;
  let failed: Job;
  try {
    failed = await deps.jobs.failUnfinished(message, GIVEN_UP, now());
  } catch (error) {
    if (!(error instanceof JobConflictError)) throw error;
    return whenNotClaimed(message, error.current, deps, now());
  }
  deps.logger.warn('job given up after repeated failures', { jobId: failed.jobId, runs: failed.runs });
  await refundIfDeserved(failed, deps);
  await announce(failed, deps);
}

/**
 * Gives the job's quota unit back when it failed for a reason other than the
 * page not loading (which was rendered for, as on the raw endpoints). Refunds
 * count once per spend, so a redelivered message cannot refund twice; a
 * failed refund is logged and never holds up the job.
 */
async function refundIfDeserved(job: Job, deps: Pick<RunJobDeps, 'usage' | 'logger'>): Promise<void> {
  if (job.status !== 'FAILED' || !job.spend || !deps.usage || job.error?.code === 'render.navigation') return;
  try {
    await refundQuota(deps.usage, job.spend);
  } catch (error) {
    deps.logger.error('quota refund failed', { jobId: job.jobId, error: error as Error });
  }
}

/** A message whose job could not be taken, as it stands: finished (make sure its webhook is queued), gone, or busy. */
async function whenNotClaimed(
  message: JobMessage,
  current: Job | undefined,
  deps: Pick<RunJobDeps, 'queue' | 'logger' | 'config' | 'batchItems'>,
  now: number,
) {
  if (!current) {
    deps.logger.warn('queued job not found; message dropped', { jobId: message.jobId });
    return;
  }
  // A batch item found finished: the consumer that finished it may have died before counting it (counting twice is a no-op).
  if (isFinished(current) && current.batchItem && deps.batchItems) return deps.batchItems.finished(current);
  if (isFinished(current)) {
    await queueFollowingAttempt(deps.queue, current, 0, deps.config.webhookRetryDelaysSeconds, now);
    return;
  }
  throw new JobBusyError(current.jobId);
}

/**
 * Kept back from an async render's budget for what follows it in the same invocation: storing the file
 * (a long document's tens of MB), the PUT to the caller's URL (OUTBOUND_TIMEOUT_MS) and recording the outcome.
 */
export const AFTER_RENDER_RESERVE_MS = 30_000;

/**
 * An async render's budget (issue 47): what its consumer's invocation has left, less what must follow the
 * render. Derived from the function's own timeout, so raising it (serverless.yml) lengthens the documents it can
 * make; RENDER_TIMEOUT_MS bounds the renders that answer at once (raw and sync), not these.
 */
export function asyncRenderBudgetMs(timeLeftMs: number): number {
  return Math.max(1_000, timeLeftMs - AFTER_RENDER_RESERVE_MS);
}

/** Renders, stores and uploads: the outcome to record, or a throw for a failure worth another attempt. */
async function produce(job: Job, deps: RunJobDeps, clock: ConsumerClock): Promise<RunOutcome> {
  const now = clock.now ?? Date.now;
  const started = now();
  let result;
  try {
    // The job holds the request as accepted; its plan is built anew, as the edge built it then.
    // Data by reference is read now, when the job starts (never held in the job record or the queue).
    const input = await withTemplateData(checkedInput(await deps.jobs.loadInput(job)), job.accountId, { files: deps.files, filesBucket: deps.config.filesBucket }, asyncRenderBudgetMs(clock.timeLeftMs()));
    const plan = buildDocumentPlan(input, await templatesFor(input));
    // The account's fonts as they are now (a font deleted since the request is no longer used).
    if (deps.fonts) withAccountFonts(plan, await accountFonts(deps.fonts, job.accountId));
    // Its budget is what this invocation has left (the consumer's timeout, up to Lambda's 15 minutes), not a sync render's.
    result = await renderForRequest(deps.renderer, plan, { timeoutMs: asyncRenderBudgetMs(clock.timeLeftMs()) });
  } catch (error) {
    const failure = permanentFailure(error);
    if (!failure) throw error;
    const reached = error instanceof RenderTimeoutError ? error.pagesPrinted : undefined;
    return { status: 'FAILED', error: failure, renderMs: now() - started, ...(reached !== undefined ? { pageCount: reached } : {}) };
  }
  const renderMs = now() - started;
  const pageCount = result.output === 'PDF' ? (result.pageCount ?? plainPageCount(result.body)) : undefined;
  const uploadTimeoutMs = Math.min(OUTBOUND_TIMEOUT_MS, clock.timeLeftMs() - RECORD_MARGIN_MS);
  const [file, companions, upload] = await Promise.all([
    deps.files.put(job.accountId, result.body, result.contentType),
    storeCompanions(deps.files, job.accountId, result.companions),
    uploadToCaller(job.storage, result, { timeoutMs: uploadTimeoutMs }),
  ]);
  if (upload.status === 'FAILED') {
    deps.logger.info('upload to the caller URL failed', { jobId: job.jobId, statusCode: upload.result?.statusCode, reason: upload.result?.error });
  }
  return {
    status: 'COMPLETED',
    file,
    ...(companions.pages || companions.preview ? { companions } : {}),
    signedUrlStatus: upload.status,
    ...(result.missingGlyphs ? { missingGlyphs: result.missingGlyphs } : {}),
    ...(pageCount !== undefined ? { pageCount } : {}),
    renderMs,
  };
}

/**
 * The stored input checked again as a render request: it was valid when
 * queued, but a record written by an older version may not be.
 */
function checkedInput(input: DocumentInput): DocumentInput {
  // A merge's parts were checked when queued (templates resolved, documents parsed); each part's render checks its own.
  if ('parts' in input) return input;
  // A process request's document is read (within its bounds) by the render itself, as at the edge.
  if ('process' in input) return input;
  if (input.output === 'PDF') {
    const { page, pdf } = parseMergedOptions({ page: input.page, pdf: input.pdf });
    return { output: 'PDF', page, pdf };
  }
  const { page, screenshot } = parseMergedOptions({ page: input.page, screenshot: input.screenshot });
  return { output: 'IMAGE', page, screenshot };
}

