import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveDevStacks } from '../../../scripts/local-runtime/dev-stack.js';
import { processTree } from '../../../scripts/local-runtime/process-tree.js';
import { alive } from '../../helpers/chromium-processes.js';
import { banner } from '../../helpers/run-processes.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

type Started = { child: ChildProcess; baseUrl: string; token: string; output: () => string };

/** The project's npm start (real functions, real Chromium) on a free port, recording itself in `stacksDir`. */
async function startStack(stacksDir: string): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', DEV_STACKS_DIR: stacksDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, ...(await banner(child)) };
}

/** Renders a small PDF, so the pdf function has an instance with a Chromium (frozen once it answered). */
async function renderPdf(started: Omit<Started, 'child'>): Promise<void> {
  const response = await fetch(`${started.baseUrl}/v1/pdf`, {
    method: 'POST',
    headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ page: { html: Buffer.from('<h1>side by side</h1>').toString('base64') } }),
  });
  assert.equal(response.status, 200, started.output());
  await response.arrayBuffer();
}

async function allGone(pids: number[], limitMs = 20_000): Promise<number[]> {
  const deadline = Date.now() + limitMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(alive);
}

const chromiumIn = (pids: number[]) =>
  pids.filter((pid) => {
    try {
      return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });

function tokensCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tokens.ts', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
}

describe('several npm start side by side', () => {
  const stacksDir = mkdtempSync(path.join(tmpdir(), 'docrender-stacks-'));
  let first: Started;
  let second: Started;
  const cliEnv = (extra: Record<string, string> = {}) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DEV_STACKS_DIR: stacksDir };
    for (const name of ['PORT', 'DEV_STACK_FILE']) delete env[name];
    for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
    return { ...env, ...extra };
  };

  before(async () => {
    [first, second] = await Promise.all([startStack(stacksDir), startStack(stacksDir)]);
  });
  after(async () => {
    for (const started of [first, second]) if (started?.child.exitCode === null) started.child.kill('SIGKILL');
    rmSync(stacksDir, { recursive: true, force: true });
  });

  it('keeps one record per npm start', () => {
    // Act
    const stacks = liveDevStacks({ DEV_STACKS_DIR: stacksDir });

    // Assess
    assert.deepEqual(stacks.map((stack) => stack.pid).sort(), [first.child.pid, second.child.pid].sort());
    assert.deepEqual(stacks.map((stack) => stack.url).sort(), [first.baseUrl, second.baseUrl].sort());
  });

  it('lets the token CLI talk to the one on PORT, and name them all rather than guess without it', async () => {
    // Act
    const port = new URL(second.baseUrl).port;
    const created = await tokensCli(['create'], cliEnv({ PORT: port }));
    const ambiguous = await tokensCli(['create'], cliEnv());

    // Assess: the token works on the second stack only
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    const onSecond = await fetch(`${second.baseUrl}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
    const onFirst = await fetch(`${first.baseUrl}/v1/usage`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(onSecond.status, 200);
    assert.equal(onFirst.status, 401);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, /2 npm start are running/);
    assert.ok(ambiguous.stderr.includes(first.baseUrl) && ambiguous.stderr.includes(second.baseUrl));
  });

  it('leaves no instance and no Chromium running once stopped with Ctrl+C (SIGINT)', async () => {
    // Prepare
    await renderPdf(first);
    const pids = processTree(first.child.pid as number).slice(1);
    assert.ok(chromiumIn(pids).length > 0, 'a Chromium was running under npm start');

    // Act
    first.child.kill('SIGINT');
    const [code] = (await once(first.child, 'exit')) as [number | null];

    // Assess
    assert.equal(code, 0, first.output());
    assert.deepEqual(await allGone(pids), []);
  });

  it('leaves no instance and no Chromium running once the process that started it dies', async () => {
    // Prepare: npm start under a parent that is then killed outright (a closed terminal, a killed test runner)
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { stdio: 'inherit' }); setInterval(() => {}, 1000);`,
      ],
      { cwd: root, env: { ...process.env, PORT: '0', DEV_STACKS_DIR: stacksDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const started = await banner(parent);
    await renderPdf(started);
    const startPid = liveDevStacks({ DEV_STACKS_DIR: stacksDir }).find((stack) => stack.url === started.baseUrl)?.pid as number;
    const pids = processTree(startPid);
    assert.ok(chromiumIn(pids).length > 0, 'a Chromium was running under npm start');

    // Act
    parent.kill('SIGKILL');

    // Assess: npm start itself, its instances and their Chromium
    assert.deepEqual(await allGone(pids), []);
  });

  it('leaves no frozen instance and no Chromium running even when npm start itself is killed outright (SIGKILL)', async () => {
    // Prepare
    const third = await startStack(stacksDir);
    await renderPdf(third);
    const pids = processTree(third.child.pid as number).slice(1);
    assert.ok(chromiumIn(pids).length > 0, 'a Chromium was running under npm start');

    // Act: no cleanup can run in npm start itself
    third.child.kill('SIGKILL');

    // Assess
    assert.deepEqual(await allGone(pids), []);
  });

  it('leaves no instance and no Chromium running once stopped with SIGTERM', async () => {
    // Prepare
    await renderPdf(second);
    const pids = processTree(second.child.pid as number).slice(1);

    // Act
    second.child.kill('SIGTERM');
    const [code] = (await once(second.child, 'exit')) as [number | null];

    // Assess
    assert.equal(code, 0, second.output());
    assert.deepEqual(await allGone(pids), []);
    assert.deepEqual(liveDevStacks({ DEV_STACKS_DIR: stacksDir }), []);
  });
});
