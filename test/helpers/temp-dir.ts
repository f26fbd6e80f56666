import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
let hooked = false;

/** Removes what `track` was given; the test process is exiting, so synchronously. */
function removeAll(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  made.clear();
}

/** Removes `dir` when this test process exits, whether its tests passed, failed or threw; answers `dir`. */
export function removedAtExit(dir: string): string {
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAll);
  }
  return dir;
}

/**
 * A fresh folder in the temporary directory (`<tmp>/<prefix>XXXXXX`), removed
 * when this test process exits even if a test failed before its own cleanup.
 * Remove it earlier with `removeTempDir` where a test wants it gone at once.
 */
export function tempDir(prefix: string): string {
  return removedAtExit(mkdtempSync(join(tmpdir(), prefix)));
}

/** A folder of a fixed name in the temporary directory (a configuration keyed on the path), fresh and removed at exit. */
export function fixedTempDir(name: string): string {
  const dir = join(tmpdir(), name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return removedAtExit(dir);
}

/** Removes a folder `tempDir` made, now. */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  made.delete(dir);
}
