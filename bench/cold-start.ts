import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUILD_DIR = join(root, 'bench', 'results', 'build');

export type ColdSide = 'service' | 'bare';

/** One cold start: milliseconds from spawning the process to the PDF in hand, and the phases the process reported. */
export type ColdRun = { side: ColdSide; unpacked: boolean; totalMs: number; phases: Record<string, number>; bytes: number };

/**
 * Bundles the two cold-start entry points the way serverless.yml bundles the
 * functions (esbuild, ESM, minified, Chromium and autoconsent left as
 * packages), so a cold start loads what Lambda would load rather than compiling
 * TypeScript: the service with its dynamic imports split into chunks beside
 * it, as deployed; bare as one file (it has nothing to load later), each built
 * on its own so that they share no chunk.
 */
export async function buildColdStartBundles(): Promise<void> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const options = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // As serverless.yml's custom.esbuild: minified, tree-shaken, names kept, ES module builds first.
    minify: true,
    keepNames: true,
    treeShaking: true,
    mainFields: ['module', 'main'],
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    external: ['@sparticuz/chromium', '@duckduckgo/autoconsent'],
    logLevel: 'error',
  } satisfies BuildOptions;
  await build({ ...options, entryPoints: { 'cold-handler': 'bench/cold-handler.ts' }, splitting: true });
  await build({ ...options, entryPoints: { 'cold-bare': 'bench/cold-bare.ts' } });
}

/**
 * Runs one cold start. `unpacked: false` gives the process a fresh TMPDIR, so
 * @sparticuz/chromium unpacks its binary there as on a new Lambda container
 * (without touching /tmp/chromium, which other processes may be using).
 */
export async function coldStart(side: ColdSide, unpacked: boolean, env: Record<string, string>, onSpawn?: (pid: number) => void): Promise<ColdRun> {
  let freshTmp: string | undefined;
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!unpacked) {
    freshTmp = mkdtempSync(join(tmpdir(), 'docrender-bench-cold-'));
    childEnv.TMPDIR = freshTmp;
  }
  const script = join(BUILD_DIR, side === 'service' ? 'cold-handler.mjs' : 'cold-bare.mjs');
  const started = performance.now();
  const child = spawn(process.execPath, [script], { cwd: root, env: childEnv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const report = await new Promise<{ phases: Record<string, number>; bytes: number; status: number; error?: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${side} cold start took over 90 s`)), 90_000);
      child.once('message', (message) => {
        clearTimeout(timer);
        resolve(message as { phases: Record<string, number>; bytes: number; status: number; error?: string });
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${side} cold start exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
    const totalMs = performance.now() - started;
    if (report.status !== 200) throw new Error(`${side} cold start answered ${report.status}: ${report.error ?? ''}`);
    return { side, unpacked, totalMs, phases: report.phases, bytes: report.bytes };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    if (freshTmp) rmSync(freshTmp, { recursive: true, force: true });
  }
}
