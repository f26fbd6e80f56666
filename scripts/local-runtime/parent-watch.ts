import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isStillRunning, rememberProcess } from '../../lib/process/process-identity.js';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function lifecycleOf(pid: number): string | undefined {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return environ.split('\0').find((entry) => entry.startsWith('npm_lifecycle_script='));
  } catch {
    return undefined;
  }
}

/**
 * The processes this one was started through: its parent and, when run by
 * `npm start`, every launcher in between (the shell, tsx's CLI) up to npm
 * itself (`entry`, the script file, is what npm was asked to run). npm's
 * launchers outlive npm when it is killed outright (SIGKILL),
 * so watching only the direct parent (tsx) would miss it. Recognised by the
 * script npm set in their environment; npm's own parent is not watched, so
 * `nohup npm start &` outlives its shell as before.
 */
export function launcherChain(pid = process.pid, env: NodeJS.ProcessEnv = process.env, entry = process.argv[1] ?? ''): number[] {
  const chain: number[] = [];
  // Only when npm ran this very file: a process merely inheriting an npm script's environment (a test
  // runner started by npm test) watches its parent alone.
  const ranByNpm = entry !== '' && env.npm_lifecycle_script?.includes(basename(entry));
  const script = ranByNpm ? `npm_lifecycle_script=${env.npm_lifecycle_script}` : undefined;
  let current = parentOf(pid) ?? process.ppid;
  for (;;) {
    chain.push(current);
    if (!script || current <= 1 || lifecycleOf(current) !== script) return chain;
    const next = parentOf(current);
    if (next === undefined || next <= 1) return chain;
    current = next;
  }
}

/**
 * Calls `onGone` once when a process of the launcher chain has ended (a closed
 * terminal, a killed test runner, a SIGKILLed npm), checking every `everyMs`.
 * Without /proc (macOS) only the direct parent is watched, through `process.ppid`.
 */
export function watchLaunchers(onGone: () => void, everyMs = 1_000): () => void {
  const parent = process.ppid;
  // A launcher already gone (or a zombie) when the watch begins is not watched: its pid may be anyone's later.
  const watched = launcherChain().flatMap((pid) => rememberProcess(pid) ?? []).filter(isStillRunning);
  let fired = false;
  const timer = setInterval(() => {
    const gone = process.ppid !== parent || !watched.every(isStillRunning);
    if (gone && !fired) {
      fired = true;
      onGone();
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
