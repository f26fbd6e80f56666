import { QuotaExceededError, RateLimitedError, SubscriptionInactiveError, UnauthorizedError } from '../errors.js';
import type { TokenRecord } from '../tokens/token-store.js';
import { billingPeriod, type QuotaSpend } from './quota.js';
import { rateLimitHeaders, rateLimitState, type RateLimitState } from './rate-limit.js';
import type { UsageStore } from './usage-store.js';

/** A request let in: its token, where it stands against its rate, and the unit it spent (renders only). */
export type Admitted = {
  token: TokenRecord;
  rateLimit: RateLimitState;
  spend?: QuotaSpend;
};

export type AdmissionOptions = {
  /** Count the request against the rate (false when an earlier admission of this request did). */
  countRate: boolean;
  /** Spend the month's quota under this id (the API Gateway request id); omit for requests that do not render. */
  spendId?: string;
  /** Units to spend with `spendId`, all or none (a merge: one per rendered part); 1 when absent. */
  units?: number;
  /** Told where the caller stands as soon as that is known, refusals after auth included (for the headers). */
  onRate?: (state: RateLimitState) => void;
};

/**
 * How long a render's spend is held before it comes back by itself, unless
 * the render's success confirms it: Lambda's longest timeout (900 s) and a
 * margin, so that no function, whatever its own timeout, can still be at work
 * when its unit comes back. A render the runtime kills gets its unit back
 * within this, with no code of its own left to run (docs/api.md).
 */
export const SPEND_HOLD_MS = 960_000;

/**
 * Admits a request in one atomic write to the token's counters: 401 for an
 * unknown token, 403 for an inactive subscription, 429 past the rate, 402
 * when a render finds the month's quota cannot hold its units, checked in that order and
 * counted together or not at all. A request refused for its quota still
 * counts against the rate (a second write, off the render's path), so that
 * a client hammering with a spent quota is rate-limited like any other.
 */
export async function admitRequest(store: UsageStore, tokenHash: string, options: AdmissionOptions, nowMs = Date.now()): Promise<Admitted> {
  const period = billingPeriod(new Date(nowMs));
  const units = options.units ?? 1;
  const outcome = await store.admit({
    tokenHash,
    nowMs,
    countRate: options.countRate,
    ...(options.spendId !== undefined ? { spendPeriod: period.key, units, hold: { spendId: options.spendId, untilMs: nowMs + SPEND_HOLD_MS } } : {}),
  });
  if (outcome.refusal === 'unknown-token') throw new UnauthorizedError('Invalid token', 'invalid_token');
  if (outcome.refusal === 'inactive') throw new SubscriptionInactiveError();
  const state = rateLimitState(outcome.rate, nowMs, outcome.refusal === 'rate');
  options.onRate?.(state);
  if (outcome.refusal === 'rate') throw new RateLimitedError(state.resetSeconds, rateLimitHeaders(state));
  if (outcome.refusal === 'quota') {
    if (options.countRate) await admitRequest(store, tokenHash, { countRate: true, ...(options.onRate ? { onRate: options.onRate } : {}) }, nowMs);
    const limit = outcome.token.monthlyLimit;
    throw new QuotaExceededError(
      units > 1
        ? `Subscription limit reached: this request needs ${units} renders and fewer are left of this month's ${limit}; the quota renews at ${period.end.toISOString()}`
        : `Subscription limit reached: all ${limit} renders of this month are used; the quota renews at ${period.end.toISOString()}`,
    );
  }
  return {
    token: outcome.token,
    rateLimit: state,
    ...(options.spendId !== undefined
      ? { spend: { tokenHash, period: period.key, spendId: options.spendId, ...(units > 1 ? { units } : {}), heldUntil: nowMs + SPEND_HOLD_MS } }
      : {}),
  };
}
