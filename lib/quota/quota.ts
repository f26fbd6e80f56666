import type { TokenRecord } from '../tokens/token-store.js';
import type { UsageStore } from './usage-store.js';

/** A calendar month in UTC: the span a monthly quota counts over. */
export type BillingPeriod = {
  /** `YYYY-MM`, part of the counter's key. */
  key: string;
  start: Date;
  /** Exclusive: the first instant of the next month, when the quota renews. */
  end: Date;
};

/** Proof that a request spent a unit: what it takes to give that unit back. */
export type QuotaSpend = {
  tokenHash: string;
  period: string;
  /** Unique per request (the API Gateway request id); a refund counts once per spendId. */
  spendId: string;
  /** Units spent, when more than one (a merge spends one per rendered part; see `unitSpendIds`). */
  units?: number;
  /**
   * The spend id its units were held under, when not its own: a unit of a
   * larger spend (`unitSpend`, a batch item) names the request's. Its refund
   * settles that hold, so the hold cannot also come back when it passes.
   */
  heldAs?: string;
  /**
   * Set while the spend is held (epoch ms, `AdmissionRequest.hold`): until
   * `confirmQuota`, its units come back by themselves once this passes. What
   * is handed on (a job's record) is confirmed first and carries none.
   */
  heldUntil?: number;
};

/** The spend id of unit `index` (0-based) of a spend: the request's own for the first, `<spendId>#<n>` for the n-th after it. */
function unitSpendId(spendId: string, index: number): string {
  return index === 0 ? spendId : `${spendId}#${index + 1}`;
}

/** The spend id of each unit of a spend. */
function unitSpendIds(spend: Pick<QuotaSpend, 'spendId' | 'units'>): string[] {
  return Array.from({ length: spend.units ?? 1 }, (_, i) => unitSpendId(spend.spendId, i));
}

/**
 * The n-th unit (0-based) of a spend of several, as a spend of its own: what
 * a batch item gives back when it fails. Computed alone: a batch of 100,000
 * items asks for each of its units, so listing the units before it each time
 * made the POST quadratic (29 s for 100,000 items).
 */
export function unitSpend(spend: QuotaSpend, index: number): QuotaSpend {
  return { tokenHash: spend.tokenHash, period: spend.period, spendId: unitSpendId(spend.spendId, index), heldAs: spend.heldAs ?? spend.spendId };
}

/** The quota part of a usage report. */
export type QuotaUsage = {
  /** Renders allowed per month; null means unlimited. */
  limit: number | null;
  /** Renders counted this month, refunds deducted. */
  used: number;
  /** Renders left this month; null when unlimited. */
  remaining: number | null;
  period: { start: string; end: string };
};

/** Monthly counters outlive their month by this long, so past usage stays readable for a while. */
const KEEP_PAST_MONTHS_SECONDS = 400 * 24 * 3600;

/** The calendar month (UTC) that `now` falls in. */
export function billingPeriod(now: Date): BillingPeriod {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    key: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  };
}

/**
/**
 * Gives back the units a request spent, each once: a second refund for the
 * same spend (a retry, a redelivered message) changes nothing, nor does one
 * of a spend whose hold already came back (the units came back with it).
 * Resolves true when this call gave a unit back.
 */
export async function refundQuota(store: UsageStore, spend: QuotaSpend): Promise<boolean> {
  const heldAs = spend.heldAs ?? spend.spendId;
  let refunded = false;
  for (const id of unitSpendIds(spend)) {
    if (await store.refund({ tokenHash: spend.tokenHash, period: spend.period }, id, periodExpiry(spend.period), heldAs)) refunded = true;
  }
  return refunded;
}

/** Makes a held spend final (the work it paid for succeeded); resolves false when it was no longer held. */
export function confirmQuota(store: UsageStore, spend: QuotaSpend): Promise<boolean> {
  return store.confirm({ tokenHash: spend.tokenHash, period: spend.period }, spend.spendId);
}

/** Gives back every unit of a held spend at once (the work it paid for failed): at most once, false when no longer held. */
export function releaseQuota(store: UsageStore, spend: QuotaSpend): Promise<boolean> {
  return store.release({ tokenHash: spend.tokenHash, period: spend.period }, spend.spendId, spend.units ?? 1);
}

/** The token's quota, units used and what is left in the month `now` falls in. */
export async function readQuota(store: UsageStore, token: TokenRecord, now = new Date()): Promise<QuotaUsage> {
  const period = billingPeriod(now);
  const used = await store.used({ tokenHash: token.tokenHash, period: period.key }, now.getTime());
  const limit = token.monthlyLimit;
  return {
    limit,
    used,
    remaining: limit === null ? null : Math.max(0, limit - used),
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
  };
}

/** When what records a refund of `period` may go (epoch seconds). */
export function expiry(period: BillingPeriod): number {
  return Math.floor(period.end.getTime() / 1000) + KEEP_PAST_MONTHS_SECONDS;
}

/** `expiry` of the month keyed `YYYY-MM`: a store records refunds and releases by the period's key. */
export function periodExpiry(periodKey: string): number {
  const [year, month] = periodKey.split('-').map(Number);
  return expiry(billingPeriod(new Date(Date.UTC(year ?? 1970, (month ?? 1) - 1, 1))));
}
