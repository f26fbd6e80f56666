import type { TokenRecord } from '../tokens/token-store.js';
import type { RateWindow } from './rate-limit.js';

/** Which monthly counter: one per token and calendar month (UTC), e.g. `2025-06`. */
export type QuotaCounterKey = {
  tokenHash: string;
  period: string;
};

/** What one admission asks of the token's counters, in one atomic write. */
export type AdmissionRequest = {
  tokenHash: string;
  /** The clock the rate window is taken from, epoch milliseconds. */
  nowMs: number;
  /** Count this request against the token's rate (false when an earlier admission of the same request counted it). */
  countRate: boolean;
  /** Spend units of this month's quota (`YYYY-MM`), if they are left. */
  spendPeriod?: string;
  /** How many units to spend, all or none (a merge: one per rendered part); 1 when absent. */
  units?: number;
  /**
   * Hold the spend, under its id, until `untilMs` (epoch milliseconds): its units count from now
   * on, but come back by themselves once this passes unless `confirm`ed
   * (or settled by a `refund` of its units) first. A render the runtime
   * kills runs no code after it, so no refund of its own: its spend is held,
   * and the work's success confirms it.
   */
  hold?: { spendId: string; untilMs: number };
};

/** Why an admission was refused, in the contract's order of checks. */
export type AdmissionRefusal = 'unknown-token' | 'inactive' | 'rate' | 'quota';

/** What an admission found: the token, where it stands in its rate window, and whether it was let in. */
export type AdmissionOutcome =
  | { admitted: false; refusal: 'unknown-token' }
  | {
      admitted: boolean;
      refusal?: Exclude<AdmissionRefusal, 'unknown-token'>;
      token: TokenRecord;
      /** The token's rate window and its count, this request included when it was counted. */
      rate: { window: RateWindow; windowStart: number; count: number };
      /** Units of the month counted, this one included when spent. */
      used?: number;
    };

/**
 * Port: the shared counters behind quotas and rate limits, kept with the
 * token's subscription so that one atomic conditional write decides a
 * request: token known, subscription active, rate not exceeded and (for a
 * render) its units of quota left, counted together or not at all. Any number
 * of instances agree, and a render waits on one round trip.
 */
export interface UsageStore {
  /** Counts the request (rate, and quota when asked) if every check passes; otherwise counts nothing and says why. */
  admit(request: AdmissionRequest): Promise<AdmissionOutcome>;
  /**
   * Takes back the unit spent by `spendId`, at most once per spendId. Resolves
   * true when this call gave it back, false when it had been given back before
   * (or nothing was counted in the period), also by the release of the hold
   * `heldAs` it was spent under (the request's spend id; its own for a spend's
   * first unit). A refund settles that hold: when it is still there (the
   * request was killed before confirming it), it goes, so it cannot come back
   * as well once it passes; the spend's other units then stay counted, as if
   * confirmed. What records the refund expires at `expiresAt` (epoch seconds).
   */
  refund(key: QuotaCounterKey, spendId: string, expiresAt: number, heldAs: string): Promise<boolean>;
  /** Makes the held spend `spendId` final. Resolves false when it was no longer held (given back, refunded, or expired and returned). */
  confirm(key: QuotaCounterKey, spendId: string): Promise<boolean>;
  /**
   * Gives back the units of the held spend `spendId` at once, at most once, but
   * none that a `refund` gave back already (a unit goes back once, whichever
   * way); a refund of its units after it gives nothing. Resolves false when it
   * was no longer held. An admission that spends does the same with the holds
   * past their time that it sees.
   */
  release(key: QuotaCounterKey, spendId: string, units: number): Promise<boolean>;
  /** Units counted in the period at `nowMs`, 0 when none: held spends past their hold do not count (they are on their way back). */
  used(key: QuotaCounterKey, nowMs?: number): Promise<number>;
}
