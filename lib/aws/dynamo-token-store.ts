import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TokenExistsError } from '../tokens/errors.js';
import type { TokenRecord, TokenStore } from '../tokens/token-store.js';
import { DEFAULT_RATE_PER_SECOND } from '../tokens/tokens.js';
import { awsErrorName, storageError } from './errors.js';

/**
 * Token store on a DynamoDB table keyed by `tokenHash`. Conditional writes
 * make `create` refuse an existing hash and `setActive` refuse to create a
 * record; SDK exceptions become our own errors here.
 */
export function createDynamoTokenStore(dynamo: DynamoDBDocumentClient, tableName: string): TokenStore {
  return {
    async findByHash(tokenHash) {
      try {
        const { Item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: { tokenHash } }));
        return Item ? toRecord(Item) : undefined;
      } catch (error) {
        throw storageError(`Reading a token from table ${tableName}`, error);
      }
    },

    async create(record) {
      try {
        await dynamo.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...record },
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
  };
}

/** Reads an item defensively: a record written by an older version still yields every field. */
function toRecord(item: Record<string, unknown>): TokenRecord {
  return {
    tokenHash: String(item.tokenHash),
    accountId: String(item.accountId),
    active: item.active === true,
    monthlyLimit: typeof item.monthlyLimit === 'number' ? item.monthlyLimit : null,
    ratePerSecond: typeof item.ratePerSecond === 'number' ? item.ratePerSecond : DEFAULT_RATE_PER_SECOND,
    webhookSecret: String(item.webhookSecret ?? ''),
    createdAt: String(item.createdAt ?? ''),
  };
}
