import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launcherChain } from '../../../scripts/local-runtime/parent-watch.js';
import { banner, killRun, leftAfter, processesOf } from '../../helpers/run-processes.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** How long the page of the burst's URL renders takes to answer: they are surely in flight when the service is stopped. */
const SLOW_PAGE_MS = 8_000;

type Run = { child: ChildProcess; baseUrl: string; token: string; marker: string; output: () => string };

/** Starts `npm start` (the real npm, or its script's process directly) with a temporary directory of its own as the run's marker. */
async function start(how: 'npm' | 'direct', stacksDir: string): Promise<Run> {
  const marker = mkdtempSync(path.join(tmpdir(), 'docrender-stop-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', TMPDIR: marker, DEV_STACKS_DIR: stacksDir, ALLOW_PRIVATE_HOSTS: '127.0.0.1' };
  delete env.DEV_STACK_FILE;
  const child =
    how === 'npm'
      ? spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return { child, marker, ...(await banner(child)) };
  } catch (error) {
    rmSync(marker, { recursive: true, force: true });
    throw error;
  }
}

function post(run: Run, endpoint: string, body: unknown): Promise<number> {
  return fetch(run.baseUrl + endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    // The service went away mid-request: expected here.
    () => 0,
  );
}

/**
 * A frozen instance with its Chromium (one render done), then a burst: URL
 * renders stuck on a slow page in thawed and newly started instances, and
 * instances of other functions still starting. Resolves once at least two
 * renders are loading the slow page, so that renders are in flight.
 */
async function burst(run: Run, pages: TestServer): Promise<Promise<number[]>> {
  const html = Buffer.from('<h1>before the burst</h1>').toString('base64');
  assert.equal(await post(run, '/v1/pdf', { page: { html } }), 200, run.output());
  const seen = pages.requests.length;
  const slow = `${pages.url}/slow?${path.basename(run.marker)}`;
  const inFlight = Promise.all([
    post(run, '/v1/pdf', { page: { url: slow } }),
    post(run, '/v1/pdf', { page: { url: slow } }),
    post(run, '/v1/screenshot', { page: { url: slow } }),
    post(run, '/v1/pdf/sync', { page: { html } }),
    post(run, '/v1/screenshot/sync', { page: { html } }),
  ]);
  const deadline = Date.now() + 60_000;
  while (pages.requests.length - seen < 2) {
    assert.ok(Date.now() < deadline, `the burst's renders never reached the page:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(processesOf(run.marker).some(({ cmd }) => /chrom/i.test(cmd)), 'Chromium was running');
  return inFlight;
}

describe('stopping npm start during a burst leaves nothing running', () => {
  const stacksDir = mkdtempSync(path.join(tmpdir(), 'docrender-stop-stacks-'));
  const runs: Run[] = [];
  let pages: TestServer;

  before(async () => {
    pages = await startTestServer({
      '/slow': (_req, res) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>slow</h1>'), SLOW_PAGE_MS).unref();
      },
    });
  });
  after(async () => {
    for (const run of runs) {
      killRun(run.marker);
      rmSync(run.marker, { recursive: true, force: true });
    }
    rmSync(stacksDir, { recursive: true, force: true });
    await pages.close();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal}: npm start stops every instance (busy, frozen, starting) and every Chromium`, async () => {
      // Prepare
      const run = await start('direct', stacksDir);
      runs.push(run);
      const inFlight = await burst(run, pages);

      // Act
      run.child.kill(signal);

      // Assess
      assert.deepEqual(await leftAfter(run.marker), [], run.output());
      await inFlight;
    });
  }

  it('on SIGKILL of npm start itself: instances notice their runtime is gone, frozen ones are reaped', async () => {
    // Prepare
    const run = await start('direct', stacksDir);
    runs.push(run);
    const inFlight = await burst(run, pages);

    // Act: no cleanup can run in npm start
    run.child.kill('SIGKILL');

    // Assess
    assert.deepEqual(await leftAfter(run.marker), [], run.output());
    await inFlight;
  });

  it('on SIGKILL of npm (the parent of its shell and tsx): npm start notices and stops everything', async () => {
    // Prepare
    const run = await start('npm', stacksDir);
    runs.push(run);
    const inFlight = await burst(run, pages);
    // tsx's CLI runs the script in a child node process, started with its loader.
    const servicePid = processesOf(run.marker).find(({ cmd }) => cmd.includes('scripts/start.ts') && /--(import|require)/.test(cmd))?.pid;
    assert.ok(servicePid, 'npm start\'s node process was found');
    assert.ok(launcherChain(servicePid, { npm_lifecycle_script: 'tsx scripts/start.ts' }, 'scripts/start.ts').includes(run.child.pid as number), 'npm is watched');

    // Act: npm dies; the shell and tsx's CLI it started live on
    run.child.kill('SIGKILL');

    // Assess
    assert.deepEqual(await leftAfter(run.marker), [], run.output());
    await inFlight;
  });
});
