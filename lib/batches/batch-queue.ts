import * as v from 'valibot';
import { parseMessage } from '../jobs/job-messages.js';
import type { JobMessage } from '../jobs/job-queue.js';
import type { BatchKey } from './batch-store.js';

/** A chunk of a batch's planned items to record and queue (lib/batches/fan-out.ts). */
export type FanOutMessage = BatchKey & { chunk: number };

/**
 * A batch queue message: render one item (a job's key), check on the batch
 * (its watchdog), fan out a chunk of its items, or (on the outputs queue)
 * make its archive and merged PDF and close it.
 */
export type BatchQueueMessage =
  | ({ kind: 'item' } & JobMessage)
  | ({ kind: 'check' } & BatchKey)
  | ({ kind: 'fanout' } & FanOutMessage)
  | ({ kind: 'outputs' } & BatchKey);

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
  /** Queues the fan-out of chunks 0…chunks-1 of a batch's planned items, in SendMessageBatch calls of 10. */
  sendFanOut(key: BatchKey, chunks: number): Promise<void>;
  /** Queues the making of a finished batch's archive and merged PDF, and its close, on the outputs queue (a function with a long timeout). */
  sendOutputs(key: BatchKey): Promise<void>;
}

const nonEmpty = v.pipe(v.string(), v.nonEmpty());
const MessageSchema = v.variant('kind', [
  v.object({ kind: v.literal('item'), accountId: nonEmpty, jobId: nonEmpty }),
  v.object({ kind: v.literal('check'), accountId: nonEmpty, batchId: nonEmpty }),
  v.object({ kind: v.literal('outputs'), accountId: nonEmpty, batchId: nonEmpty }),
  v.object({ kind: v.literal('fanout'), accountId: nonEmpty, batchId: nonEmpty, chunk: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
]);

/** Reads a batch queue message body. */
export function parseBatchQueueMessage(body: string): BatchQueueMessage {
  return parseMessage(MessageSchema, body);
}
