import { rateWindow } from '../../../lib/quota/rate-limit.js';
import type { QuotaCounterKey, UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';

/**
 * An in-memory UsageStore with the DynamoDB adapter's semantics (one
 * admission counts rate and quota (all its units) together or not at all, checks in the
 * contract's order; refund once per spend id; held spends confirmed, released or
 * given back by the next admission that spends past their hold; a unit goes
 * back once, by a refund or with its hold: a refund settles the hold it was
 * spent under, a released hold keeps its units' later refunds from giving
 * anything, and gives back none a refund gave), for unit tests, over the
 * token records `tokens` finds. `fail` makes the next calls of a method
 * reject, as a store outage would; `saturate` puts a token past its rate
 * whatever the clock says.
 */
export function memoryUsageStore(tokens: (tokenHash: string) => TokenRecord | undefined) {
  const quota = new Map<string, { used: number; refunded: Set<string> }>();
  /** Held spends by `<tokenHash>#<period>#<spendId>`: their units and when they come back (epoch ms). */
  const holds = new Map<string, { units: number; until: number }>();
  const holdId = (key: QuotaCounterKey, spendId: string) => `${id(key)}#${spendId}`;
  /** Per hold (as `holds`), its units refunded before it was released, and whether it was: the DynamoDB adapter's ledger. */
  const ledgers = new Map<string, { refunded: number; released: boolean }>();
  const ledgerOf = (name: string) => {
    let ledger = ledgers.get(name);
    if (!ledger) ledgers.set(name, (ledger = { refunded: 0, released: false }));
    return ledger;
  };
  /** Releases a hold: its units back but those refunds gave, at most once (false: not held). */
  const releaseHold = (name: string, units: number) => {
    const ledger = ledgerOf(name);
    ledger.released = true;
    const hold = holds.get(name);
    const counter = quota.get(name.split('#').slice(0, 2).join('#'));
    if (!hold || hold.units !== units || !counter) return false;
    holds.delete(name);
    counter.used -= Math.max(0, units - ledger.refunded);
    return true;
  };
  /** Gives back the holds of the token past their time, as the DynamoDB adapter's next spending admission does. */
  const releaseExpired = (tokenHash: string, nowMs: number) => {
    for (const [name, hold] of holds) {
      if (name.startsWith(`${tokenHash}#`) && hold.until <= nowMs) releaseHold(name, hold.units);
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
      if (request.spendPeriod !== undefined) releaseExpired(request.tokenHash, request.nowMs);
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
    async refund(key, spendId, expiresAt, heldAs) {
      guard('refund', [key, spendId, expiresAt, heldAs]);
      const counter = quota.get(id(key));
      if (!counter || counter.refunded.has(spendId)) return false;
      counter.refunded.add(spendId);
      const ledger = ledgerOf(holdId(key, heldAs));
      if (ledger.released) return false;
      ledger.refunded += 1;
      if (counter.used <= 0) return false;
      counter.used -= 1;
      holds.delete(holdId(key, heldAs));
      return true;
    },
    async confirm(key, spendId) {
      guard('confirm', [key, spendId]);
      return holds.delete(holdId(key, spendId));
    },
    async release(key, spendId, units) {
      guard('release', [key, spendId, units]);
      return releaseHold(holdId(key, spendId), units);
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
