import type { Config } from '../config.js';
import type { Job } from '../jobs/job-store.js';
import { JOB_RETENTION_SECONDS, newJob } from '../jobs/submit-job.js';
import { unitSpend, type QuotaSpend } from '../quota/quota.js';
import type { WebhookOptionsOutput } from '../schemas/render-options.js';
import { batchItemJobId, newBatchId } from './batch-ids.js';
import type { BatchPlanStore } from './batch-plan-store.js';
import type { BatchQueue } from './batch-queue.js';
import type { BatchKey, BatchOutput, BatchStorage, BatchStore } from './batch-store.js';
import type { PreparedItem } from './prepare-batch.js';

export type BatchRequest = {
  accountId: string;
  tokenHash: string;
  /** The batch's units, one per item (item i gives back unit i when it fails). */
  spend?: QuotaSpend;
  items: PreparedItem<unknown>[];
  output: BatchOutput;
  storage: BatchStorage | null;
  webhook: WebhookOptionsOutput | null;
};

export type SubmitBatchDeps = {
  batches: BatchStore;
  batchPlans: BatchPlanStore;
  batchQueue: BatchQueue;
  config: Pick<Config, 'batchCheckSeconds' | 'batchFanOutChunkItems'>;
};

/** Chunks of planned items stored at once while a batch is recorded. */
const PARALLEL_WRITES = 8;

/**
 * Records a checked batch and queues its fan-out: the batch (PENDING, every
 * item pending); each item planned as an async job of its own
 * (`<batchId>.<index>`, no webhook, its own quota unit) and stored in chunks
 * of `batchFanOutChunkItems`; one fan-out message per chunk on the batch
 * items queue (fan-out.ts records and queues its items there, so a POST of
 * 100,000 items stays far inside API Gateway's 29 s); then the batch's first
 * watchdog check. Should any step fail the batch is cancelled, so what was
 * queued fails fast without rendering, and the error goes on (a 500, the
 * units given back).
 */
export async function submitBatch(deps: SubmitBatchDeps, request: BatchRequest, now = new Date()): Promise<BatchKey & { total: number }> {
  const key = { accountId: request.accountId, batchId: newBatchId() };
  const total = request.items.length;
  const size = deps.config.batchFanOutChunkItems;
  const chunks = Math.ceil(total / size);
  await deps.batches.create({
    ...key,
    tokenHash: request.tokenHash,
    total,
    fanOutChunks: chunks,
    output: request.output,
    storage: request.storage,
    webhook: request.webhook,
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + JOB_RETENTION_SECONDS,
  });
  try {
    let next = 0;
    const writer = async () => {
      while (next < chunks) {
        const chunk = next++;
        const jobs = request.items.slice(chunk * size, (chunk + 1) * size).map((item, offset) => itemJob(request, key, item, chunk * size + offset, now));
        await deps.batchPlans.put(key, chunk, jobs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, chunks) }, writer));
    await deps.batchQueue.sendFanOut(key, chunks);
    await deps.batchQueue.sendCheck(key, deps.config.batchCheckSeconds);
  } catch (error) {
    await deps.batches.cancel(key, Date.now()).catch(() => undefined);
    throw error;
  }
  return { ...key, total };
}

/** Item `index` as the async job it runs as. */
function itemJob(request: BatchRequest, key: BatchKey, item: PreparedItem<unknown>, index: number, now: Date): Job {
  return {
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
  };
}
