import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { deployedBuild } from './deployed-build.js';
import { CHROMIUM_PACK_FILE } from '../lib/render/browser/chromium-pack.js';
import { CHROMIUM_LAYER_DIR, packageBinDir, writeChromiumPack } from '../scripts/build-layer.js';
import { createExtensionsApi, type ExtensionsApi } from '../scripts/local-runtime/extensions-api.js';
import { layerFontEnvironment } from '../scripts/local-runtime/layers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUILD_DIR = join(root, 'bench', 'results', 'build');

export type ColdSide = 'service' | 'bare';

/** One cold start: milliseconds from spawning the process to the PDF in hand, and the phases the process reported. */
export type ColdRun = { side: ColdSide; unpacked: boolean; totalMs: number; phases: Record<string, number>; bytes: number };

/**
 * Bundles the two cold-start entry points the way serverless.yml bundles the
 * functions (its `custom.esbuild`: ESM, minified, split, Chromium and
 * autoconsent left as packages), so a cold start loads what Lambda would load
 * rather than compiling TypeScript: the service with its dynamic imports split
 * into chunks beside it, as deployed; bare as one file (it has nothing to load
 * later) and without source maps, as a bare script would be deployed; each
 * built on its own so that they share no chunk. Both get the deployed
 * esbuild plugin for a Node quirk: bare is not slowed by the undici that an
 * ES-module import of node:http loads (scripts/esbuild-plugins.cjs). Bare
 * keeps Puppeteer's `ws` and `@puppeteer/browsers`, as a bare script's bundle
 * would: leaving them out (pipe-launch-only) is the service's own work.
 */
export async function buildColdStartBundles(): Promise<void> {
  await ensureChromiumPack();
  // Chunks of an earlier build would sit beside the new ones, unused: start clean.
  rmSync(BUILD_DIR, { recursive: true, force: true });
  mkdirSync(BUILD_DIR, { recursive: true });
  const { options: deployed } = deployedBuild();
  const local = { absWorkingDir: root, outdir: BUILD_DIR, logLevel: 'error' } satisfies BuildOptions;
  await build({ ...deployed, ...local, entryPoints: { 'cold-handler': 'bench/cold-handler.ts' } });
  // Bare keeps what a bare script's bundle would hold: only the Node quirk's fix, not our leaving out of
  // what Puppeteer imports for connecting by URL and downloading browsers (pipe-launch-only).
  const bareOptions = { ...deployed, plugins: deployed.plugins?.filter((plugin) => plugin.name !== 'pipe-launch-only') };
  await build({ ...bareOptions, ...local, entryPoints: { 'cold-bare': 'bench/cold-bare.ts' }, splitting: false, sourcemap: false });
}

const PACK = join(CHROMIUM_LAYER_DIR, CHROMIUM_PACK_FILE);

/**
 * The layer's Chromium pack, which the service's cold start unpacks as it
 * would from /opt/chromium on Lambda: written by `npm run build:layer`, or
 * here when missing or older than the installed @sparticuz/chromium.
 */
async function ensureChromiumPack(): Promise<void> {
  if (existsSync(PACK) && statSync(PACK).mtimeMs >= statSync(join(packageBinDir(), 'chromium.br')).mtimeMs) return;
  console.error('Writing the Chromium layer pack once (layers/chromium/chromium/; npm run build:layer does the whole layer)…');
  await writeChromiumPack(CHROMIUM_LAYER_DIR);
}

/**
 * The service's own account of its first request, from its request log line:
 * the handler's duration (the middy stack: auth, rate, quota, validation,
 * render, answer) and the render's within it, in ms.
 */
function handlerPhases(stdout: string): Record<string, number> {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { message?: string; durationMs?: number; timings?: { total?: number } };
      if (entry.message === 'request' && typeof entry.durationMs === 'number') {
        return { handlerMs: entry.durationMs, ...(typeof entry.timings?.total === 'number' ? { renderMs: entry.timings.total } : {}) };
      }
    } catch {
      // not a log line of ours
    }
  }
  return {};
}

/** The cold handler's one invocation, as Lambda names it to the extensions (and the handler's context). */
const COLD_REQUEST_ID = 'cold-start';

/**
 * Runs one cold start. `unpacked: false` gives the process a fresh TMPDIR, so
 * @sparticuz/chromium unpacks its binary there as on a new Lambda container
 * (without touching /tmp/chromium, which other processes may be using).
 * The service gets an Extensions API, as on Lambda: its INIT registers the
 * isolation extension, and the invocation is delivered to it once the
 * process says INIT is over, so the service works as deployed (the next
 * session opens after the answer, in the post-response phase, not alongside
 * the first render as a process without the API would).
 */
export async function coldStart(side: ColdSide, unpacked: boolean, env: Record<string, string>, onSpawn?: (pid: number) => void): Promise<ColdRun> {
  let freshTmp: string | undefined;
  let extensions: ExtensionsApi | undefined;
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  // The service runs with the deployed functions' NODE_OPTIONS (source maps, say: they cost a cold start); bare with none.
  if (side === 'service') {
    childEnv.NODE_OPTIONS = deployedBuild().nodeOptions;
    // The layer's pack, where Lambda would find it at /opt/chromium; bare unpacks the package's brotli file.
    childEnv.CHROMIUM_PACK_DIR = dirname(PACK);
    // The layer's fonts and fontconfig (with its cache prebuilt at build time), as the local runtime gives its
    // rendering functions: a cold start on Lambda reads its fonts from there. Bare keeps the package's Open Sans.
    Object.assign(childEnv, layerFontEnvironment([CHROMIUM_LAYER_DIR], root));
    extensions = createExtensionsApi({ functionName: 'docrender-bench-pdf', functionVersion: '$LATEST', handler: 'cold-handler.handler' });
    childEnv.AWS_LAMBDA_RUNTIME_API = await extensions.address;
    childEnv.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  } else {
    delete childEnv.NODE_OPTIONS;
  }
  if (!unpacked) {
    freshTmp = mkdtempSync(join(tmpdir(), 'docrender-bench-cold-'));
    childEnv.TMPDIR = freshTmp;
  }
  const script = join(BUILD_DIR, side === 'service' ? 'cold-handler.mjs' : 'cold-bare.mjs');
  const started = performance.now();
  const child = spawn(process.execPath, [script], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    const report = await new Promise<{ phases: Record<string, number>; bytes: number; status: number; error?: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${side} cold start took over 90 s`)), 90_000);
      child.on('message', (message: { init?: boolean }) => {
        if (message.init) {
          // INIT is over (the runtime asks for its first event): the invocation goes to the extensions too.
          extensions?.closeRegistration();
          extensions?.deliver({
            eventType: 'INVOKE',
            requestId: COLD_REQUEST_ID,
            deadlineMs: Date.now() + 30_000,
            invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:docrender-bench-pdf',
            tracing: { type: 'X-Amzn-Trace-Id', value: 'Root=1-00000000-000000000000000000000000' },
          });
          return;
        }
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
    return { side, unpacked, totalMs, phases: { ...report.phases, ...handlerPhases(stdout) }, bytes: report.bytes };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    extensions?.close();
    if (freshTmp) rmSync(freshTmp, { recursive: true, force: true });
  }
}
