import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isStillRunning, type ProcessIdentity, rememberProcess, signalProcess } from '../../lib/process/process-identity.js';

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

/** The processes of a tree as they are now (`processTree`), to be signalled later only if they are still the same. */
export function rememberTree(root: number): ProcessIdentity[] {
  return processTree(root).flatMap((pid) => rememberProcess(pid) ?? []);
}

/** Sends a signal to each remembered process whose pid is still its own (a pid freed since may be someone else's now). */
export function signalAll(processes: ProcessIdentity[], signal: NodeJS.Signals): void {
  for (const remembered of processes) signalProcess(remembered, signal);
}

/**
 * Stops a process and all its descendants with SIGSTOP, as Lambda freezes an
 * execution environment: all of it at once. One reading of the tree is not
 * enough: a process not yet stopped can start a child between the reading and
 * the signals (Chromium starts renderer processes at any time), and that child
 * would run on through the freeze. So the tree is read again until a reading
 * finds nobody new; by then every parent is stopped, and a stopped process
 * starts nothing. Answers every process stopped, parents first.
 */
export function freezeTree(root: number): ProcessIdentity[] {
  const stopped = new Map<number, ProcessIdentity>();
  for (;;) {
    const fresh = rememberTree(root).filter(({ pid }) => !stopped.has(pid));
    if (fresh.length === 0) return [...stopped.values()];
    signalAll(fresh, 'SIGSTOP');
    for (const remembered of fresh) stopped.set(remembered.pid, remembered);
  }
}

/** Resolves once none of these processes is running (a zombie, or a later process with the same pid, counts as gone), or after `limitMs`. */
export async function waitGone(processes: ProcessIdentity[], limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (processes.some(isStillRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
