import * as v from 'valibot';
import { parseMessage } from '../jobs/job-messages.js';
import type { JobMessage } from '../jobs/job-queue.js';
import type { BatchKey } from './batch-store.js';

/** A batch queue message: render one item (a job's key), or check on the batch (its watchdog). */
export type BatchQueueMessage = ({ kind: 'item' } & JobMessage) | ({ kind: 'check' } & BatchKey);

/**
 * Port: the batch items queue, apart from the jobs queue so that a batch of
 * ten thousand items never stands in front of another tenant's single async
 * render (each queue has its own consumers and concurrency).
 */
export interface BatchQueue {
  /** Queues items to render, in SendMessageBatch calls of 10; rejects when any could not be queued. */
  sendItems(messages: JobMessage[]): Promise<void>;
  /** Queues one item again, no earlier than `delaySeconds` from now (a retry after a failure on the service's side). */
  sendItem(message: JobMessage, delaySeconds?: number): Promise<void>;
  /** Queues the batch's next watchdog check in `delaySeconds` (at most 900). */
  sendCheck(key: BatchKey, delaySeconds: number): Promise<void>;
}

const nonEmpty = v.pipe(v.string(), v.nonEmpty());
const MessageSchema = v.variant('kind', [
  v.object({ kind: v.literal('item'), accountId: nonEmpty, jobId: nonEmpty }),
  v.object({ kind: v.literal('check'), accountId: nonEmpty, batchId: nonEmpty }),
]);

/** Reads a batch queue message body. */
export function parseBatchQueueMessage(body: string): BatchQueueMessage {
  return parseMessage(MessageSchema, body);
}
