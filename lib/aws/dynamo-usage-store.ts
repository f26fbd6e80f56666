import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { rateWindow, type RateWindow } from '../quota/rate-limit.js';
import type { AdmissionOutcome, AdmissionRequest, QuotaCounterKey, UsageStore } from '../quota/usage-store.js';
import { tokenRecordFromItem } from './dynamo-token-store.js';
import { awsErrorName, storageError } from './errors.js';

/** The attribute of a token item counting its units of a month. */
const usedAttribute = (period: string) => `used#${period}`;
/** The attribute of a token item counting its requests in one rate window. */
const rateAttribute = (window: RateWindow, windowStart: number) => `rate#${window.seconds}#${windowStart}`;
const RATE_PREFIX = 'rate#';
/** An admission whose assumption (window length) was out of date, or that lost a race, tries again this often at most. */
const ATTEMPTS = 4;
/** Tokens whose hints an instance keeps; beyond, it forgets them all (a hint only saves a round trip). */
const HINTS_KEPT = 10_000;

type Hint = { window: RateWindow; stale: string[] };

/**
 * Usage counters kept on the token's own item in the tokens table, beside
 * its subscription (`active`, `monthlyLimit`, and the rate window that
 * `ratePerSecond` gives, stored as `rateWindow` and `rateAllowed`):
 * `used#<YYYY-MM>` counts the month's renders, `rate#<seconds>#<start>` the
 * requests of one rate window. An admission is one UpdateItem whose
 * condition is every check at once (token exists, active, window not full,
 * quota left), so DynamoDB serialises concurrent requests on the item and
 * the counts are exact on any number of instances. A refusal counts
 * nothing; one consistent read then says which check refused.
 *
 * Refunds: a marker item `refund#<tokenHash>#<YYYY-MM>#<spendId>` in the
 * usage table (TTL `expiresAt`) makes each refund count once, then the unit
 * goes back on the token item.
 */
export function createDynamoUsageStore(dynamo: DynamoDBDocumentClient, tables: { tokens: string; usage: string }): UsageStore {
  /** Per token, what this instance last saw: its window length, and rate attributes of past windows to remove. */
  const hints = new Map<string, Hint>();

  const diagnose = async (tokenHash: string) => {
    const { Item } = await dynamo.send(new GetCommand({ TableName: tables.tokens, Key: { tokenHash }, ConsistentRead: true }));
    return Item;
  };

  /** Stores `rateWindow` and `rateAllowed` on an item written before they existed (once per token). */
  const storeWindow = async (tokenHash: string, ratePerSecond: number) => {
    const window = rateWindow(ratePerSecond);
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tables.tokens,
          Key: { tokenHash },
          UpdateExpression: 'SET rateWindow = :seconds, rateAllowed = :allowed',
          ConditionExpression: 'attribute_exists(tokenHash) AND ratePerSecond = :rate',
          ExpressionAttributeValues: { ':seconds': window.seconds, ':allowed': window.allowed, ':rate': ratePerSecond },
        }),
      );
    } catch (error) {
      // The terms changed meanwhile: the next attempt reads them again.
      if (awsErrorName(error) !== 'ConditionalCheckFailedException') throw error;
    }
  };

  const remember = (tokenHash: string, item: Record<string, unknown>, current: string | undefined) => {
    const window = windowOf(item);
    if (!window) return;
    if (hints.size >= HINTS_KEPT) hints.clear();
    const stale = Object.keys(item).filter((name) => name.startsWith(RATE_PREFIX) && name !== current);
    hints.set(tokenHash, { window, stale });
  };

  const attempt = async (request: AdmissionRequest): Promise<AdmissionOutcome | 'again'> => {
    const { tokenHash, nowMs, countRate, spendPeriod } = request;
    const hint = hints.get(tokenHash);
    // Whole rates (the usual case) count over one second: the first request of a token on an instance assumes so.
    const window = hint?.window ?? { seconds: 1, allowed: 1 };
    const nowSeconds = Math.floor(nowMs / 1000);
    const windowStart = nowSeconds - (nowSeconds % window.seconds);
    const rateName = rateAttribute(window, windowStart);
    // DynamoDB refuses names and values an expression does not use: each is added with its use.
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':true': true, ':seconds': window.seconds };
    const sets: string[] = [];
    const conditions = ['attribute_exists(tokenHash)', 'active = :true', 'rateWindow = :seconds'];
    if (countRate) {
      names['#rate'] = rateName;
      sets.push('#rate = if_not_exists(#rate, :zero) + :one');
      conditions.push('(attribute_not_exists(#rate) OR #rate < rateAllowed)');
      values[':zero'] = 0;
      values[':one'] = 1;
    }
    if (spendPeriod !== undefined) {
      names['#used'] = usedAttribute(spendPeriod);
      sets.push('#used = if_not_exists(#used, :zero) + :one');
      // Unlimited (no number), or a unit left; a zero quota takes none, even with no counter yet.
      conditions.push('(NOT attribute_type(monthlyLimit, :number) OR (attribute_not_exists(#used) AND monthlyLimit > :zero) OR #used < monthlyLimit)');
      values[':zero'] = 0;
      values[':one'] = 1;
      values[':number'] = 'N';
    }
    if (sets.length === 0) {
      // Nothing to count: a plain consistent read decides.
      const item = await diagnose(tokenHash);
      return item ? judge(item, request, window, windowStart, rateName) : { admitted: false, refusal: 'unknown-token' };
    }
    const stale = (hint?.stale ?? []).filter((name) => name !== rateName).slice(0, 20);
    stale.forEach((name, i) => (names[`#stale${i}`] = name));
    const remove = stale.length > 0 ? ` REMOVE ${stale.map((_, i) => `#stale${i}`).join(', ')}` : '';
    try {
      const { Attributes } = await dynamo.send(
        new UpdateCommand({
          TableName: tables.tokens,
          Key: { tokenHash },
          UpdateExpression: `SET ${sets.join(', ')}${remove}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const item = Attributes ?? {};
      remember(tokenHash, item, rateName);
      return {
        admitted: true,
        token: tokenRecordFromItem(item),
        // The condition held rateWindow to the window assumed; its allowance is the item's.
        rate: { window: windowOf(item) ?? window, windowStart, count: Number(item[rateName] ?? 0) },
        ...(spendPeriod !== undefined ? { used: Number(item[usedAttribute(spendPeriod)] ?? 0) } : {}),
      };
    } catch (error) {
      if (awsErrorName(error) !== 'ConditionalCheckFailedException') throw error;
    }
    // Refused: one consistent read of the item says which check did it.
    const item = await diagnose(tokenHash);
    if (!item) return { admitted: false, refusal: 'unknown-token' };
    if (item.active !== true) return judge(item, request, window, windowStart, rateName);
    const stored = windowOf(item);
    if (!stored) {
      const ratePerSecond = tokenRecordFromItem(item).ratePerSecond;
      await storeWindow(tokenHash, ratePerSecond);
      hints.set(tokenHash, { window: rateWindow(ratePerSecond), stale: [] });
      return 'again';
    }
    remember(tokenHash, item, undefined);
    if (stored.seconds !== window.seconds) return 'again';
    const outcome = judge(item, request, stored, windowStart, rateName);
    // Every check passes on the item as read now: another request changed it in between. Try again.
    return outcome.admitted ? 'again' : outcome;
  };

  return {
    async admit(request) {
      try {
        for (let i = 1; ; i++) {
          const outcome = await attempt(request);
          if (outcome !== 'again') return outcome;
          if (i >= ATTEMPTS) throw new Error(`the token item kept changing under ${ATTEMPTS} attempts`);
        }
      } catch (error) {
        throw storageError(`Admitting a request on table ${tables.tokens}`, error);
      }
    },

    async refund(key, spendId, expiresAt) {
      // First the marker, one small item per refund: whoever writes it owns the refund, so a
      // retried or redelivered refund finds it and changes nothing.
      try {
        // An UpdateItem that creates the item: the functions that refund hold UpdateItem on this table, not PutItem.
        await dynamo.send(
          new UpdateCommand({
            TableName: tables.usage,
            Key: { pk: `refund#${key.tokenHash}#${key.period}#${spendId}` },
            UpdateExpression: 'SET #expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(pk)',
            ExpressionAttributeNames: { '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':expiresAt': expiresAt },
          }),
        );
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Refunding quota in table ${tables.usage}`, error);
      }
      // Then the unit back. Without a transaction (one write each), a crash between the two
      // loses this refund: the caller keeps paying one unit, and no unit is ever given twice.
      try {
        await dynamo.send(
          new UpdateCommand({
            TableName: tables.tokens,
            Key: { tokenHash: key.tokenHash },
            UpdateExpression: 'ADD #used :minusOne',
            ConditionExpression: '#used > :zero',
            ExpressionAttributeNames: { '#used': usedAttribute(key.period) },
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          }),
        );
        return true;
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Refunding quota in table ${tables.tokens}`, error);
      }
    },

    async used(key) {
      try {
        const { Item } = await dynamo.send(
          new GetCommand({
            TableName: tables.tokens,
            Key: { tokenHash: key.tokenHash },
            ProjectionExpression: '#used',
            ExpressionAttributeNames: { '#used': usedAttribute(key.period) },
          }),
        );
        return Number(Item?.[usedAttribute(key.period)] ?? 0);
      } catch (error) {
        throw storageError(`Reading quota usage from table ${tables.tokens}`, error);
      }
    },
  };
}

/** The stored rate window of a token item, when it has one. */
function windowOf(item: Record<string, unknown>): RateWindow | undefined {
  const seconds = item.rateWindow;
  const allowed = item.rateAllowed;
  return typeof seconds === 'number' && typeof allowed === 'number' ? { seconds, allowed } : undefined;
}

/** Which check, in the contract's order, the item as it stands refuses `request` on (admitted: none does). */
function judge(item: Record<string, unknown>, request: AdmissionRequest, window: RateWindow, windowStart: number, rateName: string): AdmissionOutcome {
  const token = tokenRecordFromItem(item);
  const count = Number(item[rateName] ?? 0);
  const rate = { window, windowStart, count };
  if (!token.active) return { admitted: false, refusal: 'inactive', token, rate };
  if (request.countRate && count >= window.allowed) return { admitted: false, refusal: 'rate', token, rate };
  if (request.spendPeriod !== undefined) {
    const used = Number(item[usedAttribute(request.spendPeriod)] ?? 0);
    if (token.monthlyLimit !== null && used >= token.monthlyLimit) return { admitted: false, refusal: 'quota', token, rate, used };
  }
  return { admitted: true, token, rate };
}
