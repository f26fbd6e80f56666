import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processTree } from '../scripts/local-runtime/process-tree.js';

/** Lambda gives one vCPU at 1,769 MB and CPU in proportion to memory below and above that. */
export const MB_PER_VCPU = 1769;

/**
 * A CPU quota for a set of processes, the way Lambda limits a function's CPU
 * by its memory size: a cgroup (v1 `cpu` controller or v2 `cpu.max`) with a
 * CFS quota. Needs write access to the cgroup filesystem (root in a
 * container); `openCpuShare` returns undefined when that is not available.
 */
export type CpuShare = {
  kind: 'cgroup-v1' | 'cgroup-v2';
  /** Limits the processes in the group to `vcpu` CPUs' worth of time. */
  limit(vcpu: number): void;
  /** Moves these process trees (and their future children) into the group. */
  add(pids: number[]): void;
  /** Moves every process back where it was and removes the group. */
  close(): void;
};

const PERIOD_US = 100_000;

function writable(dir: string): boolean {
  try {
    const probe = join(dir, `docrender-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Where a process sits in the cgroup hierarchy of `controller` ('' for v2). */
function cgroupOf(pid: number, controller: string): string | undefined {
  try {
    for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
      const [, controllers, path] = line.split(':');
      if (controllers === undefined || path === undefined) continue;
      if (controller === '' ? controllers === '' : controllers.split(',').includes(controller)) return path;
    }
  } catch {
    // gone
  }
  return undefined;
}

/**
 * Removes the groups earlier runs left behind: a run stopped by a signal
 * never reaches `close()`. Only groups named after a process that is gone,
 * and only empty ones (rmdir refuses the others).
 */
function sweepAbandoned(base: string): void {
  for (const entry of readdirSync(base)) {
    const owner = /^docrender-[a-z0-9]+-(\d+)$/.exec(entry)?.[1];
    if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
    try {
      rmdirSync(join(base, entry));
    } catch {
      // still holds a process, or already gone
    }
  }
}

/** Creates a CPU-quota cgroup (`name` tells groups of one run apart) if this machine lets us. */
export function openCpuShare(name = 'bench'): CpuShare | undefined {
  const v1 = '/sys/fs/cgroup/cpu';
  const v2 = '/sys/fs/cgroup';
  let kind: CpuShare['kind'];
  let base: string;
  if (existsSync(join(v1, 'cpu.cfs_quota_us'))) {
    kind = 'cgroup-v1';
    base = join(v1, cgroupOf(process.pid, 'cpu') ?? '/');
  } else if (existsSync(join(v2, 'cgroup.controllers')) && readFileSync(join(v2, 'cgroup.controllers'), 'utf8').includes('cpu')) {
    kind = 'cgroup-v2';
    base = join(v2, cgroupOf(process.pid, '') ?? '/');
  } else {
    return undefined;
  }
  if (!writable(base)) return undefined;
  sweepAbandoned(base);
  const dir = join(base, `docrender-${name}-${process.pid}`);
  mkdirSync(dir);
  const moved: Array<{ pid: number; from: string }> = [];

  return {
    kind,
    limit(vcpu) {
      const quota = Math.max(1000, Math.round(vcpu * PERIOD_US));
      if (kind === 'cgroup-v1') {
        writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
        writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
      } else {
        writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
      }
    },
    add(pids) {
      for (const root of pids) {
        for (const pid of processTree(root)) {
          const from = cgroupOf(pid, kind === 'cgroup-v1' ? 'cpu' : '');
          try {
            writeFileSync(join(dir, 'cgroup.procs'), String(pid));
            if (from !== undefined) moved.push({ pid, from });
          } catch {
            // a thread or a process that just ended
          }
        }
      }
    },
    close() {
      const top = kind === 'cgroup-v1' ? v1 : v2;
      // Whatever is in the group now, including children born inside it, goes back to where its ancestors came from.
      const fallback = moved[0]?.from ?? '/';
      let inside: number[] = [];
      try {
        inside = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {
        // already empty
      }
      for (const pid of inside) {
        const from = moved.find((m) => m.pid === pid)?.from ?? fallback;
        try {
          writeFileSync(join(top, from, 'cgroup.procs'), String(pid));
        } catch {
          // gone
        }
      }
      try {
        rmdirSync(dir);
      } catch {
        // a process still inside; the empty group is harmless and named after this run
      }
    },
  };
}
