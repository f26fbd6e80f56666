import type { JobQueue } from '../jobs/job-queue.js';
import { queueConsumer } from '../jobs/queue-consumer.js';
import { giveUpJob, runJob, type RunJobDeps } from '../job-runner/run-job.js';
import { parseBatchQueueMessage } from './batch-queue.js';
import { batchItemHooks, checkBatch, type BatchProgressDeps } from './batch-progress.js';

type BatchConsumerDeps = RunJobDeps & BatchProgressDeps;

/** The job runner's dependencies for a batch's items: a retry goes back on the batch queue, and the batch counts the end. */
function itemDeps<D extends Omit<BatchConsumerDeps, 'renderer' | 'files'> & Pick<BatchProgressDeps, 'files'>>(deps: D): D & { batchItems: ReturnType<typeof batchItemHooks> } {
  const queue: JobQueue = { ...deps.queue, sendJob: (message, delaySeconds) => deps.batchQueue.sendItem(message, delaySeconds) };
  return { ...deps, queue, batchItems: batchItemHooks(deps) };
}

/**
 * The batch items queue's consumer: renders each item as the jobs consumer
 * renders a job (`runJob`: its leases, retries and failure reasons), counts
 * it in its batch instead of sending a webhook, and runs the batch's
 * watchdog checks.
 */
export function batchItemsConsumer(deps: BatchConsumerDeps) {
  const items = itemDeps(deps);
  return queueConsumer({
    name: 'batch-items-consume',
    parse: parseBatchQueueMessage,
    handle: (message, clock) => (message.kind === 'item' ? runJob(message, items, clock) : checkBatch(message, deps)),
    logger: deps.logger,
  });
}

/** The batch items dead-letter queue's consumer: fails the items whose messages kept failing (counted in their batch), and checks again on a batch whose check kept failing. */
export function deadBatchItemsConsumer(deps: Omit<BatchConsumerDeps, 'renderer'>) {
  const items = itemDeps(deps);
  return queueConsumer({
    name: 'batch-items-dead-letter',
    parse: parseBatchQueueMessage,
    handle: (message) => (message.kind === 'item' ? giveUpJob(message, items) : checkBatch(message, deps)),
    logger: deps.logger,
  });
}
