import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TokenExistsError } from '../tokens/errors.js';
import type { TokenRecord, TokenStore, TokenTermsStore } from '../tokens/token-store.js';
import { DEFAULT_RATE_PER_SECOND } from '../tokens/tokens.js';
import { rateWindow } from '../quota/rate-limit.js';
import { awsErrorName, storageError } from './errors.js';

/**
 * Token store on a DynamoDB table keyed by `tokenHash`. Conditional writes
 * make `create` refuse an existing hash and `setActive` / `updateTerms`
 * refuse to create a record; SDK exceptions become our own errors here.
 */
export function createDynamoTokenStore(dynamo: DynamoDBDocumentClient, tableName: string): TokenStore & TokenTermsStore {
  const findByHash = async (tokenHash: string) => {
    try {
      const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: { tokenHash } }));
      return Item ? tokenRecordFromItem(Item) : undefined;
    } catch (error) {
      throw storageError(`Reading a token from table ${tableName}`, error);
    }
  };

  return {
    findByHash,

    async create(record) {
      try {
        await dynamo.send(
          new PutCommand({
            TableName: tableName,
            // The rate window the admission's condition reads (dynamo-usage-store.ts), derived once here.
            Item: { ...record, ...windowAttributes(record.ratePerSecond) },
            ConditionExpression: 'attribute_not_exists(tokenHash)',
          }),
        );
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') throw new TokenExistsError({ cause: error });
        throw storageError(`Writing a token to table ${tableName}`, error);
      }
    },

    async setActive(tokenHash, active) {
      try {
        await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { tokenHash },
            UpdateExpression: 'SET active = :active',
            ConditionExpression: 'attribute_exists(tokenHash)',
            ExpressionAttributeValues: { ':active': active },
          }),
        );
        return true;
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Updating a token in table ${tableName}`, error);
      }
    },

    async updateTerms(tokenHash, terms) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const derived = terms.ratePerSecond === undefined ? {} : windowAttributes(terms.ratePerSecond);
      for (const [field, value] of Object.entries({ ...terms, ...derived })) {
        if (value === undefined) continue;
        names[`#${field}`] = field;
        values[`:${field}`] = value;
      }
      const assignments = Object.keys(names).map((name) => `${name} = :${name.slice(1)}`);
      if (assignments.length === 0) return findByHash(tokenHash);
      try {
        const { Attributes } = await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { tokenHash },
            UpdateExpression: `SET ${assignments.join(', ')}`,
            ConditionExpression: 'attribute_exists(tokenHash)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? tokenRecordFromItem(Attributes) : undefined;
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return undefined;
        throw storageError(`Updating a token's terms in table ${tableName}`, error);
      }
    },
  };
}

/** Reads an item defensively: a record written by an older version still yields every field. */
export function tokenRecordFromItem(item: Record<string, unknown>): TokenRecord {
  return {
    tokenHash: String(item.tokenHash),
    accountId: String(item.accountId),
    active: item.active === true,
    monthlyLimit: typeof item.monthlyLimit === 'number' ? item.monthlyLimit : null,
    ratePerSecond: typeof item.ratePerSecond === 'number' ? item.ratePerSecond : DEFAULT_RATE_PER_SECOND,
    webhookSecret: String(item.webhookSecret ?? ''),
    createdAt: String(item.createdAt ?? ''),
    ...(Array.isArray(item.signers) ? { signers: item.signers.map(String) } : {}),
  };
}

/** `rateWindow` (seconds) and `rateAllowed` (requests in it): the rate as the admission's condition compares it. */
function windowAttributes(ratePerSecond: number): { rateWindow: number; rateAllowed: number } {
  const window = rateWindow(ratePerSecond);
  return { rateWindow: window.seconds, rateAllowed: window.allowed };
}
