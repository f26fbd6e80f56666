import type { QuotaCounterKey, UsageStore } from '../../../lib/quota/usage-store.js';

/**
 * An in-memory UsageStore with the DynamoDB adapter's semantics (conditional
 * spend, refund once per spend id), for unit tests. `fail` makes the next
 * calls of a method reject, as a store outage would; `saturate` puts a token
 * past its rate whatever the clock says.
 */
export function memoryUsageStore() {
  const quota = new Map<string, { used: number; refunded: Set<string> }>();
  const windows = new Map<string, number>();
  const failing = new Set<keyof UsageStore>();
  const saturated = new Set<string>();
  const calls: { method: keyof UsageStore; args: unknown[] }[] = [];
  const id = (key: QuotaCounterKey) => `${key.tokenHash}#${key.period}`;
  const guard = (method: keyof UsageStore, args: unknown[]) => {
    calls.push({ method, args });
    if (failing.has(method)) throw new Error(`${method} is down`);
  };
  const store: UsageStore = {
    async spend(key, limit, expiresAt) {
      guard('spend', [key, limit, expiresAt]);
      const counter = quota.get(id(key)) ?? { used: 0, refunded: new Set<string>() };
      if (limit !== null && counter.used >= limit) return undefined;
      counter.used += 1;
      quota.set(id(key), counter);
      return counter.used;
    },
    async refund(key, spendId, expiresAt) {
      guard('refund', [key, spendId, expiresAt]);
      const counter = quota.get(id(key));
      if (!counter || counter.used <= 0 || counter.refunded.has(spendId)) return false;
      counter.used -= 1;
      counter.refunded.add(spendId);
      return true;
    },
    async used(key) {
      guard('used', [key]);
      return quota.get(id(key))?.used ?? 0;
    },
    async countRequest(tokenHash, windowStart, expiresAt) {
      guard('countRequest', [tokenHash, windowStart, expiresAt]);
      const key = `${tokenHash}#${windowStart}`;
      const count = (windows.get(key) ?? 0) + (saturated.has(tokenHash) ? 1_000_000 : 1);
      windows.set(key, count);
      return count;
    },
  };
  return {
    store,
    calls,
    /** Units counted for the token in the period. */
    usedBy: (tokenHash: string, period: string) => quota.get(`${tokenHash}#${period}`)?.used ?? 0,
    fail: (method: keyof UsageStore) => failing.add(method),
    /** From now on the token's every window is already far past any rate. */
    saturate: (tokenHash: string) => saturated.add(tokenHash),
  };
}
