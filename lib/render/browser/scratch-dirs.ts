import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../process/process-identity.js';

/**
 * The folders a rendering process makes in the temporary directory (each
 * Chromium's profile, the core-dump-free launcher) carry the process's pid in
 * their name: whoever outlives a process that died without cleaning up (a
 * SIGKILL, an OOM kill, a stop whose signals reached every process at once)
 * can tell its leftovers from those of processes still at work. /tmp is
 * shared by every instance of `npm start`, and on Lambda it persists across
 * warm invocations of one environment, so leftovers would pile up.
 */
export type ScratchKind = 'chromium' | 'launcher';

const SCRATCH_NAME = /^docrender-(?:chromium|launcher)-(\d+)-/;

/** The `mkdtemp` prefix of a scratch folder of this process. */
export function scratchPrefix(kind: ScratchKind): string {
  return join(tmpdir(), `docrender-${kind}-${process.pid}-`);
}

/** Removes every scratch folder of the process `pid` (gone, or about to be); a folder that cannot be removed is left. */
export function removeScratchOf(pid: number): void {
  for (const [path, owner] of scratchFolders()) if (owner === pid) remove(path);
}

let swept = false;

/**
 * Once per process, before it makes a scratch folder of its own: removes the
 * folders of processes that are gone, and those named with this very pid,
 * which an earlier process with the same pid left (a Lambda environment
 * whose runtime restarted keeps its /tmp).
 */
export function sweepScratchOnce(): void {
  if (swept) return;
  swept = true;
  for (const [path, owner] of scratchFolders()) if (owner === process.pid || !isProcessAlive(owner)) remove(path);
}

function scratchFolders(): [string, number][] {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const pid = SCRATCH_NAME.exec(name)?.[1];
    return pid === undefined ? [] : [[join(tmpdir(), name), Number(pid)] as [string, number]];
  });
}

function remove(path: string): void {
  try {
    // Retried: a process that was just killed may have had a file open in it a moment ago.
    rmSync(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 20 });
  } catch {
    // Another sweeper got there, or not ours to remove: left for the next sweep.
  }
}
