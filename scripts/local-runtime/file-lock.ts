import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Takes the lock file `path` for this process (created exclusively, holding
 * its pid), waiting while another live process holds it, and taking over one
 * whose owner died without releasing it. Returns its release. For work that
 * two `npm start` of one checkout must not do at once (the layer fonts of a
 * fresh clone); processes of one machine only.
 */
export async function acquireFileLock(
  path: string,
  { waiting, timeoutMs = 10 * 60_000, pollMs = 200 }: { waiting?: (owner: number) => void; timeoutMs?: number; pollMs?: number } = {},
): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (let told = false; ; ) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = lockOwner(path);
    if (owner === undefined) continue;
    if (owner > 0 && !alive(owner)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`process ${owner} has held ${path} for ${Math.round(timeoutMs / 1000)} s; remove the file if that process is not running`);
    if (!told) waiting?.(owner);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The pid in the lock file, 0 while its owner is still writing it, undefined once it is gone. */
function lockOwner(path: string): number | undefined {
  try {
    return Number(readFileSync(path, 'utf8')) || 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
