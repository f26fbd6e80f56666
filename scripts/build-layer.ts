/**
 * Builds the Chromium Lambda layer from the installed @sparticuz/chromium
 * package and its runtime dependencies (copied from node_modules: no
 * download). Output: layers/chromium/nodejs/node_modules/…, which Lambda
 * mounts under /opt/nodejs/node_modules.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'layers', 'chromium', 'nodejs', 'node_modules');

/** Finds the installed folder of `name`, walking up from `from` as Node does. */
function resolvePackageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed (run npm ci)`);
  }
}

function copyWithDependencies(name: string, from: string, seen: Set<string>): void {
  const dir = resolvePackageDir(name, from);
  if (seen.has(dir)) return;
  seen.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  cpSync(dir, join(target, name), { recursive: true, dereference: true });
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyWithDependencies(dep, dir, seen);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
    try {
      copyWithDependencies(dep, dir, seen);
    } catch {
      // optional and not installed on this platform
    }
  }
}

rmSync(join(root, 'layers', 'chromium', 'nodejs'), { recursive: true, force: true });
mkdirSync(target, { recursive: true });
const seen = new Set<string>();
copyWithDependencies('@sparticuz/chromium', root, seen);
console.log(`Chromium layer built in layers/chromium/nodejs (${seen.size} packages)`);
