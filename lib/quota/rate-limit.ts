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
 * Where a token stands after an admission (`admitRequest`): `count` requests
 * of `window.allowed` in the window starting at `windowStart` (epoch seconds).
 */
export function rateLimitState(rate: { window: RateWindow; windowStart: number; count: number }, nowMs: number, exceeded: boolean): RateLimitState {
  const windowEnd = rate.windowStart + rate.window.seconds;
  return {
    limit: rate.window.allowed,
    remaining: Math.max(0, rate.window.allowed - rate.count),
    resetSeconds: Math.max(1, Math.ceil((windowEnd * 1000 - nowMs) / 1000)),
    exceeded,
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
