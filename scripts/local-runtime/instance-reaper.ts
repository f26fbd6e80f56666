import { spawn } from 'node:child_process';
import type { ProcessIdentity } from '../../lib/process/process-identity.js';

export type InstanceReaper = {
  /** Processes to kill should the runtime die without stopping them (frozen instances, their Chromium). */
  track(processes: ProcessIdentity[]): void;
  /** Processes that are gone, or that the runtime stops itself. */
  forget(processes: ProcessIdentity[]): void;
  /** Kills what is still tracked and ends the reaper. */
  close(): void;
};

// Plain JavaScript, run by node itself: it must start without the runtime's loader.
// It reads "+ pid start" and "- pid" lines; when its input ends (the runtime closed
// it, or died, even by SIGKILL), it kills every tracked process that is still the
// one it was told about (same start time), thawing it first. The check is
// lib/process/process-identity.ts's, written out again: this script cannot load it.
const REAPER_SCRIPT = `
const { readFileSync } = require('node:fs');
const tracked = new Map();
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\\n')) >= 0) {
    const [op, pid, start] = pending.slice(0, end).split(' ');
    pending = pending.slice(end + 1);
    if (op === '+') tracked.set(Number(pid), start);
    else tracked.delete(Number(pid));
  }
});
process.stdin.on('end', () => {
  for (const [pid, start] of tracked) {
    try {
      const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] !== start) continue;
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  process.exit(0);
});
`;

/**
 * A small process that outlives the runtime only to clean up after it: a
 * frozen instance cannot notice that its runtime is gone (it is stopped), so
 * something that is not frozen must end it. Where there is no /proc (macOS)
 * start times are unknown and nothing is tracked: a pid could be reused.
 */
export function startInstanceReaper(): InstanceReaper {
  const reaper = spawn(process.execPath, ['-e', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  reaper.unref();
  // A reaper that failed must not take the runtime down; it only loses its safety net.
  reaper.on('error', () => undefined);
  reaper.stdin.on('error', () => undefined);
  (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  const write = (line: string) => {
    if (reaper.stdin.writable) reaper.stdin.write(line);
  };
  return {
    track(processes) {
      for (const { pid, start } of processes) if (start !== undefined) write(`+ ${pid} ${start}\n`);
    },
    forget(processes) {
      for (const { pid } of processes) write(`- ${pid}\n`);
    },
    close() {
      reaper.stdin.end();
    },
  };
}
