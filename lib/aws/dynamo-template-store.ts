import type { S3Client } from '@aws-sdk/client-s3';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Template, TemplatePage, TemplateStore, TemplateVariables } from '../templates/template-store.js';
import { awsErrorName, guardedStore } from './errors.js';
import { createS3Spill } from './s3-spill.js';
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
 * keeps listing cheap. Oversized variables are stored in S3 beside the item.
 */
export function createDynamoTemplateStore(opts: DynamoTemplateStoreOptions): TemplateStore {
  const { dynamo, tableName } = opts;
  const spill = createS3Spill(opts);
  const variablesKey = (accountId: string, id: string) => `templates/${accountId}/${id}.json`;

  const toItem = async (template: Template): Promise<Item> => {
    const { id, variables, ...rest } = template;
    const kept = await spill.keep(variables, variablesKey(template.accountId, id));
    return 'inline' in kept ? { ...rest, templateId: id, variables: kept.inline } : { ...rest, templateId: id, variablesKey: kept.key };
  };

  const fromItem = async (item: Item): Promise<Template> => {
    const variables = item.variablesKey ? await spill.load<TemplateVariables>(item.variablesKey) : (item.variables ?? {});
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

  /** One page of an account's templates from the index, newest first; only their keys when skipping. */
  const queryByAccount = (accountId: string, limit: number, startKey: Record<string, unknown> | undefined, keysOnly = false) =>
    dynamo.send(new QueryCommand({
      TableName: tableName,
      IndexName: TEMPLATES_BY_ACCOUNT_INDEX,
      KeyConditionExpression: 'accountId = :a',
      ExpressionAttributeValues: { ':a': accountId },
      ScanIndexForward: false,
      ...(keysOnly ? { ProjectionExpression: 'accountId, templateId' } : {}),
      Limit: limit,
      ExclusiveStartKey: startKey,
    }));

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
        const skipped = await queryByAccount(accountId, toSkip, startKey, true);
        toSkip -= skipped.Count ?? 0;
        startKey = skipped.LastEvaluatedKey;
        if (!startKey) break;
      }
      const hasPreviousPage = page > 1;
      if (toSkip > 0 || (page > 1 && !startKey)) return { items: [], hasNextPage: false, hasPreviousPage };
      const items: Item[] = [];
      do {
        const result = await queryByAccount(accountId, pageSize + 1 - items.length, startKey);
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
      // The variables moved back into the item: their copy in S3 goes. (Still in S3, they were overwritten in place.)
      if (previous.variablesKey && !item.variablesKey) await spill.discard(previous.variablesKey);
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
      if (key) await spill.discard(key);
      return true;
    },
  };
  return guardedStore(store, tableName, {
    create: 'Creating a template',
    get: 'Reading a template',
    list: 'Listing templates',
    replace: 'Updating a template',
    remove: 'Deleting a template',
  });
}
