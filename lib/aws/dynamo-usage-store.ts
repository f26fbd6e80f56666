import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { periodExpiry } from '../quota/quota.js';
import { rateWindow, type RateWindow } from '../quota/rate-limit.js';
import type { AdmissionOutcome, AdmissionRequest, QuotaCounterKey, UsageStore } from '../quota/usage-store.js';
import { tokenRecordFromItem } from './dynamo-token-store.js';
import { awsErrorName, storageError } from './errors.js';

/** The attribute of a token item counting its units of a month. */
const usedAttribute = (period: string) => `used#${period}`;
/** The attribute of a token item counting its requests in one rate window. */
const rateAttribute = (window: RateWindow, windowStart: number) => `rate#${window.seconds}#${windowStart}`;
const RATE_PREFIX = 'rate#';
/** The attribute of a token item holding a spend until its work confirms it (`{ units, until }`, until in epoch ms). */
const heldAttribute = (period: string, spendId: string) => `${HELD_PREFIX}${period}#${spendId}`;
const HELD_PREFIX = 'held#';
/**
 * An admission whose assumption (window length, limit) was out of date, that seeded the month's counter
 * or that lost a race tries again; this often at most.
 */
const ATTEMPTS = 6;
/** Tokens whose hints an instance keeps; beyond, it forgets them all (a hint only saves a round trip). */
const HINTS_KEPT = 10_000;

/**
 * What an instance last saw of a token: its window length, its monthly limit
 * (null: unlimited; absent: not seen), rate attributes of past windows to remove.
 */
type Hint = { window: RateWindow; limit?: number | null; stale: string[] };

/**
 * Usage counters kept on the token's own item in the tokens table, beside
 * its subscription (`active`, `monthlyLimit`, and the rate window that
 * `ratePerSecond` gives, stored as `rateWindow` and `rateAllowed`):
 * `used#<YYYY-MM>` counts the month's renders, `rate#<seconds>#<start>` the
 * requests of one rate window. An admission is one UpdateItem whose
 * condition is every check at once (token exists, active, window not full,
 * quota left), so DynamoDB serialises concurrent requests on the item and
 * the counts are exact on any number of instances. A request spending N
 * units (a merge) takes them all in that write or none. A refusal counts
 * nothing; one consistent read then says which check refused.
 *
 * Carry-over: before this design the month's count lived in the usage table
 * (`quota#<tokenHash>#<YYYY-MM>`, `used`). The admission's condition asks for
 * the month's counter on the token item, so the first spend of a month finds
 * it absent, reads the usage table's count once, seeds the counter with it
 * (`if_not_exists`: concurrent seeds agree) and tries again; every later
 * spend of the month is the one write. `used` reads the old count the same
 * way until the counter is seeded.
 *
 * Held spends: a render's spend is written with a hold, `held#<YYYY-MM>#<spendId>`
 * = `{ units, until }` on the token item, in the admission's one write. Its
 * units count against the limit like any other; the work's success removes
 * the hold (`confirm`), its failure removes it and takes the units off in one
 * conditional write (`release`). A hold nobody settled by `until` (the render
 * was killed by the runtime's timeout, with no code left to run) is not
 * counted by `used`, and the next admission of the token that sees it
 * releases it, with the same conditional write: each hold comes back once.
 *
 * Refunds: a marker item `refund#<tokenHash>#<YYYY-MM>#<spendId>` in the
 * usage table (TTL `expiresAt`) makes each refund count once, then the unit
 * goes back on the token item (on the usage table's count when the month's
 * counter is not on the token item yet: the seed then carries it).
 *
 * Refunds meet holds: an async request's spend is confirmed after the job is
 * queued, so a request killed in between leaves a hold whose units its job
 * also refunds if it fails. Each unit goes back once, whichever comes first,
 * through the hold's ledger, `held#<tokenHash>#<YYYY-MM>#<spendId>` in the
 * usage table (TTL `expiresAt`): a refund of one of its units counts itself
 * there (`ADD refunded 1`) only while the ledger is open (`released` absent),
 * and a release closes it (`SET released`) before anything else, reading how
 * many refunds got in. So:
 * - refund, then release (the job failed first): the refund gives its unit
 *   and removes the hold with it (one write, `ADD used -1 REMOVE held#…`; the
 *   spend's other units, a batch's items, stay counted as if confirmed); a
 *   release later finds no hold. Should the refund die between the ledger and
 *   that write, the release gives back only the units no refund counted.
 * - release, then refund (the hold passed first): the refund's marker goes
 *   in, its ledger write is refused, it gives nothing.
 * - both at once: each refund's ledger write lands before the release closes
 *   the ledger (the release leaves its unit to it) or after (refused: the
 *   release gives it). If such a refund removes the hold before the release's
 *   own write, that write is refused and the release gives nothing: the
 *   spend's other units stay counted, a loss and never a double.
 * - two admissions releasing the same expired hold: closing the ledger is
 *   idempotent and no refund gets in after it, so both read the same count,
 *   and the hold's conditional removal lets one of them give the units back.
 * - confirm against a release of the hold past its time (a confirmation
 *   that ran late, in a thawed environment): whichever write removes the hold
 *   wins. Release first: confirm answers false, the units are back. Confirm
 *   first: the release's write is refused, but its ledger stays closed, so a
 *   refund of those units later gives nothing (lost, never twice).
 * One ledger item per hold, however many units it holds (a batch's are many):
 * a release is two writes, a refund three.
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
    hints.set(tokenHash, { window, limit: tokenRecordFromItem(item).monthlyLimit, stale });
  };

  /** The month's count kept in the usage table before counters moved onto the token item (0 when none). */
  const carriedCount = async (key: QuotaCounterKey) => {
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tables.usage, Key: legacyQuotaKey(key), ConsistentRead: true, ProjectionExpression: '#used', ExpressionAttributeNames: { '#used': 'used' } }),
    );
    return Number(Item?.used ?? 0);
  };

  /** Puts the month's counter on the token item, starting from the usage table's count; a counter already there stays. */
  const seedCounter = async (key: QuotaCounterKey) => {
    const carried = await carriedCount(key);
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tables.tokens,
          Key: { tokenHash: key.tokenHash },
          UpdateExpression: 'SET #used = if_not_exists(#used, :carried)',
          ConditionExpression: 'attribute_exists(tokenHash)',
          ExpressionAttributeNames: { '#used': usedAttribute(key.period) },
          ExpressionAttributeValues: { ':carried': carried },
        }),
      );
    } catch (error) {
      // The token went meanwhile: the next attempt says so.
      if (awsErrorName(error) !== 'ConditionalCheckFailedException') throw error;
    }
  };

  /** The item after a conditional write, or undefined when its condition refused it. */
  const write = async (input: ConstructorParameters<typeof UpdateCommand>[0]) => {
    try {
      const { Attributes } = await dynamo.send(new UpdateCommand({ ...input, ReturnValues: 'ALL_NEW' }));
      return Attributes ?? {};
    } catch (error) {
      if (awsErrorName(error) === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
  };

  const attempt = async (request: AdmissionRequest): Promise<AdmissionOutcome | 'again'> => {
    const { tokenHash, nowMs, countRate, spendPeriod } = request;
    const units = request.units ?? 1;
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
    // A condition cannot add (used + N <= limit): N units compare against the limit this instance saw, which
    // the condition holds the item to. A token not seen yet spends one unit against the item's own limit.
    const limit = hint?.limit;
    // The first merge of a token on this instance reads the item (its limit) instead, and tries again.
    const spendBlind = spendPeriod !== undefined && limit === undefined && units > 1;
    if (spendPeriod !== undefined && !spendBlind) {
      names['#used'] = usedAttribute(spendPeriod);
      sets.push('#used = #used + :units');
      values[':units'] = units;
      if (request.hold) {
        names['#held'] = heldAttribute(spendPeriod, request.hold.spendId);
        sets.push('#held = :hold');
        values[':hold'] = { units, until: request.hold.untilMs };
      }
      // The counter must be there: absent, this month's count may still be in the usage table (the carry-over).
      conditions.push('attribute_exists(#used)');
      values[':number'] = 'N';
      if (limit === null) conditions.push('NOT attribute_type(monthlyLimit, :number)');
      else if (limit === undefined) conditions.push('(NOT attribute_type(monthlyLimit, :number) OR #used < monthlyLimit)');
      else {
        conditions.push('attribute_type(monthlyLimit, :number) AND monthlyLimit = :limit AND #used <= :most');
        values[':limit'] = limit;
        values[':most'] = limit - units;
      }
    }
    if (sets.length === 0) {
      // Nothing to count: a plain consistent read decides.
      const item = await diagnose(tokenHash);
      return item ? judge(item, request, window, windowStart, rateName) : { admitted: false, refusal: 'unknown-token' };
    }
    const stale = (hint?.stale ?? []).filter((name) => name !== rateName).slice(0, 20);
    stale.forEach((name, i) => (names[`#stale${i}`] = name));
    const remove = stale.length > 0 ? ` REMOVE ${stale.map((_, i) => `#stale${i}`).join(', ')}` : '';
    const written = spendBlind ? undefined : await write({
      TableName: tables.tokens,
      Key: { tokenHash },
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    if (written) {
      remember(tokenHash, written, rateName);
      // Holds of killed renders come back here, on the way (only when there are any), in admissions
      // that spend: a release writes the hold's ledger in the usage table, which only they may write.
      if (spendPeriod !== undefined) await releaseExpired(tokenHash, written, nowMs);
      return {
        admitted: true,
        token: tokenRecordFromItem(written),
        // The condition held rateWindow to the window assumed; its allowance is the item's.
        rate: { window: windowOf(written) ?? window, windowStart, count: Number(written[rateName] ?? 0) },
        ...(spendPeriod !== undefined ? { used: Number(written[usedAttribute(spendPeriod)] ?? 0) } : {}),
      };
    }
    // Refused (or not tried): one consistent read of the item says which check did it.
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
    if (spendPeriod !== undefined && item[usedAttribute(spendPeriod)] === undefined) {
      await seedCounter({ tokenHash, period: spendPeriod });
      return 'again';
    }
    if (spendBlind) return 'again';
    const outcome = judge(item, request, stored, windowStart, rateName);
    // Refused for a quota that expired holds fill: they come back, and the request tries again.
    if (outcome.refusal === 'quota' && (await releaseExpired(tokenHash, item, nowMs)) > 0) return 'again';
    // Every check passes on the item as read now: another request changed it in between. Try again.
    return outcome.admitted ? 'again' : outcome;
  };

  /**
   * Takes a held spend's units off the month's count, but those its refunds gave back already, and its
   * hold away, at most once (false: not held any more). See "Refunds meet holds" above for the races.
   */
  const releaseHold = async (key: QuotaCounterKey, spendId: string, units: number): Promise<boolean> => {
    // First close the hold's ledger: from this write on no refund of its units gives one, so how
    // many did is final, and every releaser of the hold reads the same count.
    const { Attributes: ledger } = await dynamo.send(
      new UpdateCommand({
        TableName: tables.usage,
        Key: holdLedgerKey(key, spendId),
        UpdateExpression: 'SET #released = :true, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
        ExpressionAttributeNames: { '#released': 'released', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ':true': true, ':expiresAt': periodExpiry(key.period) },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const back = Math.max(0, units - Number(ledger?.refunded ?? 0));
    // Then the units no refund gave and the hold away, in one conditional write that one releaser wins.
    try {
      await dynamo.send(
        new UpdateCommand({
          TableName: tables.tokens,
          Key: { tokenHash: key.tokenHash },
          UpdateExpression: 'SET #used = #used - :back REMOVE #held',
          ConditionExpression: 'attribute_exists(#held) AND #held.#units = :units',
          ExpressionAttributeNames: { '#used': usedAttribute(key.period), '#held': heldAttribute(key.period, spendId), '#units': 'units' },
          ExpressionAttributeValues: { ':units': units, ':back': back },
        }),
      );
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  };

  /** Releases the holds of a token item read at `nowMs` that are past their time; answers how many this call released. */
  const releaseExpired = async (tokenHash: string, item: Record<string, unknown>, nowMs: number): Promise<number> => {
    let released = 0;
    for (const [period, spendId, hold] of expiredHolds(item, nowMs)) {
      if (await releaseHold({ tokenHash, period }, spendId, hold.units)) released += 1;
    }
    return released;
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

    async refund(key, spendId, expiresAt, heldAs) {
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
      // Then the hold's ledger: a unit whose hold was released came back with it. Refused, this refund gives nothing.
      try {
        await dynamo.send(
          new UpdateCommand({
            TableName: tables.usage,
            Key: holdLedgerKey(key, heldAs),
            UpdateExpression: 'ADD #refunded :one SET #expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(#released)',
            ExpressionAttributeNames: { '#refunded': 'refunded', '#released': 'released', '#expiresAt': 'expiresAt' },
            ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
          }),
        );
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Refunding quota in table ${tables.usage}`, error);
      }
      // Then the unit back, and the hold (when the request that spent it was killed before confirming) away with it.
      // Without a transaction (one write each), a crash between these writes loses this refund:
      // the caller keeps paying one unit, and no unit is ever given twice.
      const giveBack = async (tableName: string, itemKey: Record<string, string>, attribute: string, hold?: string) => {
        try {
          await dynamo.send(
            new UpdateCommand({
              TableName: tableName,
              Key: itemKey,
              UpdateExpression: `ADD #used :minusOne${hold ? ' REMOVE #held' : ''}`,
              ConditionExpression: '#used > :zero',
              ExpressionAttributeNames: { '#used': attribute, ...(hold ? { '#held': hold } : {}) },
              ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
            }),
          );
          return true;
        } catch (error) {
          if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
          throw storageError(`Refunding quota in table ${tableName}`, error);
        }
      };
      if (await giveBack(tables.tokens, { tokenHash: key.tokenHash }, usedAttribute(key.period), heldAttribute(key.period, heldAs))) return true;
      // No counter of the month on the token item yet: the unit was spent on the usage table's count, which the seed will carry.
      return giveBack(tables.usage, legacyQuotaKey(key), 'used');
    },

    async confirm(key, spendId) {
      try {
        await dynamo.send(
          new UpdateCommand({
            TableName: tables.tokens,
            Key: { tokenHash: key.tokenHash },
            UpdateExpression: 'REMOVE #held',
            ConditionExpression: 'attribute_exists(#held)',
            ExpressionAttributeNames: { '#held': heldAttribute(key.period, spendId) },
          }),
        );
        return true;
      } catch (error) {
        if (awsErrorName(error) === 'ConditionalCheckFailedException') return false;
        throw storageError(`Confirming a spend in table ${tables.tokens}`, error);
      }
    },

    async release(key, spendId, units) {
      try {
        return await releaseHold(key, spendId, units);
      } catch (error) {
        throw storageError(`Releasing a held spend in tables ${tables.usage} and ${tables.tokens}`, error);
      }
    },

    async used(key, nowMs = Date.now()) {
      try {
        // The whole item: a projection cannot name the holds, whose attribute names hold their spend ids.
        const { Item } = await dynamo.send(new GetCommand({ TableName: tables.tokens, Key: { tokenHash: key.tokenHash } }));
        const used = Item?.[usedAttribute(key.period)];
        // Not seeded yet this month: the count is still the usage table's.
        if (used === undefined) return await carriedCount(key);
        // (Less the units of such a hold that refunds gave back, when a refund died before removing it: rare, not read here.)
        const returning = expiredHolds(Item as Record<string, unknown>, nowMs)
          .filter(([period]) => period === key.period)
          .reduce((sum, [, , hold]) => sum + hold.units, 0);
        return Math.max(0, Number(used) - returning);
      } catch (error) {
        throw storageError(`Reading quota usage from table ${tables.tokens}`, error);
      }
    },
  };
}

/** The usage table's ledger of a hold: the refunds of its units (`refunded`) and whether it was released (`released`). */
function holdLedgerKey(key: QuotaCounterKey, spendId: string): { pk: string } {
  return { pk: `held#${key.tokenHash}#${key.period}#${spendId}` };
}

/** The usage table's item that counted a month before the counters moved onto the token item. */
function legacyQuotaKey(key: QuotaCounterKey): { pk: string } {
  return { pk: `quota#${key.tokenHash}#${key.period}` };
}

/** The holds of a token item past their time at `nowMs`: period, spend id and hold. */
function expiredHolds(item: Record<string, unknown>, nowMs: number): [string, string, { units: number; until: number }][] {
  return Object.entries(item).flatMap(([attribute, value]) => {
    if (!attribute.startsWith(HELD_PREFIX)) return [];
    const hold = value as { units?: unknown; until?: unknown } | undefined;
    const units = Number(hold?.units);
    const until = Number(hold?.until);
    if (!Number.isInteger(units) || units < 1 || !(until <= nowMs)) return [];
    const [period, ...spendId] = attribute.slice(HELD_PREFIX.length).split('#');
    return [[period as string, spendId.join('#'), { units, until }] as [string, string, { units: number; until: number }]];
  });
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
    if (token.monthlyLimit !== null && used + (request.units ?? 1) > token.monthlyLimit) return { admitted: false, refusal: 'quota', token, rate, used };
  }
  return { admitted: true, token, rate };
}
