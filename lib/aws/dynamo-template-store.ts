import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Template, TemplatePage, TemplateStore, TemplateVariables } from '../templates/template-store.js';
import { nestsWithin } from '../schemas/json-depth.js';
import { holdsOnlyItemNumbers } from './dynamo-numbers.js';
import { awsErrorName, storageError } from './errors.js';

/** Variables larger than this go to S3: DynamoDB items stop at 400 KB. */
const INLINE_LIMIT_BYTES = 300 * 1024;
/** Variables nesting deeper than this go to S3 too: DynamoDB refuses items nested more than 32 levels (see the job store). */
export const INLINE_VARIABLES_MAX_DEPTH = 24;
/** The index that lists an account's templates without reading their variables. */
export const TEMPLATES_BY_ACCOUNT_INDEX = 'byAccount';

type Item = {
  accountId: string;
  templateId: string;
  name: string;
  output: Template['output'];
  createdAt: string;
  updatedAt: string;
  variables?: TemplateVariables;
  /** S3 key of the variables when they were too large to keep inline. */
  variablesKey?: string;
};

export type DynamoTemplateStoreOptions = {
  dynamo: DynamoDBDocumentClient;
  s3: S3Client;
  tableName: string;
  bucket: string;
};

/**
 * Templates in DynamoDB, keyed (accountId, templateId) so every read is
 * scoped to the owner. Ids sort by creation time, so a descending key query
 * on the account lists newest first; a GSI projecting only the summary fields
 * keeps listing cheap. Oversized variables, and those holding numbers an item
 * cannot (dynamo-numbers.ts), are stored in S3 beside the item.
 */
export function createDynamoTemplateStore(opts: DynamoTemplateStoreOptions): TemplateStore {
  const { dynamo, s3, tableName, bucket } = opts;
  const variablesKey = (accountId: string, id: string) => `templates/${accountId}/${id}.json`;

  const toItem = async (template: Template): Promise<Item> => {
    const { id, variables, ...rest } = template;
    const serialized = JSON.stringify(variables);
    if (
      Buffer.byteLength(serialized) <= INLINE_LIMIT_BYTES &&
      nestsWithin(variables, INLINE_VARIABLES_MAX_DEPTH) &&
      holdsOnlyItemNumbers(variables, INLINE_VARIABLES_MAX_DEPTH)
    ) {
      return { ...rest, templateId: id, variables };
    }
    const key = variablesKey(template.accountId, id);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: serialized, ContentType: 'application/json' }));
    return { ...rest, templateId: id, variablesKey: key };
  };

  const fromItem = async (item: Item): Promise<Template> => {
    let variables = item.variables ?? {};
    if (item.variablesKey) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: item.variablesKey }));
      variables = JSON.parse(await object.Body!.transformToString('utf8')) as TemplateVariables;
    }
    return {
      id: item.templateId,
      accountId: item.accountId,
      name: item.name,
      output: item.output,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      variables,
    };
  };

  const getItem = async (accountId: string, id: string) => {
    const { Item: item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: { accountId, templateId: id } }));
    return item as Item | undefined;
  };

  const store: TemplateStore = {
    async create(template) {
      await dynamo.send(new PutCommand({
        TableName: tableName,
        Item: await toItem(template),
        ConditionExpression: 'attribute_not_exists(templateId)',
      }));
    },

    async get(accountId, id) {
      const item = await getItem(accountId, id);
      return item ? fromItem(item) : undefined;
    },

    async list(accountId, page, pageSize): Promise<TemplatePage> {
      // Skip the earlier pages reading only keys from the index, then read one
      // item more than a page to learn whether another page follows.
      let startKey: Record<string, unknown> | undefined;
      let toSkip = (page - 1) * pageSize;
      while (toSkip > 0) {
        const skipped = await dynamo.send(new QueryCommand({
          TableName: tableName,
          IndexName: TEMPLATES_BY_ACCOUNT_INDEX,
          KeyConditionExpression: 'accountId = :a',
          ExpressionAttributeValues: { ':a': accountId },
          ScanIndexForward: false,
          ProjectionExpression: 'accountId, templateId',
          Limit: toSkip,
          ExclusiveStartKey: startKey,
        }));
        toSkip -= skipped.Count ?? 0;
        startKey = skipped.LastEvaluatedKey;
        if (!startKey) break;
      }
      const hasPreviousPage = page > 1;
      if (toSkip > 0 || (page > 1 && !startKey)) return { items: [], hasNextPage: false, hasPreviousPage };
      const items: Item[] = [];
      do {
        const result = await dynamo.send(new QueryCommand({
          TableName: tableName,
          IndexName: TEMPLATES_BY_ACCOUNT_INDEX,
          KeyConditionExpression: 'accountId = :a',
          ExpressionAttributeValues: { ':a': accountId },
          ScanIndexForward: false,
          Limit: pageSize + 1 - items.length,
          ExclusiveStartKey: startKey,
        }));
        items.push(...((result.Items ?? []) as Item[]));
        startKey = result.LastEvaluatedKey;
      } while (startKey && items.length < pageSize + 1);
      return {
        items: items.slice(0, pageSize).map((item) => ({
          id: item.templateId,
          name: item.name,
          output: item.output,
          createdAt: item.createdAt,
          updatedAt: item.updatedAt,
        })),
        hasNextPage: items.length > pageSize,
        hasPreviousPage,
      };
    },

    async replace(template) {
      const previous = await getItem(template.accountId, template.id);
      if (!previous) return false;
      const item = await toItem(template);
      try {
        await dynamo.send(new PutCommand({
          TableName: tableName,
          Item: item,
          ConditionExpression: 'attribute_exists(templateId)',
        }));
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw error;
      }
      // The variables moved back into the item: their S3 copy goes (judged on the item written, which
      // keeps them in S3 for their size, depth or numbers alike).
      if (previous.variablesKey && !item.variablesKey) {
        await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: previous.variablesKey }));
      }
      return true;
    },

    async remove(accountId, id) {
      const { Attributes: old } = await dynamo.send(new DeleteCommand({
        TableName: tableName,
        Key: { accountId, templateId: id },
        ReturnValues: 'ALL_OLD',
      }));
      if (!old) return false;
      const key = (old as Item).variablesKey;
      if (key) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    },
  };
  return guarded(store, tableName);
}

/** The same store, with every SDK exception turned into a StorageError where it arises. */
function guarded(store: TemplateStore, tableName: string): TemplateStore {
  const wrap =
    <A extends unknown[], R>(action: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw storageError(`${action} (table ${tableName})`, error);
      }
    };
  return {
    create: wrap('Creating a template', store.create),
    get: wrap('Reading a template', store.get),
    list: wrap('Listing templates', store.list),
    replace: wrap('Updating a template', store.replace),
    remove: wrap('Deleting a template', store.remove),
  };
}
