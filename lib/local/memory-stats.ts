import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';

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
  heapTotal: number;
  /** V8's cap on the heap (--max-old-space-size, or its default for this machine). */
  heapLimit: number;
  /** Buffers and other memory V8 tracks outside its heap. */
  external: number;
  arrayBuffers: number;
  /** Invocations served so far (instances), for telling a new instance from an old one. */
  invocations: number;
  at: string;
};

/** Writes this process's heap figures to `<dir>/<pid>.json`, replacing the previous ones; never throws. */
export function writeMemoryStats(dir: string, role: string, invocations = 0): void {
  const usage = process.memoryUsage();
  const stats: MemoryStats = {
    pid: process.pid,
    role,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
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
