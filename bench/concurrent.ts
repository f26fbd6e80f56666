/**
 * `count` requests made by `request`, `concurrency` in flight: the elapsed
 * time, how many failed, and each successful request's own time (pushed to
 * `latencies`). The throughput runs of the bench and its peer phase.
 */
export async function concurrently(request: () => Promise<{ ms: number }>, concurrency: number, count: number, latencies: number[] = []) {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        try {
          latencies.push((await request()).ms);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  return { elapsedMs: performance.now() - started, count, failures };
}
