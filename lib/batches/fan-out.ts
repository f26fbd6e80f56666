import type { JobStore } from '../jobs/job-store.js';
import type { BatchPlanStore } from './batch-plan-store.js';
import type { BatchQueue, FanOutMessage } from './batch-queue.js';
import type { BatchStore } from './batch-store.js';

export type FanOutDeps = {
  jobs: Pick<JobStore, 'createIfAbsent'>;
  batches: Pick<BatchStore, 'markFannedOut'>;
  batchPlans: BatchPlanStore;
  batchQueue: Pick<BatchQueue, 'sendItems'>;
};

/** Item records written at once by a fan-out step. */
const PARALLEL_WRITES = 32;

/**
 * One fan-out step of a batch: chunk `chunk` of its planned items recorded
 * as jobs (each only if absent) and queued for rendering. Done again (a
 * redelivered message, a crash half-way) it records nothing twice and queues
 * the chunk's items again, which is harmless: an item runs under its job's
 * lease, once, and is counted once (batch-store.ts countItem). A chunk that
 * cannot be read throws, so its message is offered again and, in the end,
 * reaches the dead-letter consumer, which cancels the batch. Once its items
 * are recorded the step is marked done on the batch, so a batch cancelled
 * meanwhile waits for every step before it closes (closeBatch).
 */
export async function fanOutChunk(message: FanOutMessage, deps: FanOutDeps): Promise<void> {
  const jobs = await deps.batchPlans.get(message, message.chunk);
  if (!jobs) throw new Error(`Batch ${message.batchId} has no planned items for chunk ${message.chunk}`);
  let next = 0;
  const writer = async () => {
    while (next < jobs.length) await deps.jobs.createIfAbsent(jobs[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, jobs.length) }, writer));
  await deps.batchQueue.sendItems(jobs.map((job) => ({ accountId: job.accountId, jobId: job.jobId })));
  await deps.batches.markFannedOut(message, message.chunk);
}
