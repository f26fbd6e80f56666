import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QuotaExceededError } from '../../../lib/errors.js';
import { admitRequest, SPEND_HOLD_MS } from '../../../lib/quota/admission.js';
import { billingPeriod, readQuota, refundQuota, unitSpend, type QuotaSpend } from '../../../lib/quota/quota.js';
import type { UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { memoryUsageStore as counters } from './memory-usage-store.js';

/** The token record the in-memory counters admit against: the one last spent with. */
let subscriber: TokenRecord | undefined;
const memoryUsageStore = () => counters(() => subscriber);

/** Spends `units` units (default one) as a render's admission does. */
async function spendQuota(store: UsageStore, record: TokenRecord, spendId: string, now = new Date(), units = 1): Promise<QuotaSpend> {
  subscriber = record;
  return (await admitRequest(store, record.tokenHash, { countRate: false, spendId, units }, now.getTime())).spend as QuotaSpend;
}

const token = (monthlyLimit: number | null): TokenRecord => ({
  tokenHash: 'a'.repeat(64),
  accountId: 'acct',
  active: true,
  monthlyLimit,
  ratePerSecond: 10,
  webhookSecret: 'whsec_x',
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('billingPeriod', () => {
  it('is the calendar month in UTC, whatever the local offset of the instant', () => {
    // Act
    const lastInstant = billingPeriod(new Date('2026-01-31T23:59:59.999Z'));
    const firstInstant = billingPeriod(new Date('2026-02-01T00:00:00.000+00:00'));
    const lateEvening = billingPeriod(new Date('2026-02-28T20:00:00-08:00'));

    // Assess
    assert.equal(lastInstant.key, '2026-01');
    assert.equal(lastInstant.end.toISOString(), '2026-02-01T00:00:00.000Z');
    assert.equal(firstInstant.key, '2026-02');
    assert.equal(firstInstant.start.toISOString(), '2026-02-01T00:00:00.000Z');
    assert.equal(lateEvening.key, '2026-03', 'Feb 28 20:00 in California is March 1 in UTC');
  });

  it('rolls December over into January of the next year', () => {
    // Act
    const period = billingPeriod(new Date('2026-12-15T12:00:00Z'));

    // Assess
    assert.equal(period.key, '2026-12');
    assert.equal(period.end.toISOString(), '2027-01-01T00:00:00.000Z');
  });
});

describe('spending quota (admitRequest)', () => {
  it('accepts exactly the limit, then throws QuotaExceededError naming when the quota renews', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = new Date('2026-06-10T00:00:00Z');

    // Act
    await spendQuota(usage.store, token(2), 'r1', now);
    await spendQuota(usage.store, token(2), 'r2', now);
    const third = spendQuota(usage.store, token(2), 'r3', now);

    // Assess
    await assert.rejects(third, (error) => {
      assert.ok(error instanceof QuotaExceededError);
      assert.equal(error.statusCode, 402);
      assert.match(error.message, /2026-07-01T00:00:00\.000Z/);
      return true;
    });
    assert.equal(usage.usedBy('a'.repeat(64), '2026-06'), 2);
  });

  it('starts afresh in the next month', async () => {
    // Prepare
    const usage = memoryUsageStore();
    await spendQuota(usage.store, token(1), 'r1', new Date('2026-06-30T23:59:59Z'));

    // Act
    const spend = await spendQuota(usage.store, token(1), 'r2', new Date('2026-07-01T00:00:00Z'));

    // Assess
    assert.equal(spend.period, '2026-07');
  });

  it('refuses every render of a zero quota without counting anything', async () => {
    // Prepare
    const usage = memoryUsageStore();

    // Act & Assess
    await assert.rejects(spendQuota(usage.store, token(0), 'r1', new Date('2026-06-10T00:00:00Z')), QuotaExceededError);
    assert.equal(usage.usedBy('a'.repeat(64), '2026-06'), 0);
  });

  it('counts the renders of an unlimited token so that its usage can be reported', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = new Date('2026-06-10T00:00:00Z');

    // Act
    for (let i = 0; i < 3; i++) await spendQuota(usage.store, token(null), `r${i}`, now);
    const report = await readQuota(usage.store, token(null), now);

    // Assess
    assert.deepEqual(report, {
      limit: null,
      used: 3,
      remaining: null,
      period: { start: '2026-06-01T00:00:00.000Z', end: '2026-07-01T00:00:00.000Z' },
    });
  });
});

describe('refundQuota', () => {
  it('gives a spent unit back once, however often it is asked', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = new Date('2026-06-10T00:00:00Z');
    const spend = await spendQuota(usage.store, token(5), 'req-1', now);
    await spendQuota(usage.store, token(5), 'req-2', now);

    // Act
    const first = await refundQuota(usage.store, spend);
    const again = await refundQuota(usage.store, spend);

    // Assess
    assert.equal(first, true);
    assert.equal(again, false);
    assert.equal((await readQuota(usage.store, token(5), now)).used, 1);
  });

  describe("an async request killed before confirming its spend, whose job fails (the in-memory store's rule)", () => {
    const now = new Date('2026-06-10T00:00:00Z');
    const later = new Date(now.getTime() + SPEND_HOLD_MS + 1);

    it('gives the units back once when the hold passes first', async () => {
      // Prepare
      const usage = memoryUsageStore();
      const { heldUntil: _held, ...job } = await spendQuota(usage.store, token(null), 'job', now, 2);
      await spendQuota(usage.store, token(null), 'releases-the-hold', later);

      // Act
      const refunded = await refundQuota(usage.store, job);

      // Assess
      assert.equal(refunded, false);
      assert.equal((await readQuota(usage.store, token(null), later)).used, 1);
    });

    it('gives the units back once when the job fails first', async () => {
      // Prepare
      const usage = memoryUsageStore();
      const { heldUntil: _held, ...job } = await spendQuota(usage.store, token(null), 'job', now, 2);
      const refunded = await refundQuota(usage.store, job);

      // Act
      await spendQuota(usage.store, token(null), 'would-release-the-hold', later);

      // Assess
      assert.equal(refunded, true);
      assert.equal(usage.heldOf('a'.repeat(64)), 1, 'only the later render is held');
      assert.equal((await readQuota(usage.store, token(null), later)).used, 1);
    });
  });
});

describe('readQuota', () => {
  it('reports the limit, units used and units left this month', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = new Date('2026-06-10T00:00:00Z');
    for (let i = 0; i < 4; i++) await spendQuota(usage.store, token(10), `r${i}`, now);

    // Act
    const report = await readQuota(usage.store, token(10), now);

    // Assess
    assert.equal(report.limit, 10);
    assert.equal(report.used, 4);
    assert.equal(report.remaining, 6);
  });

  it('never reports a negative remainder after the limit was lowered below what was used', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = new Date('2026-06-10T00:00:00Z');
    for (let i = 0; i < 4; i++) await spendQuota(usage.store, token(10), `r${i}`, now);

    // Act
    const report = await readQuota(usage.store, token(2), now);

    // Assess
    assert.equal(report.used, 4);
    assert.equal(report.remaining, 0);
  });
});

describe('spending several units (a merge: one per rendered part)', () => {
  const NOW = new Date('2026-05-10T12:00:00Z');

  it('spends all units or none: a request that does not fit answers 402 and leaves the count as it was', async () => {
    // Prepare
    const { store } = memoryUsageStore();
    const limited = token(4);
    await spendQuota(store, limited, 'before', NOW);

    // Act
    const spend = await spendQuota(store, limited, 'merge-1', NOW, 2);
    const refused = spendQuota(store, limited, 'merge-2', NOW, 2);

    // Assess
    assert.equal(spend.units, 2);
    await assert.rejects(refused, QuotaExceededError);
    assert.equal((await readQuota(store, limited, NOW)).used, 3);
  });

  it('gives every unit back on refund, once', async () => {
    // Prepare
    const { store } = memoryUsageStore();
    const spend = await spendQuota(store, token(null), 'merge', NOW, 3);

    // Act
    const first = await refundQuota(store, spend);
    const again = await refundQuota(store, spend);

    // Assess
    assert.equal(first, true);
    assert.equal(again, false);
    assert.equal((await readQuota(store, token(null), NOW)).used, 0);
  });
});

describe('unitSpend', () => {
  it("names each unit of a spend as the spend's own ids do: the first the request's, the n-th `<spendId>#<n>`", () => {
    const spend = { tokenHash: 'h', period: '2026-11', spendId: 'req-1', units: 100_000 };
    assert.deepEqual(unitSpend(spend, 0), { tokenHash: 'h', period: '2026-11', spendId: 'req-1', heldAs: 'req-1' });
    assert.equal(unitSpend(spend, 1).spendId, 'req-1#2');
    assert.equal(unitSpend(spend, 1).heldAs, 'req-1', "a unit's refund settles the request's hold");
    assert.equal(unitSpend(spend, 99_999).spendId, 'req-1#100000');
  });
});
