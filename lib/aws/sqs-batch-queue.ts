import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { BatchQueue, BatchQueueMessage } from '../batches/batch-queue.js';
import type { Config } from '../config.js';
import { storageError } from './errors.js';
import { createSqsClient } from './sqs-client.js';

/** SQS takes at most 10 messages per SendMessageBatch. */
const SQS_BATCH_SIZE = 10;
/** SendMessageBatch calls in flight at once while a batch fans out. */
const PARALLEL_SENDS = 16;
/** Rounds of resending the entries SQS refused (its partial failures) before giving up. */
const RESEND_ROUNDS = 3;

/** The batch items queue on SQS. */
export function createSqsBatchQueue(opts: { sqs: SQSClient; queueUrl: string; outputsQueueUrl: string }): BatchQueue {
  const { sqs, queueUrl, outputsQueueUrl } = opts;
  const check = (url = queueUrl) => {
    if (!url) throw storageError('Queuing a batch item', new Error('the queue URL is not configured'));
  };
  const send = async (message: BatchQueueMessage, delaySeconds = 0, url = queueUrl) => {
    check(url);
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message), DelaySeconds: Math.min(Math.max(Math.round(delaySeconds), 0), 900) }),
      );
    } catch (error) {
      throw storageError('Queuing a batch message', error);
    }
  };
  /** One SendMessageBatch of up to 10, resending the entries it refused. */
  const sendGroup = async (group: BatchQueueMessage[]) => {
    let entries = group.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) }));
    for (let round = 0; entries.length > 0; round++) {
      if (round >= RESEND_ROUNDS) throw storageError('Queuing batch items', new Error(`SQS refused ${entries.length} entries ${RESEND_ROUNDS} times`));
      let failed;
      try {
        ({ Failed: failed } = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries })));
      } catch (error) {
        throw storageError('Queuing batch items', error);
      }
      const refused = new Set((failed ?? []).map((entry) => entry.Id));
      entries = entries.filter((entry) => refused.has(entry.Id));
    }
  };
  /** Many messages in groups of 10, PARALLEL_SENDS calls at once. */
  const sendMany = async (messages: BatchQueueMessage[]) => {
    check();
    const groups: BatchQueueMessage[][] = [];
    for (let i = 0; i < messages.length; i += SQS_BATCH_SIZE) groups.push(messages.slice(i, i + SQS_BATCH_SIZE));
    let next = 0;
    const worker = async () => {
      while (next < groups.length) await sendGroup(groups[next++] as BatchQueueMessage[]);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_SENDS, groups.length) }, worker));
  };
  return {
    sendItems: (messages) => sendMany(messages.map((m) => ({ kind: 'item', accountId: m.accountId, jobId: m.jobId }))),
    sendFanOut: (key, chunks) => sendMany(Array.from({ length: chunks }, (_, chunk) => ({ kind: 'fanout', accountId: key.accountId, batchId: key.batchId, chunk }))),
    sendItem: (message, delaySeconds) => send({ kind: 'item', accountId: message.accountId, jobId: message.jobId }, delaySeconds),
    sendCheck: (key, delaySeconds) => send({ kind: 'check', accountId: key.accountId, batchId: key.batchId }, delaySeconds),
    sendOutputs: (key) => send({ kind: 'outputs', accountId: key.accountId, batchId: key.batchId }, 0, outputsQueueUrl),
  };
}

/** The batch queue on the service's SQS client. */
export function createSqsBatchQueueFromConfig(config: Pick<Config, 'region' | 'batchItemsQueueUrl' | 'batchOutputsQueueUrl'>): BatchQueue {
  return createSqsBatchQueue({ sqs: createSqsClient(config), queueUrl: config.batchItemsQueueUrl, outputsQueueUrl: config.batchOutputsQueueUrl });
}
