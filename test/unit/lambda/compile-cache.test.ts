/**
 * The rendering functions' compile cache (lib/lambda/compile-cache.ts): in the
 * temporary directory, on disk before the process is killed (Lambda kills,
 * it does not exit), read by the next process that starts there. Run in child processes from a bundle, since the test
 * runner's TypeScript loader turns Node's compile cache on by itself.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { tempDir } from '../../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** A process that turns the cache on, loads a module, flushes (once or twice) and says where Node keeps the cache. */
const DRIVER = `
  import { enableCompileCache, flushCompileCacheOnce } from './lib/lambda/compile-cache.ts';
  import { getCompileCacheDir } from 'node:module';
  enableCompileCache();
  const { answer } = await import(process.env.MODULE_URL);
  flushCompileCacheOnce();
  flushCompileCacheOnce();
  console.log(JSON.stringify({ dir: getCompileCacheDir(), answer: answer() }));
  // As Lambda ends a process: killed, so Node's own write at exit never happens.
  if (process.env.KILL) await new Promise(() => process.stdout.write('', () => process.kill(process.pid, 'SIGKILL')));`;

async function driver(): Promise<string> {
  const outdir = tempDir('docrender-compile-cache-build-');
  await build({ stdin: { contents: DRIVER, resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: join(outdir, 'driver.mjs'), logLevel: 'silent' });
  return join(outdir, 'driver.mjs');
}

describe('the compile cache', () => {
  it('lives in the temporary directory, outlives a killed process, and serves the next process there', async () => {
    // Prepare: a fresh /tmp of its own, and a module to compile
    const tmp = tempDir('docrender-compile-cache-');
    const moduleFile = join(tmp, 'module.mjs');
    writeFileSync(moduleFile, `export function answer() { return ${'1 + '.repeat(200)}0; }\n`);
    const file = await driver();
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, MODULE_URL: `file://${moduleFile}`, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    delete env.NODE_COMPILE_CACHE;
    delete env.NODE_OPTIONS;
    const run = (extra: Record<string, string> = {}) =>
      promisify(execFile)(process.execPath, [file], { cwd: root, env: { ...env, ...extra } }).catch((error: { stdout: string; stderr: string; signal?: string }) => {
        assert.equal(error.signal, 'SIGKILL');
        return error;
      });
    // Act: the first process killed after its flush, as Lambda ends one (no exit hooks), the second one ends normally
    const first = await run({ KILL: '1' });
    const second = await run();
    // Assess: the cache sits in <tmp>/node-compile-cache, holds what the killed process compiled, and the second reads it
    const out = JSON.parse(first.stdout) as { dir: string; answer: number };
    assert.equal(out.answer, 200);
    assert.ok(out.dir.startsWith(join(tmp, 'node-compile-cache')), out.dir);
    assert.ok(readdirSync(out.dir).length > 0, 'entries written before the kill');
    assert.match(second.stderr, /module\.mjs.*(success|hit)|(success|hit).*module\.mjs/i);
  });
});
