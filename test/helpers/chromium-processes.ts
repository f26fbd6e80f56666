import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Direct children of `pid` with their command lines, from `ps`. */
function childrenOf(pids: number[]): Array<{ pid: number; args: string }> {
  if (pids.length === 0) return [];
  return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', pids.join(',')], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const trimmed = line.trim();
      const space = trimmed.indexOf(' ');
      return { pid: Number(trimmed.slice(0, space)), args: trimmed.slice(space + 1) };
    });
}

/** The browser processes this test process started (not their renderer and GPU children). */
export function browserPids(): number[] {
  return childrenOf([process.pid])
    .filter(({ args }) => /chromium|chrome/i.test(args) && !args.includes('--type='))
    .map(({ pid }) => pid);
}

/** Renderer processes of those browsers: one per isolated session (fresh context) open. */
export function rendererProcessCount(): number {
  return childrenOf(browserPids()).filter(({ args }) => args.includes('--type=renderer')).length;
}

/** Running or stopped; a zombie waiting to be reaped is already gone. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
