/** Which monthly counter: one per token and calendar month (UTC), e.g. `2025-06`. */
export type QuotaCounterKey = {
  tokenHash: string;
  period: string;
};

/**
 * Port: the shared counters behind quotas and rate limits. Every method is a
 * single atomic write or read, so that any number of instances agree.
 */
export interface UsageStore {
  /**
   * Counts one unit in the period if the count stays within `limit` (null: no
   * limit, counted all the same). Resolves to the count including this unit,
   * or undefined when the limit was already reached and nothing was counted.
   */
  spend(key: QuotaCounterKey, limit: number | null, expiresAt: number): Promise<number | undefined>;
  /**
   * Takes back the unit spent by `spendId`, at most once per spendId. Resolves
   * true when this call gave it back, false when it had been given back before
   * (or nothing was counted in the period). What records the refund expires
   * at `expiresAt` (epoch seconds), with the period's counter.
   */
  refund(key: QuotaCounterKey, spendId: string, expiresAt: number): Promise<boolean>;
  /** Units counted in the period, 0 when none. */
  used(key: QuotaCounterKey): Promise<number>;
  /**
   * Counts one request in the token's rate window starting at `windowStart`
   * (epoch seconds) and resolves to the window's count including it.
   */
  countRequest(tokenHash: string, windowStart: number, expiresAt: number): Promise<number>;
}
