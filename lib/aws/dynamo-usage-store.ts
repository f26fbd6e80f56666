import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { QuotaCounterKey, UsageStore } from '../quota/usage-store.js';
import { awsErrorName, storageError } from './errors.js';

/**
 * Usage counters on a DynamoDB table keyed by `pk`, one item per counter:
 * `quota#<tokenHash>#<YYYY-MM>` holds `used`, `refund#<tokenHash>#<YYYY-MM>#<spendId>`
 * marks a spend given back, `rate#<tokenHash>#<windowStart>` holds the
 * window's request count `n`.
 * Every operation is one UpdateItem (or GetItem), atomic on its own, with no
 * transactions; `expiresAt` (epoch seconds) is the table's TTL attribute.
 * Attribute names go through aliases so no DynamoDB reserved word can bite.
 */
export function createDynamoUsageStore(dynamo: DynamoDBDocumentClient, tableName: string): UsageStore {
  const quotaKey = (key: QuotaCounterKey) => ({ pk: `quota#${key.tokenHash}#${key.period}` });
  const refundKey = (key: QuotaCounterKey, spendId: string) => ({ pk: `refund#${key.tokenHash}#${key.period}#${spendId}` });

  return {
    async spend(key, limit, expiresAt) {
      try {
        const { Attributes } = await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: quotaKey(key),
            UpdateExpression: 'ADD #used :one SET #expiresAt = :expiresAt',
            ...(limit === null
              ? {}
              : {
                  // Check and spend in one write: concurrent spends are serialised by DynamoDB on the item.
                  ConditionExpression: 'attribute_not_exists(#used) OR #used < :limit',
                }),
            ExpressionAttributeNames: { '#used': 'used', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt, ...(limit === null ? {} : { ':limit': limit }) },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(Attributes?.used ?? 0);
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return undefined;
        throw storageError(`Spending quota in table ${tableName}`, error);
      }
    },

    async refund(key, spendId, expiresAt) {
      // First the marker, one small item per refund: whoever writes it owns the refund, so a
      // retried or redelivered refund finds it and changes nothing. (Spend ids kept on the month
      // item would grow it by every refund, towards DynamoDB's 400 KB item limit.)
      try {
        // An UpdateItem that creates the item: the functions that refund hold UpdateItem on this table, not PutItem.
        await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: refundKey(key, spendId),
            UpdateExpression: 'SET #expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(pk)',
            ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':expiresAt': expiresAt },
          }),
        );
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Refunding quota in table ${tableName}`, error);
      }
      // Then the unit back. Without a transaction (one write each), a crash between the two
      // loses this refund: the caller keeps paying one unit, and no unit is ever given twice.
      try {
        await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: quotaKey(key),
            UpdateExpression: 'ADD #used :minusOne',
            ConditionExpression: '#used > :zero',
            ExpressionAttributeNames: { '#used': 'used' },
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          }),
        );
        return true;
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Refunding quota in table ${tableName}`, error);
      }
    },

    async used(key) {
      try {
        const { Item } = await dynamo.send(
          new GetCommand({
            TableName: tableName,
            Key: quotaKey(key),
            ProjectionExpression: '#used',
            ExpressionAttributeNames: { '#used': 'used' },
          }),
        );
        return Number(Item?.used ?? 0);
      } catch (error) {
        throw storageError(`Reading quota usage from table ${tableName}`, error);
      }
    },

    async countRequest(tokenHash, windowStart, expiresAt) {
      try {
        const { Attributes } = await dynamo.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: `rate#${tokenHash}#${windowStart}` },
            UpdateExpression: 'ADD #n :one SET #expiresAt = :expiresAt',
            ExpressionAttributeNames: { '#n': 'n', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(Attributes?.n ?? 1);
      } catch (error) {
        throw storageError(`Counting a request in table ${tableName}`, error);
      }
    },
  };
}
