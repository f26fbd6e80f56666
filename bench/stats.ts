/** Summary of one series of timings, in milliseconds. */
export type Summary = { n: number; median: number; p90: number; min: number; max: number; mean: number };

/** Median, 90th percentile, min, max and mean of `values` (rounded to 0.1 ms). */
export function summarize(values: number[]): Summary {
  if (values.length === 0) return { n: 0, median: NaN, p90: NaN, min: NaN, max: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    n: sorted.length,
    median: round(quantile(sorted, 0.5)),
    p90: round(quantile(sorted, 0.9)),
    min: round(sorted[0] as number),
    max: round(sorted[sorted.length - 1] as number),
    mean: round(sorted.reduce((sum, x) => sum + x, 0) / sorted.length),
  };
}

/** The `q` quantile of `values` (nearest rank), rounded to 0.1 ms. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number) * 10) / 10;
}

/** Linear-interpolated quantile of an ascending array. */
function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

/** `a / b` rounded to two decimals (NaN when either is missing). */
export function ratio(a: number, b: number): number {
  return Math.round((a / b) * 100) / 100;
}
