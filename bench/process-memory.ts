import { readFileSync } from 'node:fs';
import { parentLinks, processTree } from '../scripts/local-runtime/process-tree.js';

/** Memory of a process tree, in MiB: resident set summed over processes, and proportional set (shared pages split). */
export type TreeMemory = { rssMiB: number; pssMiB: number; processes: number };

/** Children of `pid` whose command line contains `needle`. */
export function childrenMatching(pid: number, needle: string): number[] {
  const found: number[] = [];
  for (const [child, parent] of parentLinks()) {
    if (parent !== pid) continue;
    try {
      if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(needle)) found.push(child);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function kib(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** Current memory of the tree rooted at `pid` (zeros when /proc is not readable). */
export function treeMemory(pid: number): TreeMemory {
  let rss = 0;
  let pss = 0;
  const pids = processTree(pid);
  for (const p of pids) {
    try {
      rss += kib(readFileSync(`/proc/${p}/status`, 'utf8'), 'VmRSS');
      pss += kib(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'), 'Pss');
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return { rssMiB: Math.round(rss / 1024), pssMiB: Math.round(pss / 1024), processes: pids.length };
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux that Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * CPU ms (user + system) of one process: its own, and its reaped children's
 * (a renderer process that has exited is counted in its parent's). 0 when gone.
 */
export function processCpuMs(pid: number): { own: number; reaped: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
    return { own: ms((fields[11] ?? 0) + (fields[12] ?? 0)), reaped: ms((fields[13] ?? 0) + (fields[14] ?? 0)) };
  } catch {
    return { own: 0, reaped: 0 };
  }
}

/**
 * CPU time (user + system, ms) these processes have used, their dead
 * children included (a reaped child's time is in its parent's
 * cutime/cstime, once): pass a whole process tree, read afresh at each
 * reading, and a renderer process Chromium started and closed between two
 * readings still counts. Zero where /proc is not readable.
 */
export function treeCpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of new Set(pids)) {
    const { own, reaped } = processCpuMs(pid);
    total += own + reaped;
  }
  return total;
}

/** CPU ms of each of these processes (as `treeCpuMs` counts them), by process id. */
export function cpuByPid(pids: number[]): Map<number, number> {
  const reading = new Map<number, number>();
  for (const pid of new Set(pids)) {
    const { own, reaped } = processCpuMs(pid);
    reading.set(pid, own + reaped);
  }
  return reading;
}

/**
 * CPU ms used since `before` by the processes of a new reading: each one's
 * growth (all of it for a process started since). A process gone in between
 * (an instance the runtime stopped) drops out of both sides instead of
 * taking its whole lifetime's CPU off the total; what it used since `before`
 * is lost, unless its parent reaped it and is in the reading.
 */
export function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += Math.max(0, ms - (before.get(pid) ?? 0));
  return total;
}

/** Samples the tree's memory every `intervalMs` until stopped; resolves to the peak seen. */
export function samplePeakMemory(pid: number, intervalMs = 250): { stop(): TreeMemory } {
  let peak: TreeMemory = treeMemory(pid);
  const timer = setInterval(() => {
    const now = treeMemory(pid);
    if (now.rssMiB > peak.rssMiB) peak = { ...now, pssMiB: Math.max(now.pssMiB, peak.pssMiB) };
    else if (now.pssMiB > peak.pssMiB) peak = { ...peak, pssMiB: now.pssMiB };
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
