import type { JobQueue } from '../jobs/job-queue.js';
import { isFinished, isLive, type Job, type JobKey } from '../jobs/job-store.js';

/** How many times a webhook is attempted: the first call and one retry per configured delay. */
export function maxWebhookAttempts(retryDelaysSeconds: readonly number[]): number {
  return retryDelaysSeconds.length + 1;
}

/** Seconds to wait before attempt `attempt` (1-based): none before the first, then the configured delays in turn. */
export function delayBeforeAttempt(attempt: number, retryDelaysSeconds: readonly number[]): number {
  return attempt <= 1 ? 0 : (retryDelaysSeconds[attempt - 2] ?? retryDelaysSeconds.at(-1) ?? 0);
}

/** Queues webhook attempt `attempt` of a job after its delay. */
export async function queueWebhookAttempt(
  queue: JobQueue,
  key: JobKey,
  attempt: number,
  retryDelaysSeconds: readonly number[],
): Promise<void> {
  await queue.sendWebhook({ accountId: key.accountId, jobId: key.jobId, attempt }, delayBeforeAttempt(attempt, retryDelaysSeconds));
}

/**
 * Queues the attempt that should follow attempt `after` when nothing shows it
 * was queued: the job is finished, its webhook neither delivered nor given
 * up, no attempt is under way, and attempt `after` is the last one recorded.
 * Called when a redelivered message finds its own step already done, because
 * the consumer that did the step may have died before queuing the next one.
 * Queuing twice is harmless: only one consumer can claim an attempt.
 */
export async function queueFollowingAttempt(
  queue: JobQueue,
  job: Job,
  after: number,
  retryDelaysSeconds: readonly number[],
  now: number,
): Promise<boolean> {
  if (!isFinished(job) || job.webhookStatus === 'DELIVERED' || job.webhookStatus === 'FAILED') return false;
  if (isLive(job.webhookLease, now) || job.webhookAttempts !== after) return false;
  if (after + 1 > maxWebhookAttempts(retryDelaysSeconds)) return false;
  await queueWebhookAttempt(queue, job, after + 1, retryDelaysSeconds);
  return true;
}
