import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import { usageReport } from '../../../lib/quota/usage-report.js';
import { PLANS, planOf } from '../../../lib/tokens/plans.js';
import type { TokenRecord, TokenStore, TokenTermsStore } from '../../../lib/tokens/token-store.js';
import { createToken, hashToken, setTokenTerms } from '../../../lib/tokens/tokens.js';
import { memoryUsageStore } from './memory-usage-store.js';

/** An in-memory token store that also takes term changes. */
function memoryTokens() {
  const records = new Map<string, TokenRecord>();
  const store: TokenStore & TokenTermsStore = {
    findByHash: async (hash) => records.get(hash),
    create: async (record) => void records.set(record.tokenHash, { ...record }),
    setActive: async () => true,
    updateTerms: async (hash, terms) => {
      const record = records.get(hash);
      if (!record) return undefined;
      Object.assign(record, terms);
      return { ...record };
    },
  };
  return { store, records };
}

describe('createToken with plans', () => {
  it('gives a token without options the unlimited plan', async () => {
    // Prepare
    const { store, records } = memoryTokens();

    // Act
    const { token } = await createToken(store);

    // Assess
    const record = records.get(hashToken(token)) as TokenRecord;
    assert.equal(planOf(record), 'unlimited');
    assert.equal(record.monthlyLimit, null);
    assert.equal(record.ratePerSecond, PLANS.unlimited.ratePerSecond);
  });

  it("takes a plan's quota and rate, and lets --limit or --rate override them (a custom plan)", async () => {
    // Prepare
    const { store, records } = memoryTokens();

    // Act
    const free = await createToken(store, { plan: 'free' });
    const freeFaster = await createToken(store, { plan: 'free', rate: 7 });
    const proUnlimited = await createToken(store, { plan: 'pro', limit: null });

    // Assess
    const get = (token: string) => records.get(hashToken(token)) as TokenRecord;
    assert.deepEqual([get(free.token).monthlyLimit, get(free.token).ratePerSecond], [100, 2]);
    assert.equal(planOf(get(free.token)), 'free');
    assert.deepEqual([get(freeFaster.token).monthlyLimit, get(freeFaster.token).ratePerSecond], [100, 7]);
    assert.equal(planOf(get(freeFaster.token)), 'custom');
    assert.equal(get(proUnlimited.token).monthlyLimit, null);
    assert.equal(get(proUnlimited.token).ratePerSecond, PLANS.pro.ratePerSecond);
  });
});

describe('setTokenTerms', () => {
  it("moves a token to another plan's quota and rate", async () => {
    // Prepare
    const { store } = memoryTokens();
    const { token } = await createToken(store, { plan: 'free' });

    // Act
    const updated = await setTokenTerms(store, token, { plan: 'pro' });

    // Assess
    assert.equal(updated.monthlyLimit, PLANS.pro.monthlyLimit);
    assert.equal(updated.ratePerSecond, PLANS.pro.ratePerSecond);
    assert.equal(planOf(updated), 'pro');
  });

  it('changes only what it is given', async () => {
    // Prepare
    const { store } = memoryTokens();
    const { token } = await createToken(store, { plan: 'pro' });

    // Act
    const faster = await setTokenTerms(store, token, { rate: 50 });
    const unlimited = await setTokenTerms(store, token, { limit: null });

    // Assess
    assert.equal(faster.monthlyLimit, PLANS.pro.monthlyLimit);
    assert.equal(faster.ratePerSecond, 50);
    assert.equal(unlimited.monthlyLimit, null);
    assert.equal(unlimited.ratePerSecond, 50);
  });

  it('throws ValidationError for a bad limit or rate, or nothing to change, and NotFoundError for an unknown token', async () => {
    // Prepare
    const { store, records } = memoryTokens();
    const { token } = await createToken(store, { plan: 'free' });

    // Act & Assess
    await assert.rejects(setTokenTerms(store, token, { limit: 1.5, rate: -1 }), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields).sort(), ['limit', 'rate']);
      return true;
    });
    await assert.rejects(setTokenTerms(store, token, {}), ValidationError);
    await assert.rejects(setTokenTerms(store, 'dr_never_issued_0000000000', { rate: 1 }), NotFoundError);
    assert.equal(planOf(records.get(hashToken(token)) as TokenRecord), 'free', 'unchanged after the refusals');
  });
});

describe('usageReport', () => {
  it("answers the token's plan, this month's quota and its rate", async () => {
    // Prepare
    const { store, records } = memoryTokens();
    const { token } = await createToken(store, { plan: 'free' });
    const record = records.get(hashToken(token)) as TokenRecord;
    const usage = memoryUsageStore((hash) => records.get(hash));
    const now = new Date('2026-03-15T10:00:00Z');
    await usage.store.admit({ tokenHash: record.tokenHash, nowMs: now.getTime(), countRate: true, spendPeriod: '2026-03' });

    // Act
    const report = await usageReport(usage.store, record, now);

    // Assess
    assert.deepEqual(report, {
      plan: 'free',
      quota: { limit: 100, used: 1, remaining: 99, period: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' } },
      rate: { perSecond: 2 },
    });
  });
});
