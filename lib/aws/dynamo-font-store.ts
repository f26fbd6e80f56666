import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FontStore, UserFont } from '../fonts/user-fonts/font-store.js';
import { awsErrorName, guardedStore } from './errors.js';

/**
 * Where a font's bytes are kept: under `fonts/`, which no lifecycle rule
 * expires (unlike `files/`, gone after a day), one object per account and font.
 */
export const FONTS_PREFIX = 'fonts/';

export const fontObjectKey = (font: Pick<UserFont, 'accountId' | 'id' | 'format'>) => `${FONTS_PREFIX}${font.accountId}/${font.id}.${font.format}`;

type Item = Omit<UserFont, 'id'> & { fontId: string };

export type DynamoFontStoreOptions = { dynamo: DynamoDBDocumentClient; s3: S3Client; tableName: string; bucket: string };

/**
 * Fonts in DynamoDB, keyed (accountId, fontId) so every read is scoped to the
 * owner (ids sort by creation, so a key query lists oldest first); their bytes in
 * the files bucket under `fonts/<accountId>/`.
 */
export function createDynamoFontStore(opts: DynamoFontStoreOptions): FontStore {
  const { dynamo, s3, tableName, bucket } = opts;
  const toFont = ({ fontId, ...rest }: Item): UserFont => ({ id: fontId, ...rest });

  const store: FontStore = {
    async create(font, sfnt) {
      const { id, ...rest } = font;
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: fontObjectKey(font), Body: sfnt, ContentType: font.format === 'otf' ? 'font/otf' : 'font/ttf' }));
      await dynamo.send(new PutCommand({ TableName: tableName, Item: { ...rest, fontId: id }, ConditionExpression: 'attribute_not_exists(fontId)' }));
    },

    async get(accountId, id) {
      const { Item: item } = await dynamo.send(new GetCommand({ TableName: tableName, Key: { accountId, fontId: id } }));
      return item ? toFont(item as Item) : undefined;
    },

    async list(accountId) {
      const fonts: UserFont[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await dynamo.send(new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'accountId = :a',
          ExpressionAttributeValues: { ':a': accountId },
          ExclusiveStartKey: startKey,
        }));
        fonts.push(...((page.Items ?? []) as Item[]).map(toFont));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return fonts;
    },

    async remove(accountId, id) {
      const { Attributes: old } = await dynamo.send(new DeleteCommand({ TableName: tableName, Key: { accountId, fontId: id }, ReturnValues: 'ALL_OLD' }));
      if (!old) return false;
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: fontObjectKey(toFont(old as Item)) }));
      return true;
    },

    async readBytes(font) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: fontObjectKey(font) }));
        return await object.Body!.transformToByteArray();
      } catch (error) {
        if (awsErrorName(error) === 'NoSuchKey') return undefined;
        throw error;
      }
    },
  };
  return guardedStore(store, tableName, {
    create: 'Storing a font',
    get: 'Reading a font',
    list: 'Listing fonts',
    remove: 'Deleting a font',
    readBytes: 'Reading a font file',
  });
}
