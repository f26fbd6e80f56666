import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process and all its descendants, parents first. Chromium is started
 * detached by puppeteer (its own process group), so a group signal would
 * miss it: the tree is read from the parent links instead (/proc, or `ps`
 * where there is no /proc).
 */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentLinks()) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** Every process as [pid, parent pid], from /proc (or `ps` where there is none). */
export function parentLinks(): [number, number][] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    const listing = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
    return listing
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number) as [number, number])
      .filter(([pid, ppid]) => Number.isInteger(pid) && Number.isInteger(ppid));
  }
  const links: [number, number][] = [];
  for (const name of entries) {
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so parse after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      links.push([Number(name), ppid]);
    } catch {
      // Gone while listing.
    }
  }
  return links;
}

/** Sends a signal to each pid, ignoring those already gone. */
export function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already exited.
    }
  }
}

/**
 * Stops a process and all its descendants with SIGSTOP, as Lambda freezes an
 * execution environment: all of it at once. One reading of the tree is not
 * enough: a process not yet stopped can start a child between the reading and
 * the signals (Chromium starts renderer processes at any time), and that child
 * would run on through the freeze. So the tree is read again until a reading
 * finds nobody new; by then every parent is stopped, and a stopped process
 * starts nothing. Answers every pid stopped, parents first.
 */
export function freezeTree(root: number): number[] {
  const stopped = new Set<number>();
  for (;;) {
    const fresh = processTree(root).filter((pid) => !stopped.has(pid));
    if (fresh.length === 0) return [...stopped];
    signalAll(fresh, 'SIGSTOP');
    for (const pid of fresh) stopped.add(pid);
  }
}

/** When a process started (clock ticks since boot, from /proc), to tell it from a later one with the same pid; undefined without /proc. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Resolves once none of these processes is alive (a zombie counts as gone), or after `limitMs`. */
export async function waitGone(pids: number[], limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  const living = () =>
    pids.some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
        return state !== 'Z' && state !== 'X';
      } catch {
        return false;
      }
    });
  while (living() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
