import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Job, JobKey, JobStore } from '../jobs/job-store.js';
import type { DocumentInput } from '../render/types.js';
import { nestsWithin } from '../schemas/json-depth.js';
import { awsErrorName, storageError } from './errors.js';

/** Inputs larger than this go to S3: DynamoDB items stop at 400 KB, and the rest of the job needs room. */
const INLINE_INPUT_LIMIT_BYTES = 300 * 1024;
/**
 * Inputs nesting deeper than this go to S3 too: DynamoDB refuses an item whose
 * maps and lists nest more than 32 levels (a ValidationException, which no
 * emulator here reproduces), and `templateData` alone may nest 100; the item
 * itself and `input.page` take a few of the 32.
 */
export const INLINE_INPUT_MAX_DEPTH = 24;
/** Where oversized inputs live in the files bucket (a lifecycle rule expires them as a backstop). */
export const JOB_INPUTS_PREFIX = 'job-inputs/';

type Item = Omit<Job, 'jobId' | 'input'> & {
  jobId: string;
  input?: DocumentInput;
  /** S3 key of the input when it was too large (or too deeply nested) to keep in the item. */
  inputKey?: string;
};

export type DynamoJobStoreOptions = {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  tableName: string;
  bucket: string;
};

const CONDITION_FAILED = 'ConditionalCheckFailedException';

/**
 * Jobs in DynamoDB, keyed (accountId, jobId) so every read is scoped to the
 * owner. Each state change is one UpdateItem whose condition states the
 * state it leaves (and, for a running job or webhook attempt, the lease it
 * holds), which makes the change happen at most once however many consumers
 * race for it. This needs neither transactions nor TTL to be correct (the
 * local emulator has neither); TTL only tidies old records away.
 */
export function createDynamoJobStore(opts: DynamoJobStoreOptions): JobStore {
  const { dynamo, s3, tableName, bucket } = opts;
  const inputKey = (key: JobKey) => `${JOB_INPUTS_PREFIX}${key.accountId}/${key.jobId}.json`;
  const dynamoKey = (key: JobKey) => ({ accountId: key.accountId, jobId: key.jobId });

  /** Runs a conditional update; resolves to the new item, or undefined when the condition did not hold. */
  const update = async (action: string, input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>) => {
    try {
      const { Attributes } = await dynamo.send(new UpdateCommand({ ...input, TableName: tableName, ReturnValues: 'ALL_NEW' }));
      return Attributes as Item | undefined;
    } catch (error) {
      if (awsErrorName(error) === CONDITION_FAILED) return undefined;
      throw storageError(`${action} in table ${tableName}`, error);
    }
  };

  /** Once a job has ended its input is no longer needed; it may hold page credentials, so it goes. */
  const discardInput = async (item: Item | undefined) => {
    if (!item?.inputKey) return;
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: item.inputKey })).catch(() => undefined);
  };

  const finish = async (action: string, key: JobKey, input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues' | 'Key'>) => {
    const item = await update(action, { ...input, Key: dynamoKey(key) });
    await discardInput(item);
    return item ? toJob(item) : undefined;
  };

  return {
    async create(job) {
      const { input, ...rest } = job;
      const serialized = JSON.stringify(input ?? null);
      let item: Item = { ...rest, input };
      if (Buffer.byteLength(serialized) > INLINE_INPUT_LIMIT_BYTES || !nestsWithin(input, INLINE_INPUT_MAX_DEPTH)) {
        const key = inputKey(job);
        try {
          await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: serialized, ContentType: 'application/json' }));
        } catch (error) {
          throw storageError(`Storing a job input in bucket ${bucket}`, error);
        }
        item = { ...rest, inputKey: key };
      }
      try {
        await dynamo.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(jobId)' }));
      } catch (error) {
        throw storageError(`Recording a job in table ${tableName}`, error);
      }
    },

    async get(key) {
      try {
        const { Item: item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: dynamoKey(key), ConsistentRead: true }));
        return item ? toJob(item as Item) : undefined;
      } catch (error) {
        throw storageError(`Reading a job from table ${tableName}`, error);
      }
    },

    async loadInput(job) {
      if (job.input) return job.input;
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: inputKey(job) }));
        return JSON.parse(await object.Body!.transformToString('utf8')) as DocumentInput;
      } catch (error) {
        throw storageError(`Reading a job input from bucket ${bucket}`, error);
      }
    },

    async remove(key) {
      try {
        await dynamo.send(new DeleteCommand({ TableName: tableName, Key: dynamoKey(key) }));
      } catch (error) {
        throw storageError(`Deleting a job from table ${tableName}`, error);
      }
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: inputKey(key) })).catch(() => undefined);
    },

    async claimRun(key, lease, now) {
      const item = await update('Claiming a job', {
        Key: dynamoKey(key),
        UpdateExpression: 'SET #status = :running, #lease = :lease, #updatedAt = :at ADD #runs :one',
        ConditionExpression: 'attribute_exists(jobId) AND (#status = :pending OR (#status = :running AND #lease.#until < :now))',
        ExpressionAttributeNames: { '#status': 'status', '#lease': 'lease', '#until': 'until', '#updatedAt': 'updatedAt', '#runs': 'runs' },
        ExpressionAttributeValues: {
          ':running': 'RUNNING',
          ':pending': 'PENDING',
          ':lease': lease,
          ':now': now,
          ':at': new Date(now).toISOString(),
          ':one': 1,
        },
      });
      return item ? toJob(item) : undefined;
    },

    async releaseRun(key, runId, now) {
      const item = await update('Releasing a job', {
        Key: dynamoKey(key),
        UpdateExpression: 'SET #status = :pending, #updatedAt = :at REMOVE #lease',
        ConditionExpression: '#status = :running AND #lease.#runId = :runId',
        ExpressionAttributeNames: { '#status': 'status', '#lease': 'lease', '#runId': 'runId', '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: { ':pending': 'PENDING', ':running': 'RUNNING', ':runId': runId, ':at': new Date(now).toISOString() },
      });
      return item !== undefined;
    },

    async finishRun(key, runId, outcome, now) {
      const at = new Date(now).toISOString();
      const result =
        outcome.status === 'COMPLETED'
          ? { set: '#file = :file, #signedUrlStatus = :signedUrlStatus', values: { ':file': outcome.file, ':signedUrlStatus': outcome.signedUrlStatus } }
          : { set: '#error = :error', values: { ':error': outcome.error } };
      return finish('Finishing a job', key, {
        UpdateExpression: `SET #status = :status, #completedAt = :at, #updatedAt = :at, ${result.set} REMOVE #lease, #input`,
        ConditionExpression: '#status = :running AND #lease.#runId = :runId',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#lease': 'lease',
          '#runId': 'runId',
          '#completedAt': 'completedAt',
          '#updatedAt': 'updatedAt',
          '#input': 'input',
          ...(outcome.status === 'COMPLETED' ? { '#file': 'file', '#signedUrlStatus': 'signedUrlStatus' } : { '#error': 'error' }),
        },
        ExpressionAttributeValues: { ':status': outcome.status, ':running': 'RUNNING', ':runId': runId, ':at': at, ...result.values },
      });
    },

    async failUnfinished(key, error, now) {
      const at = new Date(now).toISOString();
      return finish('Failing a job', key, {
        UpdateExpression: 'SET #status = :failed, #error = :error, #completedAt = :at, #updatedAt = :at REMOVE #lease, #input',
        ConditionExpression: 'attribute_exists(jobId) AND (#status = :pending OR (#status = :running AND #lease.#until < :now))',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#error': 'error',
          '#lease': 'lease',
          '#until': 'until',
          '#completedAt': 'completedAt',
          '#updatedAt': 'updatedAt',
          '#input': 'input',
        },
        ExpressionAttributeValues: { ':failed': 'FAILED', ':pending': 'PENDING', ':running': 'RUNNING', ':error': error, ':now': now, ':at': at },
      });
    },

    async claimWebhookAttempt(key, attempt, lease, now) {
      const item = await update('Claiming a webhook attempt', {
        Key: dynamoKey(key),
        UpdateExpression: 'SET #attempts = :attempt, #webhookLease = :lease, #updatedAt = :at',
        ConditionExpression:
          '#status IN (:completed, :failed) AND #webhookStatus IN (:pending, :retrying) AND (' +
          '(#attempts = :previous AND (attribute_not_exists(#webhookLease) OR #webhookLease.#until < :now)) OR ' +
          '(#attempts = :attempt AND #webhookLease.#until < :now))',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#webhookStatus': 'webhookStatus',
          '#attempts': 'webhookAttempts',
          '#webhookLease': 'webhookLease',
          '#until': 'until',
          '#updatedAt': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':failed': 'FAILED',
          ':pending': 'PENDING',
          ':retrying': 'RETRYING',
          ':previous': attempt - 1,
          ':attempt': attempt,
          ':lease': lease,
          ':now': now,
          ':at': new Date(now).toISOString(),
        },
      });
      return item ? toJob(item) : undefined;
    },

    async recordWebhookAttempt(key, attempt, runId, record, now) {
      const item = await update('Recording a webhook attempt', {
        Key: dynamoKey(key),
        UpdateExpression:
          'SET #webhookStatus = :status, #log = list_append(if_not_exists(#log, :empty), :entry), #updatedAt = :at REMOVE #webhookLease',
        ConditionExpression: '#attempts = :attempt AND #webhookLease.#runId = :runId',
        ExpressionAttributeNames: {
          '#webhookStatus': 'webhookStatus',
          '#log': 'webhookLog',
          '#attempts': 'webhookAttempts',
          '#webhookLease': 'webhookLease',
          '#runId': 'runId',
          '#updatedAt': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ':status': record.status,
          ':entry': [record.entry],
          ':empty': [],
          ':attempt': attempt,
          ':runId': runId,
          ':at': new Date(now).toISOString(),
        },
      });
      return item !== undefined;
    },
  };
}

/** Reads an item defensively, so a record written by an older version still yields a whole job. */
function toJob(item: Item): Job {
  const { inputKey: _inputKey, ...rest } = item;
  return {
    ...rest,
    runs: typeof item.runs === 'number' ? item.runs : 0,
    webhookStatus: item.webhookStatus ?? 'PENDING',
    webhookAttempts: typeof item.webhookAttempts === 'number' ? item.webhookAttempts : 0,
    webhookLog: Array.isArray(item.webhookLog) ? item.webhookLog : [],
  };
}
