import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Batch, BatchItemRecord, BatchKey, BatchStatus, BatchStore } from '../batches/batch-store.js';
import { randomUUID } from 'node:crypto';
import type { BatchSummary, Job } from '../jobs/job-store.js';
import { awsErrorName, storageError } from './errors.js';

const CONDITION_FAILED = 'ConditionalCheckFailedException';

/**
 * A batch's record in the jobs table, beside its items (`<batchId>.<index>`):
 * `status` is a job's (RUNNING while open, COMPLETED once closed), so the
 * job store's webhook attempts (claim, record) work on it unchanged;
 * `batchStatus` is what the API shows.
 */
type Item = {
  accountId: string;
  jobId: string;
  kind: 'batch';
  tokenHash: string;
  status: 'RUNNING' | 'COMPLETED';
  batchStatus: BatchStatus;
  total: number;
  done: number;
  failed: number;
  pending: number;
  cancelled?: boolean;
  /** How many fan-out steps the batch has, and the steps that have recorded their items (a number set: adding one twice is one). */
  fanOutChunks?: number;
  fannedOutChunks?: Set<number>;
  batch?: BatchSummary;
  /** The closer at work (claimClose): its claim, and when it took it (epoch ms), so that a dead one's goes stale. */
  closeClaim?: string;
  closingAt?: number;
  /** The request's `output` (`output` itself is a job's output type, which the webhook code reads). */
  batchOutput?: Batch['output'];
  /** The request's `storage` (`storage` itself is a job's, which the job code reads). */
  batchStorage?: Batch['storage'];
  webhook: Batch['webhook'];
  webhookStatus: Batch['webhookStatus'];
  webhookAttempts: number;
  webhookLog: unknown[];
  runs: number;
  output: 'PDF';
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  expiresAt: number;
};

type Change = Omit<UpdateCommandInput, 'TableName' | 'Key'>;

/**
 * Batches in DynamoDB (the jobs table, keyed (accountId, jobId) so every read
 * is the owner's). Every count and the close are conditional UpdateItems:
 * neither transactions nor streams, which the local emulator lacks.
 */
export function createDynamoBatchStore(opts: { dynamo: DynamoDBDocumentClient; tableName: string }): BatchStore {
  const { dynamo, tableName } = opts;
  const key = (k: BatchKey) => ({ accountId: k.accountId, jobId: k.batchId });

  /** Resolves to the changed attributes, or undefined when the condition did not hold. */
  const tryUpdate = async (action: string, dynamoKey: Record<string, string>, input: Change) => {
    try {
      const { Attributes } = await dynamo.send(new UpdateCommand({ ...input, TableName: tableName, Key: dynamoKey }));
      return Attributes ?? {};
    } catch (error) {
      if (awsErrorName(error) === CONDITION_FAILED) return undefined;
      throw storageError(`${action} in table ${tableName}`, error);
    }
  };

  const get = async (k: BatchKey) => {
    try {
      const { Item: item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: key(k), ConsistentRead: true }));
      return item && item.kind === 'batch' ? toBatch(item as Item) : undefined;
    } catch (error) {
      throw storageError(`Reading a batch from table ${tableName}`, error);
    }
  };

  return {
    async create(batch) {
      const item: Item = {
        accountId: batch.accountId,
        jobId: batch.batchId,
        kind: 'batch',
        tokenHash: batch.tokenHash,
        status: 'RUNNING',
        batchStatus: 'PENDING',
        total: batch.total,
        done: 0,
        failed: 0,
        pending: batch.total,
        fanOutChunks: batch.fanOutChunks,
        batchOutput: batch.output,
        ...(batch.storage ? { batchStorage: batch.storage } : {}),
        webhook: batch.webhook,
        webhookStatus: 'PENDING',
        webhookAttempts: 0,
        webhookLog: [],
        runs: 0,
        output: 'PDF',
        createdAt: batch.createdAt,
        updatedAt: batch.createdAt,
        expiresAt: batch.expiresAt,
      };
      try {
        await dynamo.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(jobId)' }));
      } catch (error) {
        throw storageError(`Recording a batch in table ${tableName}`, error);
      }
    },

    get,

    async markStarted(k, now) {
      await tryUpdate('Starting a batch', key(k), {
        UpdateExpression: 'SET #batchStatus = :running, #updatedAt = :at',
        ConditionExpression: '#batchStatus = :pending',
        ExpressionAttributeNames: { '#batchStatus': 'batchStatus', '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: { ':running': 'RUNNING', ':pending': 'PENDING', ':at': new Date(now).toISOString() },
      });
    },

    async claimOutputsStep(k, now, staleMs) {
      const claimed = await tryUpdate('Queuing a batch outputs step', key(k), {
        UpdateExpression: 'SET #outputsQueuedAt = :now',
        ConditionExpression: '#kind = :batch AND #status = :open AND (attribute_not_exists(#outputsQueuedAt) OR #outputsQueuedAt < :stale)',
        ExpressionAttributeNames: { '#outputsQueuedAt': 'outputsQueuedAt', '#kind': 'kind', '#status': 'status' },
        ExpressionAttributeValues: { ':now': now, ':stale': now - staleMs, ':batch': 'batch', ':open': 'RUNNING' },
      });
      return claimed !== undefined;
    },

    async markFannedOut(k, chunk) {
      await tryUpdate('Recording a batch fan-out step', key(k), {
        UpdateExpression: 'ADD #fanned :chunk',
        ConditionExpression: '#kind = :batch',
        ExpressionAttributeNames: { '#fanned': 'fannedOutChunks', '#kind': 'kind' },
        ExpressionAttributeValues: { ':chunk': new Set([chunk]), ':batch': 'batch' },
      });
    },

    async cancel(k, now) {
      await tryUpdate('Cancelling a batch', key(k), {
        UpdateExpression: 'SET #cancelled = :true, #batchStatus = :cancelled, #updatedAt = :at',
        ConditionExpression: '#kind = :batch AND #status = :open',
        ExpressionAttributeNames: { '#cancelled': 'cancelled', '#batchStatus': 'batchStatus', '#updatedAt': 'updatedAt', '#kind': 'kind', '#status': 'status' },
        ExpressionAttributeValues: { ':true': true, ':cancelled': 'CANCELLED', ':at': new Date(now).toISOString(), ':batch': 'batch', ':open': 'RUNNING' },
      });
      return get(k);
    },

    async countItem(item, batch, outcome, now) {
      const at = new Date(now).toISOString();
      const marked = await tryUpdate('Counting a batch item', { accountId: item.accountId, jobId: item.jobId }, {
        UpdateExpression: 'SET #counted = :true',
        ConditionExpression: 'attribute_exists(jobId) AND #status IN (:completed, :failed) AND attribute_not_exists(#counted)',
        ExpressionAttributeNames: { '#counted': 'counted', '#status': 'status' },
        ExpressionAttributeValues: { ':true': true, ':completed': 'COMPLETED', ':failed': 'FAILED' },
      });
      if (!marked) return undefined;
      const counted = await tryUpdate('Counting a batch item', key(batch), {
        UpdateExpression: 'ADD #outcome :one, #pending :minusOne SET #updatedAt = :at',
        ConditionExpression: '#kind = :batch AND #status = :open',
        ExpressionAttributeNames: { '#outcome': outcome, '#pending': 'pending', '#updatedAt': 'updatedAt', '#kind': 'kind', '#status': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':minusOne': -1, ':at': at, ':batch': 'batch', ':open': 'RUNNING' },
        ReturnValues: 'UPDATED_NEW',
      });
      return counted ? { pending: Number(counted.pending) } : undefined;
    },

    async items(k) {
      const records: BatchItemRecord[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        let page;
        try {
          page = await dynamo.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'accountId = :account AND begins_with(jobId, :prefix)',
              ExpressionAttributeValues: { ':account': k.accountId, ':prefix': `${k.batchId}.` },
              ProjectionExpression: 'jobId, #status, #file, #error, batchItem, missingGlyphs, pageCount, renderMs',
              ExpressionAttributeNames: { '#status': 'status', '#file': 'file', '#error': 'error' },
              ConsistentRead: true,
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
        } catch (error) {
          throw storageError(`Reading a batch's items from table ${tableName}`, error);
        }
        for (const item of page.Items ?? []) if (item.batchItem) records.push(item as Pick<Job, 'jobId' | 'status'> & BatchItemRecord);
        start = page.LastEvaluatedKey;
      } while (start);
      return records;
    },

    async claimClose(k, now, staleMs) {
      const claim = randomUUID();
      const claimed = await tryUpdate('Claiming the close of a batch', key(k), {
        UpdateExpression: 'SET #closeClaim = :claim, #closingAt = :now',
        ConditionExpression: '#kind = :batch AND #status = :open AND (attribute_not_exists(#closingAt) OR #closingAt < :stale)',
        ExpressionAttributeNames: { '#closeClaim': 'closeClaim', '#closingAt': 'closingAt', '#kind': 'kind', '#status': 'status' },
        ExpressionAttributeValues: { ':claim': claim, ':now': now, ':stale': now - staleMs, ':batch': 'batch', ':open': 'RUNNING' },
      });
      return claimed ? claim : undefined;
    },

    async releaseClose(k, claim) {
      await tryUpdate('Releasing the close of a batch', key(k), {
        UpdateExpression: 'REMOVE #closeClaim, #closingAt',
        ConditionExpression: '#closeClaim = :claim',
        ExpressionAttributeNames: { '#closeClaim': 'closeClaim', '#closingAt': 'closingAt' },
        ExpressionAttributeValues: { ':claim': claim },
      });
    },

    async close(k, summary, now, claim) {
      const at = new Date(now).toISOString();
      const closed = await tryUpdate('Closing a batch', key(k), {
        UpdateExpression:
          'SET #status = :closed, #batchStatus = :batchStatus, #batch = :summary, #done = :done, #failed = :failed, #pending = :zero, #completedAt = :at, #updatedAt = :at',
        ConditionExpression: '#kind = :batch AND #status = :open AND #closeClaim = :claim',
        ExpressionAttributeNames: {
          '#closeClaim': 'closeClaim',
          '#status': 'status',
          '#batchStatus': 'batchStatus',
          '#batch': 'batch',
          '#done': 'done',
          '#failed': 'failed',
          '#pending': 'pending',
          '#completedAt': 'completedAt',
          '#updatedAt': 'updatedAt',
          '#kind': 'kind',
        },
        ExpressionAttributeValues: {
          ':closed': 'COMPLETED',
          ':batchStatus': summary.status,
          ':summary': summary,
          ':done': summary.done,
          ':failed': summary.failed,
          ':zero': 0,
          ':at': at,
          ':batch': 'batch',
          ':open': 'RUNNING',
          ':claim': claim,
        },
        ReturnValues: 'ALL_NEW',
      });
      return closed ? toBatch(closed as Item) : undefined;
    },
  };
}

function toBatch(item: Item): Batch {
  return {
    accountId: item.accountId,
    batchId: item.jobId,
    tokenHash: item.tokenHash,
    status: item.batchStatus,
    total: Number(item.total),
    done: Number(item.done),
    failed: Number(item.failed),
    cancelled: item.cancelled === true,
    closed: item.status === 'COMPLETED',
    // A batch recorded before fan-out steps were counted had its items recorded by its POST.
    fannedOut: item.fanOutChunks === undefined || (item.fannedOutChunks?.size ?? 0) >= Number(item.fanOutChunks),
    ...(item.batch ? { manifest: item.batch.manifest } : {}),
    ...(item.batch?.zip ? { zip: item.batch.zip } : {}),
    ...(item.batch?.merged ? { merged: item.batch.merged } : {}),
    ...(item.batch?.signedUrlStatus ? { signedUrlStatus: item.batch.signedUrlStatus } : {}),
    output: { zip: item.batchOutput?.zip === true, merge: item.batchOutput?.merge === true },
    storage: item.batchStorage ?? null,
    webhook: item.webhook ?? null,
    webhookStatus: item.webhookStatus ?? 'PENDING',
    webhookAttempts: Number(item.webhookAttempts ?? 0),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    ...(item.completedAt ? { completedAt: item.completedAt } : {}),
  };
}
