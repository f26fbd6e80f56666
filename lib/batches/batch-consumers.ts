import type { JobQueue } from '../jobs/job-queue.js';
import { queueConsumer } from '../jobs/queue-consumer.js';
import { giveUpJob, runJob, type RunJobDeps } from '../job-runner/run-job.js';
import { parseBatchQueueMessage } from './batch-queue.js';
import { batchItemHooks, checkBatch, closeBatch, type BatchProgressDeps, type OutputsMode } from './batch-progress.js';
import type { BatchQueueMessage } from './batch-queue.js';
import type { BatchKey } from './batch-store.js';
import { fanOutChunk, type FanOutDeps } from './fan-out.js';

type BatchConsumerDeps = RunJobDeps & BatchProgressDeps & FanOutDeps;

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
    handle: (message: BatchQueueMessage, clock) => {
      if (message.kind === 'item') return runJob(message, items, clock);
      if (message.kind === 'fanout') return fanOutChunk(message, deps);
      if (message.kind === 'outputs') return closeOnce(message, deps, 'build');
      return checkBatch(message, deps);
    },
    logger: deps.logger,
  });
}

/** Closes a batch (closeBatch), resolving nothing: a batch an earlier run closed is left as it is. */
async function closeOnce(key: BatchKey, deps: BatchProgressDeps, outputs: OutputsMode): Promise<void> {
  await closeBatch(key, deps, outputs);
}

/**
 * The batch outputs queue's consumer (batch-outputs-build: a long timeout,
 * memory for the merge): makes a finished batch's archive and merged PDF,
 * then closes it, writes its manifest and queues its one webhook. Run twice
 * (a redelivery, the watchdog queuing it again), only one run closes.
 */
export function batchOutputsConsumer(deps: Omit<BatchConsumerDeps, 'renderer'>) {
  return queueConsumer({
    name: 'batch-outputs-build',
    parse: parseBatchQueueMessage,
    handle: async (message: BatchQueueMessage) => {
      if (message.kind !== 'outputs') throw new Error(`The batch outputs queue takes outputs messages, not ${message.kind}`);
      await closeOnce(message, deps, 'build');
    },
    logger: deps.logger,
  });
}

/**
 * The batch items dead-letter queue's consumer: fails the items whose
 * messages kept failing (counted in their batch), checks again on a batch
 * whose check kept failing, and cancels a batch whose fan-out step kept
 * failing (the items it recorded fail as cancelled; those of the lost chunk
 * were never recorded, and closeBatch counts them failed).
 */
export function deadBatchItemsConsumer(deps: Omit<BatchConsumerDeps, 'renderer'>) {
  const items = itemDeps(deps);
  return queueConsumer({
    name: 'batch-items-dead-letter',
    parse: parseBatchQueueMessage,
    handle: async (message: BatchQueueMessage) => {
      if (message.kind === 'item') return giveUpJob(message, items);
      if (message.kind === 'fanout') {
        deps.logger.error('batch fan-out given up: the batch is cancelled', { batchId: message.batchId, chunk: message.chunk });
        await deps.batches.cancel(message, Date.now());
        // Given up: nothing more comes from this step, so the batch may close without its items. Its own
        // watchdog closes it: a check from here would start a second chain of checks beside that one.
        await deps.batches.markFannedOut(message, message.chunk);
        return;
      }
      // An outputs step that kept failing: the batch closes without them, each output's reason in the manifest.
      if (message.kind === 'outputs') return closeOnce(message, deps, 'give-up');
      return checkBatch(message, deps);
    },
    logger: deps.logger,
  });
}
