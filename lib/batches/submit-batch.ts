import type { Config } from '../config.js';
import type { JobStore } from '../jobs/job-store.js';
import { JOB_RETENTION_SECONDS, newJob } from '../jobs/submit-job.js';
import { unitSpend, type QuotaSpend } from '../quota/quota.js';
import type { WebhookOptionsOutput } from '../schemas/render-options.js';
import { batchItemJobId, newBatchId } from './batch-ids.js';
import type { BatchQueue } from './batch-queue.js';
import type { BatchKey, BatchOutput, BatchStore } from './batch-store.js';
import type { PreparedItem } from './prepare-batch.js';

export type BatchRequest = {
  accountId: string;
  tokenHash: string;
  /** The batch's units, one per item (item i gives back unit i when it fails). */
  spend?: QuotaSpend;
  items: PreparedItem<unknown>[];
  output: BatchOutput;
  webhook: WebhookOptionsOutput | null;
};

export type SubmitBatchDeps = {
  jobs: JobStore;
  batches: BatchStore;
  batchQueue: BatchQueue;
  config: Pick<Config, 'batchCheckSeconds'>;
};

/** Item records written at once while a batch is recorded. */
const PARALLEL_WRITES = 32;

/**
 * Records a checked batch and fans it out: the batch (PENDING, every item
 * pending), then each item as an async job of its own (`<batchId>.<index>`,
 * no webhook, its own quota unit), then their messages on the batch items
 * queue in groups of 10, then the batch's first watchdog check. Should any
 * step fail the batch is cancelled, so what was queued fails fast without
 * rendering, and the error goes on (a 500, the units given back).
 */
export async function submitBatch(deps: SubmitBatchDeps, request: BatchRequest, now = new Date()): Promise<BatchKey & { total: number }> {
  const key = { accountId: request.accountId, batchId: newBatchId() };
  const total = request.items.length;
  await deps.batches.create({
    ...key,
    tokenHash: request.tokenHash,
    total,
    output: request.output,
    webhook: request.webhook,
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + JOB_RETENTION_SECONDS,
  });
  try {
    const jobs = request.items.map((item, index) => ({
      ...newJob(
        {
          accountId: request.accountId,
          tokenHash: request.tokenHash,
          ...(request.spend ? { spend: unitSpend(request.spend, index) } : {}),
          input: item.input,
          storage: null,
          webhook: null,
        },
        now,
      ),
      jobId: batchItemJobId(key.batchId, index),
      batchItem: { batchId: key.batchId, index, name: item.name, ...(item.metadata ? { metadata: item.metadata } : {}) },
    }));
    let next = 0;
    const writer = async () => {
      while (next < jobs.length) await deps.jobs.create(jobs[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, jobs.length) }, writer));
    await deps.batchQueue.sendItems(jobs.map((job) => ({ accountId: job.accountId, jobId: job.jobId })));
    await deps.batchQueue.sendCheck(key, deps.config.batchCheckSeconds);
  } catch (error) {
    await deps.batches.cancel(key, Date.now()).catch(() => undefined);
    throw error;
  }
  return { ...key, total };
}
