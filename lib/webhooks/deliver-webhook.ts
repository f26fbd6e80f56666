import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from '../config.js';
import { OUTBOUND_TIMEOUT_MS, sendOutbound, type OutboundRequest, type OutboundResult } from '../delivery/outbound-http.js';
import type { FileStore, StoredFile } from '../files/file-store.js';
import { recordWebhookFailure } from '../observability/metrics.js';
import { companionUrls } from '../files/companion-files.js';
import { temporaryFileUrl } from '../files/temporary-files.js';
import { JobBusyError, JobConflictError } from '../jobs/errors.js';
import type { JobQueue, WebhookMessage } from '../jobs/job-queue.js';
import { isFinished, isLive, type BatchSummary, type Job, type JobStore, type WebhookStatus } from '../jobs/job-store.js';
import type { TokenStore } from '../tokens/token-store.js';
import { RECORD_MARGIN_MS, type ConsumerClock } from '../jobs/queue-consumer.js';
import { WebhookSecretError } from './errors.js';
import { webhookSignatureHeaders } from './signature.js';
import { batchWebhookBody, webhookBody, type WebhookFile } from './webhook-body.js';
import { maxWebhookAttempts, queueFollowingAttempt, queueWebhookAttempt } from './webhook-schedule.js';

export type WebhookDeps = {
  jobs: JobStore;
  queue: JobQueue;
  files: Pick<FileStore, 'read' | 'downloadUrl'>;
  tokens: Pick<TokenStore, 'findByHash'>;
  logger: Logger;
  config: Pick<Config, 'fileLifetimeSeconds' | 'webhookRetryDelaysSeconds'>;
  /** Makes the call; `sendOutbound` unless a test replaces it. */
  send?: (request: OutboundRequest) => Promise<OutboundResult>;
};

/**
 * Makes webhook attempt `message.attempt` of a finished job, unless it was
 * made already: claims the attempt on the job record, calls the webhook,
 * records the result (DELIVERED, RETRYING or FAILED) and, after a failure
 * with attempts left, queues the next attempt with its delay. The render is
 * never repeated: the body is built from the job record and the stored file.
 */
export async function deliverWebhook(message: WebhookMessage, deps: WebhookDeps, clock: ConsumerClock): Promise<void> {
  const now = clock.now ?? Date.now;
  const { attempt } = message;
  const runId = randomUUID();
  let job: Job;
  try {
    job = await deps.jobs.claimWebhookAttempt(message, attempt, { runId, until: now() + clock.timeLeftMs() }, now());
  } catch (error) {
    if (!(error instanceof JobConflictError)) throw error;
    return whenNotClaimed(message, error.current, deps, now());
  }

  const startedAt = now();
  const result = await callWebhook(job, deps, Math.min(OUTBOUND_TIMEOUT_MS, clock.timeLeftMs() - RECORD_MARGIN_MS), startedAt);
  const delays = deps.config.webhookRetryDelaysSeconds;
  // A URL that cannot be called fails its webhook once: retrying it would only fail the same way for 15 minutes.
  const status: WebhookStatus = result.ok ? 'DELIVERED' : result.permanent || attempt >= maxWebhookAttempts(delays) ? 'FAILED' : 'RETRYING';
  const recorded = await deps.jobs.recordWebhookAttempt(
    job,
    attempt,
    runId,
    {
      status,
      entry: {
        attempt,
        at: new Date(startedAt).toISOString(),
        durationMs: result.durationMs,
        ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }),
        ...(result.error === undefined ? {} : { error: result.error }),
      },
    },
    now(),
  );
  if (!recorded) {
    deps.logger.warn('webhook attempt was taken over before its result was recorded', { jobId: job.jobId, attempt });
    return;
  }
  deps.logger.info('webhook attempt', { jobId: job.jobId, attempt, status, statusCode: result.statusCode, reason: result.error });
  if (status !== 'DELIVERED') recordWebhookFailure(status === 'FAILED');
  if (status === 'RETRYING') await queueWebhookAttempt(deps.queue, job, attempt + 1, delays);
}

/** The attempt was not claimable, as the job stands: made already (queue the next if that may have been missed), busy, or moot. */
async function whenNotClaimed(message: WebhookMessage, job: Job | undefined, deps: WebhookDeps, now: number): Promise<void> {
  if (!job || !isFinished(job)) return;
  if ((job.webhookStatus === 'PENDING' || job.webhookStatus === 'RETRYING') && isLive(job.webhookLease, now)) {
    throw new JobBusyError(job.jobId);
  }
  await queueFollowingAttempt(deps.queue, job, message.attempt, deps.config.webhookRetryDelaysSeconds, now);
}

/** Builds, signs and sends the webhook request for a finished job. */
async function callWebhook(job: Job, deps: WebhookDeps, timeoutMs: number, now: number): Promise<OutboundResult> {
  const webhook = job.webhook;
  if (!webhook) return { ok: false, permanent: true, error: 'no webhook was given', durationMs: 0 };
  const token = await deps.tokens.findByHash(job.tokenHash);
  const body = JSON.stringify(job.batch ? await batchBody(job, job.batch, deps, now) : webhookBody(job, await webhookFile(job, deps, now), await besideFile(job, deps, now)));
  let signature;
  try {
    signature = webhookSignatureHeaders(token?.webhookSecret ?? '', job.jobId, Math.floor(now / 1000), body);
  } catch (error) {
    if (!(error instanceof WebhookSecretError)) throw error;
    // Recorded as a failed attempt: an unsigned call would teach receivers to accept unsigned calls.
    return { ok: false, error: 'the account has no valid webhook signing secret', durationMs: 0 };
  }
  const send = deps.send ?? sendOutbound;
  return send({
    url: webhook.url,
    method: webhook.method ?? 'POST',
    // The caller's headers first, so none of them can replace the content type or the signature.
    headers: { ...(webhook.headers ?? {}), 'content-type': 'application/json', ...signature },
    body,
    timeoutMs,
  });
}

/** The file as the caller asked to receive it: a download URL valid for the rest of its lifetime, or its bytes. */
async function webhookFile(job: Job, deps: WebhookDeps, now: number): Promise<WebhookFile> {
  const file = job.status === 'COMPLETED' ? job.file : undefined;
  if (job.webhook?.receiveType === 'base64') {
    const bytes = file ? await deps.files.read(file.key) : undefined;
    return { fileBase64: bytes ? bytes.toString('base64') : null };
  }
  const url = file ? await temporaryFileUrl(deps.files, file, deps.config.fileLifetimeSeconds, now) : undefined;
  return { fileUrl: url ?? null };
}

/**
 * The images stored beside the file, as URLs whatever the receive type (as a batch's manifest): a receiver
 * of base64 gets the file itself in the body, and each image when it wants it.
 */
async function besideFile(job: Job, deps: WebhookDeps, now: number) {
  return job.status === 'COMPLETED' && job.companions ? companionUrls(deps.files, job.companions, deps.config.fileLifetimeSeconds, now) : {};
}

/** A closed batch's webhook body: its manifest travels as a URL whatever the receive type (it may list 10,000 files). */
async function batchBody(job: Job, summary: BatchSummary, deps: WebhookDeps, now: number) {
  const url = (file: StoredFile) => temporaryFileUrl(deps.files, file, deps.config.fileLifetimeSeconds, now);
  return batchWebhookBody(job, summary, {
    manifestUrl: await url(summary.manifest),
    ...(summary.zip ? { zipUrl: await url(summary.zip) } : {}),
    ...(summary.merged ? { mergedUrl: await url(summary.merged) } : {}),
  });
}
