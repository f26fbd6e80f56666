import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { JobConflictError } from '../jobs/errors.js';
import type { Job, JobKey, JobStore } from '../jobs/job-store.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import { awsErrorName, storageError } from './errors.js';
import { createS3Spill } from './s3-spill.js';

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

type Change = Omit<UpdateCommandInput, 'TableName' | 'Key' | 'ReturnValues' | 'ReturnValuesOnConditionCheckFailure'>;

/**
 * Jobs in DynamoDB, keyed (accountId, jobId) so every read is scoped to the
 * owner. Each state change is one UpdateItem whose condition states the
 * state it leaves (and, for a running job or webhook attempt, the lease it
 * holds), which makes the change happen at most once however many consumers
 * race for it. This needs neither transactions nor TTL to be correct (the
 * local emulator has neither); TTL only tidies old records away.
 */
export function createDynamoJobStore(opts: DynamoJobStoreOptions): JobStore {
  const { dynamo, tableName, bucket } = opts;
  const spill = createS3Spill(opts);
  const inputKey = (key: JobKey) => `${JOB_INPUTS_PREFIX}${key.accountId}/${key.jobId}.json`;
  const dynamoKey = (key: JobKey) => ({ accountId: key.accountId, jobId: key.jobId });

  /** Records a new job unless one with its id exists (the condition), its input spilled to S3 when large. */
  const createIfAbsent = async (job: Job): Promise<boolean> => {
    const { input, ...rest } = job;
    let kept;
    try {
      kept = await spill.keep(input, inputKey(job));
    } catch (error) {
      throw storageError(`Storing a job input in bucket ${bucket}`, error);
    }
    const item: Item = 'inline' in kept ? { ...rest, input: kept.inline } : { ...rest, inputKey: kept.key };
    try {
      await dynamo.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(jobId)' }));
      return true;
    } catch (error) {
      if (awsErrorName(error) === CONDITION_FAILED) return false;
      throw storageError(`Recording a job in table ${tableName}`, error);
    }
  };

  const read = async (key: JobKey) => {
    try {
      const { Item: item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: dynamoKey(key), ConsistentRead: true }));
      return item ? toJob(item as Item) : undefined;
    } catch (error) {
      throw storageError(`Reading a job from table ${tableName}`, error);
    }
  };

  /**
   * The one conditional write of every change of state: resolves to the
   * item as changed, or throws a JobConflictError carrying the item as it
   * stood, which DynamoDB sends back with the refusal
   * (`ReturnValuesOnConditionCheckFailure`), so losing a race costs no read.
   */
  const change = async (action: string, key: JobKey, input: Change): Promise<Item> => {
    try {
      const { Attributes } = await dynamo.send(
        new UpdateCommand({ ...input, TableName: tableName, Key: dynamoKey(key), ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      );
      return Attributes as Item;
    } catch (error) {
      if (awsErrorName(error) !== CONDITION_FAILED) throw storageError(`${action} in table ${tableName}`, error);
      // The document client leaves the returned item in DynamoDB's attribute-value form. The SDK
      // exception is not kept as the cause: a logger would print its item, credentials and all.
      const old = (error as ConditionalCheckFailedException).Item;
      throw new JobConflictError(key.jobId, old ? toJob(unmarshall(old) as Item) : undefined);
    }
  };

  /**
   * A change that takes the job (or its webhook attempt): its caller acts on
   * the job as it stood when the change was refused. Read only when the
   * refusal came without it: the job is gone, or the store is the local
   * emulator (dynalite), which ignores `ReturnValuesOnConditionCheckFailure`.
   */
  const claim = async (action: string, key: JobKey, input: Change): Promise<Item> => {
    try {
      return await change(action, key, input);
    } catch (error) {
      if (!(error instanceof JobConflictError) || error.current) throw error;
      throw new JobConflictError(key.jobId, await read(key));
    }
  };

  /** A change whose caller only needs to know whether it happened. */
  const tryChange = async (action: string, key: JobKey, input: Change): Promise<Item | undefined> => {
    try {
      return await change(action, key, input);
    } catch (error) {
      if (error instanceof JobConflictError) return undefined;
      throw error;
    }
  };

  /** Once a job has ended its input is no longer needed; it may hold page credentials, so it goes. */
  const discardInput = async (item: Item | undefined) => {
    if (!item?.inputKey) return;
    await spill.discard(item.inputKey).catch(() => undefined);
  };

  return {
    async create(job) {
      if (!(await createIfAbsent(job))) throw storageError(`Recording a job in table ${tableName}`, new Error(`job ${job.jobId} exists`));
    },

    createIfAbsent,

    get: read,

    async loadInput(job) {
      if (job.input) return job.input;
      try {
        return await spill.load<DocumentInput>(inputKey(job));
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
      await spill.discard(inputKey(key)).catch(() => undefined);
    },

    async claimRun(key, lease, now) {
      const item = await claim('Claiming a job', key, {
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
      return toJob(item);
    },

    async renewRun(key, runId, until, now) {
      const item = await tryChange('Renewing a job\'s lease', key, {
        UpdateExpression: 'SET #lease.#until = :until, #updatedAt = :at',
        ConditionExpression: '#status = :running AND #lease.#runId = :runId',
        ExpressionAttributeNames: { '#status': 'status', '#lease': 'lease', '#runId': 'runId', '#until': 'until', '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: { ':running': 'RUNNING', ':runId': runId, ':until': until, ':at': new Date(now).toISOString() },
      });
      return item !== undefined;
    },

    async releaseRun(key, runId, now) {
      const item = await tryChange('Releasing a job', key, {
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
          ? outcome.companions && Object.keys(outcome.companions).length > 0
            ? {
                set: '#file = :file, #companions = :companions, #signedUrlStatus = :signedUrlStatus',
                values: { ':file': outcome.file, ':companions': outcome.companions, ':signedUrlStatus': outcome.signedUrlStatus },
              }
            : { set: '#file = :file, #signedUrlStatus = :signedUrlStatus', values: { ':file': outcome.file, ':signedUrlStatus': outcome.signedUrlStatus } }
          : { set: '#error = :error', values: { ':error': outcome.error } };
      // What the file draws with no glyph (issue 46), kept for the job endpoint and the webhook.
      const glyphs = outcome.status === 'COMPLETED' && outcome.missingGlyphs ? outcome.missingGlyphs : undefined;
      if (glyphs) {
        result.set += ', #missingGlyphs = :missingGlyphs';
        (result.values as Record<string, unknown>)[':missingGlyphs'] = glyphs;
      }
      // What the run cost (issue 47), for the job endpoint and the webhook.
      const cost = { pageCount: outcome.pageCount, renderMs: outcome.renderMs };
      const costNames: Record<string, string> = {};
      for (const [field, value] of Object.entries(cost)) {
        if (value === undefined) continue;
        result.set += `, #${field} = :${field}`;
        (result.values as Record<string, unknown>)[`:${field}`] = value;
        costNames[`#${field}`] = field;
      }
      const item = await tryChange('Finishing a job', key, {
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
          ...(outcome.status === 'COMPLETED' && outcome.companions && Object.keys(outcome.companions).length > 0 ? { '#companions': 'companions' } : {}),
          ...(glyphs ? { '#missingGlyphs': 'missingGlyphs' } : {}),
          ...costNames,
        },
        ExpressionAttributeValues: { ':status': outcome.status, ':running': 'RUNNING', ':runId': runId, ':at': at, ...result.values },
      });
      await discardInput(item);
      return item && toJob(item);
    },

    async failUnfinished(key, error, now) {
      const at = new Date(now).toISOString();
      const item = await claim('Failing a job', key, {
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
      await discardInput(item);
      return toJob(item);
    },

    async claimWebhookAttempt(key, attempt, lease, now) {
      const item = await claim('Claiming a webhook attempt', key, {
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
      return toJob(item);
    },

    async recordWebhookAttempt(key, attempt, runId, record, now) {
      const item = await tryChange('Recording a webhook attempt', key, {
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
