import type { TokenRecord } from '../tokens/token-store.js';
import type { UsageStore } from './usage-store.js';

/** A fixed counting window: `allowed` requests per `seconds`. */
export type RateWindow = {
  seconds: number;
  allowed: number;
};

/** Where a token stands in its current window, as the rate-limit headers tell it. */
export type RateLimitState = {
  /** Requests allowed in the window (`x-ratelimit-limit`). */
  limit: number;
  /** Requests left in the window after this one (`x-ratelimit-remaining`). */
  remaining: number;
  /** Whole seconds until the window ends (`x-ratelimit-reset`, and `Retry-After` on 429). */
  resetSeconds: number;
  /** True when this request is past the limit: it must be answered 429. */
  exceeded: boolean;
};

/** Windows never span more than this; a rate below one per hour is treated as one per hour. */
const LONGEST_WINDOW_SECONDS = 3600;
/** Rate rows outlive their window by this long before DynamoDB's TTL may delete them. */
const ROW_GRACE_SECONDS = 60;

/**
 * The window that enforces a rate exactly: one second for whole rates, else
 * the shortest whole number of seconds holding a whole number of requests
 * (2.5/s is 5 per 2 s, 0.5/s is 1 per 2 s).
 */
export function rateWindow(ratePerSecond: number): RateWindow {
  for (let seconds = 1; seconds <= LONGEST_WINDOW_SECONDS; seconds++) {
    const allowed = ratePerSecond * seconds;
    if (allowed >= 1 && Math.abs(allowed - Math.round(allowed)) < 1e-9) return { seconds, allowed: Math.round(allowed) };
  }
  const seconds = Math.min(LONGEST_WINDOW_SECONDS, Math.ceil(1 / ratePerSecond));
  return { seconds, allowed: Math.max(1, Math.floor(ratePerSecond * seconds)) };
}

/**
 * Counts this request against the token's rate with one write to the shared
 * counter of the current window (keyed by token and window start, so every
 * instance counts in the same place). Requests past the limit are counted
 * too: a client that keeps hammering stays limited until it slows down.
 */
export async function countRequest(store: UsageStore, token: TokenRecord, nowMs = Date.now()): Promise<RateLimitState> {
  const window = rateWindow(token.ratePerSecond);
  const nowSeconds = Math.floor(nowMs / 1000);
  const windowStart = nowSeconds - (nowSeconds % window.seconds);
  const windowEnd = windowStart + window.seconds;
  const count = await store.countRequest(token.tokenHash, windowStart, windowEnd + ROW_GRACE_SECONDS);
  return {
    limit: window.allowed,
    remaining: Math.max(0, window.allowed - count),
    resetSeconds: Math.max(1, Math.ceil((windowEnd * 1000 - nowMs) / 1000)),
    exceeded: count > window.allowed,
  };
}

/** The `x-ratelimit-*` headers every authenticated answer carries. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.resetSeconds),
  };
}
