import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createAwsClients } from '../../../lib/aws/clients.js';
import { createDynamoTokenStore } from '../../../lib/aws/dynamo-token-store.js';
import { createDynamoUsageStore } from '../../../lib/aws/dynamo-usage-store.js';
import { StorageError } from '../../../lib/aws/errors.js';
import { QuotaExceededError, RateLimitedError, SubscriptionInactiveError, UnauthorizedError } from '../../../lib/errors.js';
import { admitRequest } from '../../../lib/quota/admission.js';
import { confirmQuota, readQuota, refundQuota, releaseQuota, unitSpend, type QuotaSpend } from '../../../lib/quota/quota.js';
import type { UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { generateToken, hashToken } from '../../../lib/tokens/tokens.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

const NOW = new Date('2026-06-15T12:00:00Z');

function record(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    tokenHash: hashToken(generateToken()),
    accountId: 'acct-1',
    active: true,
    monthlyLimit: 10,
    // Far above what these tests send, unless a test is about the rate.
    ratePerSecond: 1000,
    webhookSecret: 'whsec_c2VjcmV0',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Spends a unit as a render does that succeeds: one admission counting rate and quota together, then its confirmation. */
async function spendQuota(store: UsageStore, subscriber: TokenRecord, spendId: string, now = NOW): Promise<QuotaSpend> {
  const { heldUntil: _held, ...spend } = await holdQuota(store, subscriber, spendId, now);
  await confirmQuota(store, spend);
  return spend;
}

/** Spends a unit as a render does before it knows how it ends: held, neither confirmed nor given back. */
async function holdQuota(store: UsageStore, subscriber: TokenRecord, spendId: string, now = NOW): Promise<QuotaSpend> {
  const admitted = await admitRequest(store, subscriber.tokenHash, { countRate: true, spendId }, now.getTime());
  return admitted.spend as QuotaSpend;
}

describe('createDynamoUsageStore', () => {
  let aws: LocalAwsForTests;
  /** One store per simulated Lambda instance, each with its own SDK client and connections. */
  let instances: UsageStore[];
  const extraClients: ReturnType<typeof createAwsClients>[] = [];

  before(async () => {
    aws = await withLocalAws();
    for (let i = 0; i < 4; i++) extraClients.push(createAwsClients(aws.config));
    instances = [aws.clients, ...extraClients].map((c) => createDynamoUsageStore(c.dynamo, { tokens: aws.config.tables.tokens, usage: aws.config.tables.usage }));
  });
  /** A token issued as the tokens CLI issues it (createDynamoTokenStore). */
  const token = async (overrides: Partial<TokenRecord> = {}) => {
    const stored = record(overrides);
    await createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens).create(stored);
    return stored;
  };
  after(async () => {
    for (const c of extraClients) c.dynamo.destroy();
    await aws.stop();
  });
  const store = () => instances[0] as UsageStore;

  it('accepts exactly 10 of 50 concurrent renders against a quota of 10, across instances', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 10 });

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-${i}`, NOW)),
    );

    // Assess
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(accepted.length, 10);
    assert.equal(refused.length, 40);
    for (const r of refused) assert.ok(r.reason instanceof QuotaExceededError, String(r.reason));
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 10);
  });

  it('gives back the unit of a render that never settled its spend (killed by the runtime) once its hold has passed; a confirmed one stays', async () => {
    // Prepare: two renders spend a quota of 2; one succeeds (confirmed), the other is killed mid-render: nothing of it runs again.
    const subscriber = await token({ monthlyLimit: 2 });
    await spendQuota(store(), subscriber, 'succeeded', NOW);
    const killed = await holdQuota(store(), subscriber, 'killed', NOW);
    await assert.rejects(spendQuota(store(), subscriber, 'meanwhile', new Date(NOW.getTime() + 60_000)), QuotaExceededError);
    const later = new Date((killed.heldUntil as number) + 1);

    // Act
    const usedLater = (await readQuota(store(), subscriber, later)).used;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `later-${i}`, later)),
    );

    // Assess: the killed render's unit came back, once, though ten admissions on five instances saw its hold expired
    assert.equal(usedLater, 1, 'an expired hold is not counted');
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.equal((await readQuota(store(), subscriber, later)).used, 2);
    assert.equal(await releaseQuota(store(), killed), false, 'a late refund of the killed render changes nothing');
    assert.equal((await readQuota(store(), subscriber, later)).used, 2);
  });

  it('gives a held spend back at once when its render fails, all its units together, once', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 1 });
    const failed = await holdQuota(store(), subscriber, 'failed', NOW);

    // Act
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => releaseQuota(instances[i % instances.length] as UsageStore, failed)));

    // Assess
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 0);
    assert.equal(await confirmQuota(store(), failed), false, 'nothing left to confirm');
  });

  describe('an async request killed between queuing its job and confirming its spend, whose job then fails', () => {
    /** The spend as the API handed it to the job (confirmed first, it carries no hold), and the moment its hold has passed. */
    const queued = async (subscriber: TokenRecord, spendId: string, units: number) => {
      const held = (await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId, units }, NOW.getTime())).spend as QuotaSpend;
      const { heldUntil, ...job } = held;
      return { job, later: new Date((heldUntil as number) + 1) };
    };
    /** Another render of the token past the hold: its admission releases expired holds on the way. */
    const renderLater = (subscriber: TokenRecord, later: Date, spendId: string) =>
      spendQuota(instances[3] as UsageStore, subscriber, spendId, later);

    for (const units of [1, 3]) {
      it(`gives its ${units} unit(s) back once when the hold passes before the job fails`, async () => {
        // Prepare
        const subscriber = await token({ monthlyLimit: null });
        const { job, later } = await queued(subscriber, `async-a-${units}`, units);
        await renderLater(subscriber, later, 'releases-the-hold');

        // Act
        const refunded = await refundQuota(instances[1] as UsageStore, job);

        // Assess: only the later render stays counted
        assert.equal(refunded, false, 'the units already came back with the hold');
        assert.equal((await readQuota(store(), subscriber, later)).used, 1);
      });

      it(`gives its ${units} unit(s) back once when the job fails before the hold passes`, async () => {
        // Prepare
        const subscriber = await token({ monthlyLimit: null });
        const { job, later } = await queued(subscriber, `async-b-${units}`, units);
        const refunded = await refundQuota(instances[1] as UsageStore, job);

        // Act
        const usedOnceExpired = (await readQuota(store(), subscriber, later)).used;
        await renderLater(subscriber, later, 'would-release-the-hold');

        // Assess
        assert.equal(refunded, true);
        assert.equal(usedOnceExpired, 0, 'nothing is on its way back twice');
        assert.equal((await readQuota(store(), subscriber, later)).used, 1);
      });
    }

    it('gives nothing more for the job when the request failed after queuing it and gave its units back', async () => {
      // Prepare: one render confirmed, then an async merge of 2 whose request fails (5xx) once its job is queued
      const subscriber = await token({ monthlyLimit: null });
      await spendQuota(store(), subscriber, 'confirmed');
      const held = (await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'failed-after-queuing', units: 2 }, NOW.getTime())).spend as QuotaSpend;
      const released = await releaseQuota(store(), held);
      const { heldUntil: _held, ...job } = held;

      // Act
      const refunded = await refundQuota(instances[2] as UsageStore, job);

      // Assess
      assert.deepEqual([released, refunded], [true, false]);
      assert.equal((await readQuota(store(), subscriber, NOW)).used, 1);
    });

    it('gives each unit of a batch back once when some items fail before the hold passes and the rest after', async () => {
      // Prepare: a batch of 4 items (one unit each); item 1 fails before the hold passes, items 2 and 3 after
      const subscriber = await token({ monthlyLimit: null });
      const { job: batch, later } = await queued(subscriber, 'batch', 4);
      const early = await refundQuota(instances[1] as UsageStore, unitSpend(batch, 1));

      // Act
      await renderLater(subscriber, later, 'after-the-hold');
      const late = await Promise.all([2, 3].map((i) => refundQuota(instances[i] as UsageStore, unitSpend(batch, i))));

      // Assess: 4 spent, 3 given back once each, the later render counted
      assert.deepEqual([early, ...late], [true, true, true]);
      assert.equal((await readQuota(store(), subscriber, later)).used, 2);
    });

    it('gives its units back once when the refund and five releases of the expired hold race', async () => {
      // Prepare
      const subscriber = await token({ monthlyLimit: null });
      const { job, later } = await queued(subscriber, 'racing', 3);

      // Act
      await Promise.all([
        refundQuota(instances[0] as UsageStore, job),
        ...Array.from({ length: 5 }, (_, i) => renderLater(subscriber, later, `race-${i}`)),
      ]);

      // Assess: at most the 3 units back (a refund lost to the race is allowed), never more
      const used = (await readQuota(store(), subscriber, later)).used;
      assert.ok(used >= 5 && used <= 8, `used ${used}`);
    });
  });

  it('counts every render of an unlimited token, concurrent ones included', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: null });

    // Act
    await Promise.all(Array.from({ length: 25 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-${i}`, NOW)));

    // Assess
    assert.deepEqual(await readQuota(store(), subscriber, NOW), {
      limit: null,
      used: 25,
      remaining: null,
      period: { start: '2026-06-01T00:00:00.000Z', end: '2026-07-01T00:00:00.000Z' },
    });
  });

  it('counts a refund once, even when it is asked for 20 times at once from several instances', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 3 });
    const spends = [];
    for (let i = 0; i < 3; i++) spends.push(await spendQuota(store(), subscriber, `req-${i}`, NOW));
    const failed = spends[1] as (typeof spends)[number];

    // Act
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refundQuota(instances[i % instances.length] as UsageStore, failed)),
    );

    // Assess
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 2);
  });

  it('makes room for exactly one more render after one refund of a spent quota', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 2 });
    const first = await spendQuota(store(), subscriber, 'req-a', NOW);
    await spendQuota(store(), subscriber, 'req-b', NOW);
    await refundQuota(store(), first);

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-c${i}`, NOW)),
    );

    // Assess
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.equal((await readQuota(store(), subscriber, NOW)).remaining, 0);
  });

  it('keeps the token item the same size however many refunds it takes, each marker expiring', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: null });
    const spends = await Promise.all(Array.from({ length: 60 }, (_, i) => spendQuota(store(), subscriber, `refund-me-${i}`, NOW)));

    // Act
    const refunded = await Promise.all(spends.map((spend) => refundQuota(store(), spend)));
    const again = await Promise.all(spends.map((spend) => refundQuota(store(), spend)));

    // Assess
    const { Item: item } = await aws.clients.dynamo.send(new GetCommand({ TableName: aws.config.tables.tokens, Key: { tokenHash: subscriber.tokenHash } }));
    const { Item: marker } = await aws.clients.dynamo.send(
      new GetCommand({ TableName: aws.config.tables.usage, Key: { pk: `refund#${subscriber.tokenHash}#2026-06#refund-me-7` } }),
    );
    assert.deepEqual([refunded.filter(Boolean).length, again.filter(Boolean).length], [60, 0]);
    assert.equal(item?.['used#2026-06'], 0);
    assert.ok(Object.keys(item ?? {}).length < 20, `the token item holds ${Object.keys(item ?? {}).length} attributes`);
    assert.equal(typeof marker?.expiresAt, 'number');
  });

  it('never counts below zero: a refund without a spend changes nothing', async () => {
    // Prepare
    const subscriber = await token();

    // Act
    const refunded = await refundQuota(store(), { tokenHash: subscriber.tokenHash, period: '2026-06', spendId: 'ghost' });

    // Assess
    assert.equal(refunded, false);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 0);
  });

  it('keeps months apart: last month spent out does not limit this month', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 1 });
    await spendQuota(store(), subscriber, 'may', new Date('2026-05-31T23:59:59Z'));

    // Act
    const june = await spendQuota(store(), subscriber, 'june', NOW);

    // Assess
    assert.equal(june.period, '2026-06');
    assert.equal((await readQuota(store(), subscriber, new Date('2026-05-20T00:00:00Z'))).used, 1);
  });

  it('counts 25 concurrent requests in one rate window exactly across instances: 10 allowed at 10/s, 15 refused', async () => {
    // Prepare
    const caller = await token({ ratePerSecond: 10 });
    const inOneSecond = Date.UTC(2026, 5, 15, 12, 0, 0) + 500;

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => admitRequest(instances[i % instances.length] as UsageStore, caller.tokenHash, { countRate: true }, inOneSecond)),
    );

    // Assess
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(admitted.length, 10);
    assert.equal(refused.length, 15);
    for (const r of refused) assert.ok(r.reason instanceof RateLimitedError, String(r.reason));
    assert.deepEqual(admitted.map((a) => a.rateLimit.remaining).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('spends a quota of 5 exactly under 40 concurrent renders at a rate of 8/s: rate and quota are one write', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 5, ratePerSecond: 8 });
    const inOneSecond = Date.UTC(2026, 5, 15, 12, 0, 0) + 100;

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        admitRequest(instances[i % instances.length] as UsageStore, subscriber.tokenHash, { countRate: true, spendId: `r-${i}` }, inOneSecond),
      ),
    );

    // Assess: 5 renders, and no request refused for its quota took a unit or more than the rate's room
    const reasons = outcomes.map((o) => (o.status === 'fulfilled' ? 'admitted' : (o.reason as Error).constructor.name));
    assert.equal(reasons.filter((r) => r === 'admitted').length, 5);
    assert.ok(reasons.every((r) => ['admitted', 'QuotaExceededError', 'RateLimitedError'].includes(r)), reasons.join());
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 5);
  });

  it('starts each rate window at zero, keeps tokens apart, and drops the counts of past windows from the item', async () => {
    // Prepare
    const caller = await token({ ratePerSecond: 1 });
    const other = await token({ ratePerSecond: 1 });
    const second = Date.UTC(2026, 5, 15, 12, 0, 0);
    await admitRequest(store(), caller.tokenHash, { countRate: true }, second);

    // Act
    const sameSecond = await admitRequest(store(), caller.tokenHash, { countRate: true }, second + 999).catch((error: unknown) => error);
    const otherToken = await admitRequest(store(), other.tokenHash, { countRate: true }, second + 999);
    const nextSecond = await admitRequest(store(), caller.tokenHash, { countRate: true }, second + 1000);
    for (let i = 2; i < 30; i++) await admitRequest(store(), caller.tokenHash, { countRate: true }, second + i * 1000);

    // Assess
    assert.ok(sameSecond instanceof RateLimitedError);
    assert.equal(otherToken.rateLimit.remaining, 0);
    assert.equal(nextSecond.rateLimit.exceeded, false);
    const { Item: item } = await aws.clients.dynamo.send(new GetCommand({ TableName: aws.config.tables.tokens, Key: { tokenHash: caller.tokenHash } }));
    assert.ok(Object.keys(item ?? {}).filter((name) => name.startsWith('rate#')).length <= 2, Object.keys(item ?? {}).join());
  });

  it('enforces a fractional rate over its longer window, also on a token stored before windows were (2 per 5 s)', async () => {
    // Prepare: an item as an older version wrote it, without rateWindow and rateAllowed
    const caller = record({ ratePerSecond: 0.4 });
    await aws.clients.dynamo.send(new PutCommand({ TableName: aws.config.tables.tokens, Item: { ...caller } }));
    const windowStart = Date.UTC(2026, 5, 15, 12, 0, 0);

    // Act: one after the other, as the clock runs (sent at once, DynamoDB Local under LocalStack takes them in any order)
    const outcomes: PromiseSettledResult<unknown>[] = [];
    for (const at of [0, 1000, 2000, 4999, 5000]) {
      outcomes.push(...(await Promise.allSettled([admitRequest(instances[1] as UsageStore, caller.tokenHash, { countRate: true }, windowStart + at)])));
    }

    // Assess
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
  });

  it('refuses an unknown token (401), then an inactive one (403) at once, counting nothing', async () => {
    // Prepare
    const tokens = createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens);
    const subscriber = await token({ monthlyLimit: 3 });
    await spendQuota(instances[2] as UsageStore, subscriber, 'before');

    // Act
    const unknown = await admitRequest(store(), hashToken(generateToken()), { countRate: true, spendId: 'x' }).catch((e: unknown) => e);
    await tokens.setActive(subscriber.tokenHash, false);
    const inactive = await admitRequest(instances[2] as UsageStore, subscriber.tokenHash, { countRate: true, spendId: 'after' }, NOW.getTime()).catch((e: unknown) => e);

    // Assess: the instance that admitted the token a moment ago refuses it now: nothing is cached
    assert.ok(unknown instanceof UnauthorizedError);
    assert.ok(inactive instanceof SubscriptionInactiveError);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 1);
  });

  it('refuses a spent quota with 402 and still counts the request against the rate', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 0, ratePerSecond: 2 });
    const at = Date.UTC(2026, 5, 15, 12, 0, 0);

    // Act
    const first = await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'a' }, at).catch((e: unknown) => e);
    const second = await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'b' }, at).catch((e: unknown) => e);
    const third = await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'c' }, at).catch((e: unknown) => e);

    // Assess
    assert.ok(first instanceof QuotaExceededError);
    assert.ok(second instanceof QuotaExceededError);
    assert.ok(third instanceof RateLimitedError, String(third));
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 0);
  });

  it('spends in a second write after a rate-only admission (a template render that needed its account first), exactly', async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 1 });
    await admitRequest(instances[3] as UsageStore, subscriber.tokenHash, { countRate: true }, NOW.getTime());

    // Act
    const spent = await admitRequest(instances[3] as UsageStore, subscriber.tokenHash, { countRate: false, spendId: 'tpl-1' }, NOW.getTime());
    await admitRequest(instances[3] as UsageStore, subscriber.tokenHash, { countRate: true }, NOW.getTime());
    const again = await admitRequest(instances[3] as UsageStore, subscriber.tokenHash, { countRate: false, spendId: 'tpl-2' }, NOW.getTime()).catch((e: unknown) => e);

    // Assess
    assert.equal(spent.spend?.spendId, 'tpl-1');
    assert.ok(again instanceof QuotaExceededError, String(again));
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 1);
  });

  it("spends a merge's units all or none: 12 concurrent merges of 3 parts on 5 instances against a quota of 10 take 9", async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 10 });

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        admitRequest(instances[i % instances.length] as UsageStore, subscriber.tokenHash, { countRate: true, spendId: `merge-${i}`, units: 3 }, NOW.getTime()),
      ),
    );
    const fourth = await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'merge-x', units: 2 }, NOW.getTime()).catch((e: unknown) => e);
    const last = await spendQuota(store(), subscriber, 'single');

    // Assess
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(admitted.length, 3);
    for (const r of refused) assert.ok(r.reason instanceof QuotaExceededError, String(r.reason));
    assert.ok(fourth instanceof QuotaExceededError, 'two units do not fit in the one left');
    assert.equal(last.spendId, 'single');
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 10);
    assert.equal(admitted[0]?.spend?.units, 3);
  });

  it("gives a merge's units all back on refund, once", async () => {
    // Prepare
    const subscriber = await token({ monthlyLimit: 5 });
    const merge = (await admitRequest(store(), subscriber.tokenHash, { countRate: true, spendId: 'merge', units: 4 }, NOW.getTime())).spend as QuotaSpend;

    // Act
    const first = await refundQuota(instances[1] as UsageStore, merge);
    const again = await refundQuota(instances[2] as UsageStore, merge);

    // Assess
    assert.deepEqual([first, again], [true, false]);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 0);
  });

  it('holds a merge to a limit lowered after this instance last saw the token', async () => {
    // Prepare
    const tokens = createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens);
    const subscriber = await token({ monthlyLimit: 10 });
    await spendQuota(instances[4] as UsageStore, subscriber, 'seen-at-10');
    await tokens.updateTerms(subscriber.tokenHash, { monthlyLimit: 3 });

    // Act
    const refused = await admitRequest(instances[4] as UsageStore, subscriber.tokenHash, { countRate: true, spendId: 'm', units: 3 }, NOW.getTime()).catch((e: unknown) => e);
    const fits = await admitRequest(instances[4] as UsageStore, subscriber.tokenHash, { countRate: true, spendId: 'n', units: 2 }, NOW.getTime());

    // Assess
    assert.ok(refused instanceof QuotaExceededError, String(refused));
    assert.equal(fits.spend?.units, 2);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 3);
  });

  describe('carry-over of the month counted in the usage table before the upgrade', () => {
    /** The month's count as the version before kept it: `quota#<tokenHash>#<YYYY-MM>` in the usage table. */
    const countedBefore = (subscriber: TokenRecord, used: number) =>
      aws.clients.dynamo.send(new PutCommand({ TableName: aws.config.tables.usage, Item: { pk: `quota#${subscriber.tokenHash}#2026-06`, used, expiresAt: 1 } }));
    /** A store on its own instance whose every DynamoDB call is counted. */
    const countingStore = () => {
      const sent: string[] = [];
      const dynamo = {
        send: (command: { constructor: { name: string }; input: { TableName?: string } }) => {
          sent.push(`${command.constructor.name} ${command.input.TableName}`);
          return aws.clients.dynamo.send(command as never);
        },
      } as unknown as typeof aws.clients.dynamo;
      return { sent, store: createDynamoUsageStore(dynamo, { tokens: aws.config.tables.tokens, usage: aws.config.tables.usage }) };
    };

    it("keeps the month's count: 7 used before, a quota of 10 admits exactly 3 of 20 concurrent renders on 5 instances", async () => {
      // Prepare
      const subscriber = await token({ monthlyLimit: 10 });
      await countedBefore(subscriber, 7);

      // Act
      const before = await readQuota(store(), subscriber, NOW);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-${i}`, NOW)),
      );

      // Assess
      assert.equal(before.used, 7);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 3);
      assert.equal((await readQuota(store(), subscriber, NOW)).used, 10);
    });

    it('reads the old count once: the first render of the month seeds the counter, every later one is one write', async () => {
      // Prepare
      const subscriber = await token({ monthlyLimit: null });
      await countedBefore(subscriber, 41);
      const { sent, store: counted } = countingStore();

      // Act: admissions alone (a render's confirmation is its own write, after the work)
      await holdQuota(counted, subscriber, 'first');
      const first = sent.splice(0);
      await holdQuota(counted, subscriber, 'second');
      await holdQuota(counted, subscriber, 'third');
      const later = sent.splice(0);

      // Assess
      assert.equal(first.filter((call) => call === `GetCommand ${aws.config.tables.usage}`).length, 1, first.join());
      assert.deepEqual(later, [`UpdateCommand ${aws.config.tables.tokens}`, `UpdateCommand ${aws.config.tables.tokens}`]);
      assert.equal((await readQuota(store(), subscriber, NOW)).used, 44);
    });

    it('gives a unit spent before the upgrade back to the old count, which the seed then carries', async () => {
      // Prepare
      const subscriber = await token({ monthlyLimit: 5 });
      await countedBefore(subscriber, 5);

      // Act
      const refunded = await refundQuota(store(), { tokenHash: subscriber.tokenHash, period: '2026-06', spendId: 'spent-before' });
      const spent = await spendQuota(instances[1] as UsageStore, subscriber, 'after');
      const full = await spendQuota(instances[2] as UsageStore, subscriber, 'over').catch((e: unknown) => e);

      // Assess
      assert.equal(refunded, true);
      assert.equal(spent.spendId, 'after');
      assert.ok(full instanceof QuotaExceededError, String(full));
      assert.equal((await readQuota(store(), subscriber, NOW)).used, 5);
    });
  });

  it('throws StorageError, not an SDK exception, when the table is missing', async () => {
    // Prepare
    const missing = createDynamoUsageStore(aws.clients.dynamo, { tokens: 'no-such-table', usage: 'no-such-table' });

    // Act & Assess
    await assert.rejects(spendQuota(missing, record(), 'r', NOW), StorageError);
    await assert.rejects(admitRequest(missing, record().tokenHash, { countRate: true }), StorageError);
  });
});
