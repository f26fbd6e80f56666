import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startEmulatorsApart } from '../../../scripts/local-runtime/emulators.js';
import { createLambdaRuntime, type Invocation } from '../../../scripts/local-runtime/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, startLocalAws } from '../../../scripts/local-runtime/local-aws.js';
import { MEMORY_STATS_DIR_VARIABLE, type MemoryStats } from '../../../scripts/local-runtime/memory-stats.js';
import { processTree } from '../../../scripts/local-runtime/process-tree.js';
import type { LocalFunction } from '../../../scripts/local-runtime/service-definition.js';
import { FIXTURE_SERVERLESS_FILE } from '../../helpers/emulators.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const EMULATORS_MODULE = fileURLToPath(new URL('../../../scripts/local-runtime/emulators.ts', import.meta.url));

/** Running or stopped; a zombie waiting for its parent to reap it is already gone. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

const readStats = (dir: string, pid: number) => JSON.parse(readFileSync(path.join(dir, `${pid}.json`), 'utf8')) as MemoryStats;

describe('memory figures for the soak (LOCAL_MEMORY_STATS_DIR)', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("has each instance report its own heap after every invocation, and the runtime its own, without the handler seeing the variable", async () => {
    // Prepare
    const statsDir = mkdtempSync(path.join(tmpdir(), 'docrender-heaps-'));
    dirs.push(statsDir);
    process.env[MEMORY_STATS_DIR_VARIABLE] = statsDir;
    const local = await startLocalAws({ file: FIXTURE_SERVERLESS_FILE });
    const runtime = createLambdaRuntime({
      serviceDir: local.service.serviceDir,
      region: local.service.region,
      accountId: LOCAL_ACCOUNT_ID,
      environmentOf: local.environmentOf,
      maxInstances: 1,
      logError: () => undefined,
    });
    const lifecycle = local.service.functions.find((fn) => fn.key === 'lifecycle') as LocalFunction;
    try {
      // Act
      const first = (await runtime.invoke(lifecycle, {})) as Invocation & { ok: true };
      const pid = (first.result as { pid: number }).pid;
      const afterFirst = readStats(statsDir, pid);
      const second = (await runtime.invoke(lifecycle, {})) as Invocation & { ok: true };
      const afterSecond = readStats(statsDir, pid);
      const runtimeReported = await waitFor(() => existsSync(path.join(statsDir, `${process.pid}.json`)), 3_000);

      // Assess
      assert.equal(afterFirst.role, 'fixture-test-lifecycle');
      assert.equal(afterFirst.invocations, 1);
      assert.equal(afterSecond.invocations, 2);
      assert.ok(afterSecond.heapUsed > 0 && afterSecond.heapTotal >= afterSecond.heapUsed && afterSecond.heapLimit > afterSecond.heapTotal);
      assert.equal((second.result as { env: Record<string, string> }).env[MEMORY_STATS_DIR_VARIABLE], undefined, 'runner plumbing, not the function\'s environment');
      assert.ok(runtimeReported);
      assert.equal(readStats(statsDir, process.pid).role, 'runtime');
    } finally {
      delete process.env[MEMORY_STATS_DIR_VARIABLE];
      await runtime.stop();
      await local.stop();
    }
  });
});

describe('startEmulatorsApart', () => {
  it('runs the emulators in a child process that serves the AWS APIs and is gone once stopped', async () => {
    // Act
    const emulators = await startEmulatorsApart();
    const children = processTree(process.pid).slice(1).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('emulator-process'));
    const dynamo = new DynamoDBClient({ region: 'us-east-1', endpoint: emulators.endpoints.dynamodb, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const tables = await dynamo.send(new ListTablesCommand({})).finally(() => dynamo.destroy());
    await emulators.stop();

    // Assess
    assert.equal(children.length, 1);
    assert.deepEqual(tables.TableNames, []);
    assert.equal(isAlive(children[0] as number), false);
  });

  it('does not outlive its parent, even one killed with SIGKILL', async () => {
    // Prepare: a parent that starts them and prints their endpoint
    const script = `import { startEmulatorsApart } from ${JSON.stringify(EMULATORS_MODULE)};
const emulators = await startEmulatorsApart();
console.log(emulators.endpoints.dynamodb);
setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    assert.ok(await waitFor(() => out.includes('http://'), 30_000), 'the emulators did not start');
    const child = processTree(parent.pid as number).find((pid) => pid !== parent.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('emulator-process'));
    assert.ok(child, 'no emulator process under the parent');

    // Act
    parent.kill('SIGKILL');
    await once(parent, 'exit');

    // Assess
    assert.ok(await waitFor(() => !isAlive(child), 5_000), 'the emulators outlived their parent');
  });
});
