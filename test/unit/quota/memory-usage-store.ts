import { rateWindow } from '../../../lib/quota/rate-limit.js';
import type { QuotaCounterKey, UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';

/**
 * An in-memory UsageStore with the DynamoDB adapter's semantics (one
 * admission counts rate and quota (all its units) together or not at all, checks in the
 * contract's order; refund once per spend id; held spends confirmed, released or
 * given back by the next admission past their hold), for unit tests, over the
 * token records `tokens` finds. `fail` makes the next calls of a method
 * reject, as a store outage would; `saturate` puts a token past its rate
 * whatever the clock says.
 */
export function memoryUsageStore(tokens: (tokenHash: string) => TokenRecord | undefined) {
  const quota = new Map<string, { used: number; refunded: Set<string> }>();
  /** Held spends by `<tokenHash>#<period>#<spendId>`: their units and when they come back (epoch ms). */
  const holds = new Map<string, { units: number; until: number }>();
  const holdId = (key: QuotaCounterKey, spendId: string) => `${id(key)}#${spendId}`;
  /** Gives back the holds of the token past their time, as the DynamoDB adapter's next admission does. */
  const releaseExpired = (tokenHash: string, nowMs: number) => {
    for (const [name, hold] of holds) {
      if (!name.startsWith(`${tokenHash}#`) || hold.until > nowMs) continue;
      holds.delete(name);
      const counter = quota.get(name.split('#').slice(0, 2).join('#'));
      if (counter) counter.used -= hold.units;
    }
  };
  const returning = (key: QuotaCounterKey, nowMs: number) =>
    [...holds].filter(([name, hold]) => name.startsWith(`${id(key)}#`) && hold.until <= nowMs).reduce((sum, [, hold]) => sum + hold.units, 0);
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
    async admit(request) {
      guard('admit', [request]);
      const token = tokens(request.tokenHash);
      if (!token) return { admitted: false, refusal: 'unknown-token' };
      releaseExpired(request.tokenHash, request.nowMs);
      const window = rateWindow(token.ratePerSecond);
      const nowSeconds = Math.floor(request.nowMs / 1000);
      const windowStart = nowSeconds - (nowSeconds % window.seconds);
      const windowKey = `${request.tokenHash}#${windowStart}`;
      const count = saturated.has(request.tokenHash) ? 1_000_000 : (windows.get(windowKey) ?? 0);
      const rate = { window, windowStart, count };
      if (!token.active) return { admitted: false, refusal: 'inactive', token, rate };
      if (request.countRate && count >= window.allowed) return { admitted: false, refusal: 'rate', token, rate };
      const counter = request.spendPeriod === undefined ? undefined : (quota.get(id({ tokenHash: request.tokenHash, period: request.spendPeriod })) ?? { used: 0, refunded: new Set<string>() });
      const units = request.units ?? 1;
      if (counter && token.monthlyLimit !== null && counter.used + units > token.monthlyLimit) return { admitted: false, refusal: 'quota', token, rate, used: counter.used };
      if (request.countRate && !saturated.has(request.tokenHash)) windows.set(windowKey, count + 1);
      if (counter && request.spendPeriod !== undefined) {
        counter.used += units;
        quota.set(id({ tokenHash: request.tokenHash, period: request.spendPeriod }), counter);
        if (request.hold) holds.set(holdId({ tokenHash: request.tokenHash, period: request.spendPeriod }, request.hold.spendId), { units, until: request.hold.untilMs });
      }
      return { admitted: true, token, rate: { ...rate, count: request.countRate ? count + 1 : count }, ...(counter ? { used: counter.used } : {}) };
    },
    async refund(key, spendId, expiresAt) {
      guard('refund', [key, spendId, expiresAt]);
      const counter = quota.get(id(key));
      if (!counter || counter.used <= 0 || counter.refunded.has(spendId)) return false;
      counter.used -= 1;
      counter.refunded.add(spendId);
      return true;
    },
    async confirm(key, spendId) {
      guard('confirm', [key, spendId]);
      return holds.delete(holdId(key, spendId));
    },
    async release(key, spendId, units) {
      guard('release', [key, spendId, units]);
      const hold = holds.get(holdId(key, spendId));
      const counter = quota.get(id(key));
      if (!hold || hold.units !== units || !counter) return false;
      holds.delete(holdId(key, spendId));
      counter.used -= units;
      return true;
    },
    async used(key, nowMs = Date.now()) {
      guard('used', [key, nowMs]);
      return Math.max(0, (quota.get(id(key))?.used ?? 0) - returning(key, nowMs));
    },
  };
  return {
    store,
    calls,
    /** Units counted for the token in the period. */
    usedBy: (tokenHash: string, period: string) => quota.get(`${tokenHash}#${period}`)?.used ?? 0,
    /** Spends of the token held (not yet confirmed nor given back). */
    heldOf: (tokenHash: string) => [...holds.keys()].filter((name) => name.startsWith(`${tokenHash}#`)).length,
    /** Requests counted for the token in the rate window starting at `windowStart`. */
    countedIn: (tokenHash: string, windowStart: number) => windows.get(`${tokenHash}#${windowStart}`) ?? 0,
    fail: (method: keyof UsageStore) => failing.add(method),
    /** From now on the token's every window is already far past any rate. */
    saturate: (tokenHash: string) => saturated.add(tokenHash),
  };
}
