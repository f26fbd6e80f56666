import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

/**
 * The variable that turns the report on: a directory where each local process
 * (npm start's runtime, every function instance) keeps a small JSON file named
 * by its pid with its own V8 heap figures. Off unless set (the soak sets it);
 * only this process can see its heap, and an instance is frozen between
 * invocations, so it writes them itself rather than being asked.
 */
export const MEMORY_STATS_DIR_VARIABLE = 'LOCAL_MEMORY_STATS_DIR';

/** What one process reports about its own memory, in bytes. */
export type MemoryStats = {
  pid: number;
  /** What the process is: "runtime", or the function's name. */
  role: string;
  heapUsed: number;
  /**
   * Heap used just after the last full (mark-compact) collection: what is
   * still reachable, without the garbage heapUsed includes; a leak shows here.
   * Undefined before the first one (or without watchMajorGc).
   */
  heapAfterMajorGc?: number;
  heapTotal: number;
  /**
   * Of heapTotal, the young generation's reserved size: it grows (semi-spaces
   * doubling up to --max-semi-space-size) with the allocation rate, and only
   * shrinks when V8 sees the process idle, which a frozen instance never is.
   */
  newSpace: number;
  /** V8's cap on the heap (--max-old-space-size, or its default for this machine). */
  heapLimit: number;
  /** Buffers and other memory V8 tracks outside its heap. */
  external: number;
  arrayBuffers: number;
  /** Invocations served so far (instances), for telling a new instance from an old one. */
  invocations: number;
  at: string;
};

let heapAfterMajorGc: number | undefined;

/** Notes the heap left after each full collection, for writeMemoryStats; observing only, it triggers none. */
export function watchMajorGc(): void {
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (major) heapAfterMajorGc = getHeapStatistics().used_heap_size;
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** Writes this process's heap figures to `<dir>/<pid>.json`, replacing the previous ones; never throws. */
export function writeMemoryStats(dir: string, role: string, invocations = 0): void {
  const usage = process.memoryUsage();
  const stats: MemoryStats = {
    pid: process.pid,
    role,
    heapUsed: usage.heapUsed,
    heapAfterMajorGc,
    heapTotal: usage.heapTotal,
    newSpace: getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
    heapLimit: getHeapStatistics().heap_size_limit,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    invocations,
    at: new Date().toISOString(),
  };
  try {
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(stats));
  } catch {
    // A measurement aid: a full disk or a removed directory must not fail an invocation.
  }
}
