import { existsSync, readFileSync } from 'node:fs';

/**
 * A process as it was when it was remembered: its pid and when it started
 * (clock ticks since boot, field 22 of /proc/<pid>/stat). A pid alone names a
 * process only until it ends: the kernel hands the number out again once its
 * counter wraps (at 32,768 on many machines, which a CI run wraps several
 * times), so a signal to a pid remembered earlier can reach whatever took it
 * since — another test's freshly started Chromium, whose launch then fails
 * with "Target closed". Every signal to a remembered pid or process group goes
 * through this module, which checks the start time first. `start` is
 * undefined where there is no /proc (macOS): there the pid is all there is.
 */
export type ProcessIdentity = { readonly pid: number; readonly start: string | undefined };

/** The fields of /proc/<pid>/stat this module reads. */
type Stat = { state: string; pgid: number; start: string };

const HAS_PROC = existsSync('/proc/self/stat');

/** /proc/<pid>/stat read; undefined when the process is gone (or there is no /proc). */
function readStat(pid: number): Stat | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state, , pgid] = fields;
    const start = fields[19];
    if (state === undefined || start === undefined) return undefined;
    return { state, pgid: Number(pgid), start };
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists; one that belongs to another user counts (EPERM). A zombie counts too. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process that has this pid now, to be signalled later; undefined when there is none. */
export function rememberProcess(pid: number): ProcessIdentity | undefined {
  if (!HAS_PROC) return isProcessAlive(pid) ? { pid, start: undefined } : undefined;
  const stat = readStat(pid);
  return stat && { pid, start: stat.start };
}

/**
 * Whether the pid still belongs to the remembered process. A zombie still
 * does (its pid cannot be handed out until it is reaped). Without /proc the
 * check can only ask whether some process has the pid.
 */
export function isSameProcess(remembered: ProcessIdentity): boolean {
  if (remembered.start === undefined) return !HAS_PROC && isProcessAlive(remembered.pid);
  return readStat(remembered.pid)?.start === remembered.start;
}

/** Whether the remembered process is still running: gone, a zombie or another process with its pid do not count. */
export function isStillRunning(remembered: ProcessIdentity): boolean {
  if (remembered.start === undefined) return !HAS_PROC && isProcessAlive(remembered.pid);
  const stat = readStat(remembered.pid);
  return stat !== undefined && stat.start === remembered.start && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * Sends a signal to the remembered process if its pid is still its own;
 * answers whether it was sent. A process that is gone is not an error. (The
 * check and the signal are two system calls: between them the pid would have
 * to be freed and the whole counter wrapped, which takes far longer.)
 */
export function signalProcess(remembered: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!isSameProcess(remembered)) return false;
  try {
    process.kill(remembered.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends a signal to the process group the remembered process leads (as
 * puppeteer starts Chromium: detached, its helpers in its group), or to the
 * process alone when it leads no group; answers whether it was sent. Only
 * while the leader is still that process (a zombie included): a group's
 * number is its leader's pid, and once the leader is gone the number can lead
 * someone else's group. Helpers orphaned by a leader that is gone are left to
 * end on their own (Chromium's do when the browser's pipes close).
 */
export function signalGroup(leader: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!isSameProcess(leader)) return false;
  const leads = leader.start === undefined || readStat(leader.pid)?.pgid === leader.pid;
  try {
    process.kill(leads ? -leader.pid : leader.pid, signal);
    return true;
  } catch {
    if (!leads) return false;
    // Not a group leader after all (no /proc to tell): the process alone.
    return signalProcess(leader, signal);
  }
}
