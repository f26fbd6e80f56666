import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { banner, killRun, leftAfter, processesOf } from '../../helpers/run-processes.js';
import { removeTempDir, tempDir } from '../../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** What is in a temporary directory, top level. */
function listing(dir: string): string[] {
  return readdirSync(dir).sort();
}

/**
 * Caches that outlive a run by design, for the next one: tsx's compile
 * cache, Node's (the rendering functions keep their modules' compiled code
 * there, lib/lambda/compile-cache.ts), and the `locales` folder Chromium
 * makes beside its binary (unpacked into the temporary directory itself).
 */
const SHARED_CACHES = /^(?:tsx-\d+|node-compile-cache|locales)$/;

/** What a run added to its temporary directory, shared caches apart. */
function leftovers(run: { marker: string; baseline: string[] }): string[] {
  return listing(run.marker).filter((name) => !run.baseline.includes(name) && !SHARED_CACHES.test(name));
}

type Run = { child: ChildProcess; marker: string; baseUrl: string; token: string; output: () => string };

/**
 * Starts `npm start`'s script with a temporary directory of its own, in a
 * process group of its own (as a service manager starts it). Chromium is
 * unpacked there first: a shared cache meant to outlive a run (on Lambda, the
 * unpacked Chromium serves every warm invocation), so what is there before
 * the start is the baseline.
 */
async function start(): Promise<Run & { baseline: string[] }> {
  const marker = tempDir('docrender-stop-files-');
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', TMPDIR: marker, DEV_STACKS_DIR: marker, ALLOW_PRIVATE_HOSTS: '127.0.0.1' };
  delete env.DEV_STACK_FILE;
  delete env.CHROMIUM_PATH;
  execFileSync(process.execPath, ['-e', "import('@sparticuz/chromium').then((chromium) => chromium.default.executablePath())"], { cwd: root, env });
  const baseline = listing(marker);
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // A hang guard, not a measure: the machine may be loaded by other work.
  return { child, marker, baseline, ...(await banner(child, 180_000)) };
}

describe('stopping npm start as systemd does leaves nothing in the temporary directory', () => {
  const markers: string[] = [];
  after(() => {
    for (const marker of markers) {
      killRun(marker);
      removeTempDir(marker);
    }
  });

  const ways = {
    'SIGTERM to every process of the tree at once (npm start, its instances, Chromium)': (run: Run, tree: number[]) => {
      for (const pid of tree) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone
        }
      }
    },
    "SIGTERM to npm start's process group (kill -TERM -- -pgid)": (run: Run) => process.kill(-(run.child.pid as number), 'SIGTERM'),
  };
  for (const [way, stop] of Object.entries(ways)) {
    it(`${way}: no profile or other folder of the service remains`, async () => {
      // Prepare: one render, so that an instance runs Chromium (frozen between invocations)
      const run = await start();
      markers.push(run.marker);
      const response = await fetch(`${run.baseUrl}/v1/pdf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ page: { html: Buffer.from('<h1>one render</h1>').toString('base64') } }),
      });
      await response.arrayBuffer();
      assert.equal(response.status, 200, run.output());
      const tree = processesOf(run.marker);
      assert.ok(tree.some(({ cmd }) => /chrom/i.test(cmd)), 'Chromium was running');
      assert.ok(listing(run.marker).some((name) => name.startsWith('docrender-chromium-')), 'a profile folder was made');

      // Act
      stop(run, tree.map(({ pid }) => pid));

      // Assess
      assert.deepEqual(await leftAfter(run.marker, 30_000), [], run.output());
      assert.deepEqual(leftovers(run), []);
    });
  }
});
