import type { QuotaSpend } from '../quota/quota.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import type { StorageOptionsOutput, WebhookOptionsOutput } from '../schemas/render-options.js';
import { newJobId } from './job-ids.js';
import type { JobQueue } from './job-queue.js';
import type { Job, JobStore } from './job-store.js';

/** How long a job record is kept (DynamoDB TTL): long after its file (1 hour) and webhook retries are over. */
export const JOB_RETENTION_SECONDS = 7 * 24 * 3600;

export type JobRequest = {
  accountId: string;
  tokenHash: string;
  spend?: QuotaSpend;
  input: DocumentInput;
  storage?: StorageOptionsOutput | null;
  webhook: WebhookOptionsOutput | null;
};

/** A new PENDING job for a validated request. */
export function newJob(request: JobRequest, now = new Date()): Job {
  const at = now.toISOString();
  return {
    jobId: newJobId(),
    accountId: request.accountId,
    tokenHash: request.tokenHash,
    ...(request.spend ? { spend: request.spend } : {}),
    status: 'PENDING',
    output: request.input.output,
    createdAt: at,
    updatedAt: at,
    expiresAt: Math.floor(now.getTime() / 1000) + JOB_RETENTION_SECONDS,
    input: request.input,
    storage: request.storage ?? null,
    webhook: request.webhook,
    runs: 0,
    webhookStatus: 'PENDING',
    webhookAttempts: 0,
    webhookLog: [],
  };
}

/**
 * Records the job as PENDING, then queues it. The record comes first so a
 * consumer never receives a job it cannot find; if queuing fails the record
 * is removed again and the error propagates (a 500: nothing was queued).
 */
export async function submitJob(deps: { jobs: JobStore; queue: JobQueue }, request: JobRequest, now = new Date()): Promise<Job> {
  const job = newJob(request, now);
  await deps.jobs.create(job);
  try {
    await deps.queue.sendJob({ accountId: job.accountId, jobId: job.jobId });
  } catch (error) {
    await deps.jobs.remove(job).catch(() => undefined);
    throw error;
  }
  return job;
}
