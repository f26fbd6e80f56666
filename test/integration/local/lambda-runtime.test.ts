import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLambdaRuntime, type Invocation, type LambdaRuntime } from '../../../lib/local/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../../../lib/local/local-aws.js';
import type { LocalFunction } from '../../../lib/local/service-definition.js';
import { FIXTURE_SERVERLESS_FILE } from '../../helpers/emulators.js';

/** What the fixture's lifecycle handler reports about the instance it ran in. */
type Report = { pid: number; invocations: number; mostActive: number; timerRuns: number; env: Record<string, string> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process state letter from /proc (T: stopped), or undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Running or stopped; a zombie waiting for its parent to reap it is already gone. */
const isAlive = (pid: number) => {
  const state = processState(pid);
  return state !== undefined && state !== 'Z';
};

describe('createLambdaRuntime', () => {
  let local: LocalAws;
  let runtime: LambdaRuntime;
  const errors: string[] = [];
  const fn = (key: string) => local.service.functions.find((candidate) => candidate.key === key) as LocalFunction;
  const report = (invocation: Invocation): Report => {
    assert.ok(invocation.ok, `invocation failed: ${invocation.ok ? '' : invocation.error.message}`);
    return invocation.result as Report;
  };

  before(async () => {
    process.env.ONLY_IN_THE_RUNNER = 'must not leak into instances';
    local = await startLocalAws({ file: FIXTURE_SERVERLESS_FILE });
    runtime = createLambdaRuntime({
      serviceDir: local.service.serviceDir,
      region: local.service.region,
      accountId: LOCAL_ACCOUNT_ID,
      environmentOf: local.environmentOf,
      maxInstances: 2,
      logError: (line) => errors.push(line),
    });
  });
  after(async () => {
    delete process.env.ONLY_IN_THE_RUNNER;
    await runtime?.stop();
    await local?.stop();
  });

  it('runs one invocation at a time per instance: concurrent ones get more instances, up to the cap', async () => {
    // Act: three at once, each busy for a while, with at most two instances
    const reports = (await Promise.all([1, 2, 3].map(() => runtime.invoke(fn('lifecycle'), { sleepMs: 300 })))).map(report);

    // Assess: two instances, none ever ran two invocations at once, the third waited for one
    const pids = new Set(reports.map((item) => item.pid));
    assert.equal(pids.size, 2);
    assert.ok(reports.every((item) => item.mostActive === 1));
    assert.equal(runtime.instanceCount('lifecycle'), 2);
    assert.deepEqual(reports.map((item) => item.invocations).sort(), [1, 1, 2]);
  });

  it('freezes an instance once it has answered: work it scheduled runs only at the next invocation', async () => {
    // Prepare
    const marker = path.join(mkdtempSync(path.join(tmpdir(), 'docrender-freeze-')), 'ran');

    // Act: work due 50 ms after the answer, then twenty times that of idle time
    const first = report(await runtime.invoke(fn('lifecycle'), { scheduleMs: 50, marker }));
    await sleep(1000);
    const stateWhileIdle = processState(first.pid);
    const ranWhileIdle = existsSync(marker);
    const second = report(await runtime.invoke(fn('lifecycle'), { sleepMs: 200 }));

    // Assess: stopped and silent while idle; the overdue work ran once thawed, in the same instance
    assert.equal(stateWhileIdle, 'T');
    assert.equal(ranWhileIdle, false);
    assert.equal(second.pid, first.pid);
    assert.equal(second.timerRuns, first.timerRuns + 1);
    assert.ok(existsSync(marker));
  });

  it('gives each function exactly its own environment and the variables Lambda sets', async () => {
    // Act
    const { env } = report(await runtime.invoke(fn('lifecycle'), {}));
    const echo = await runtime.invoke(fn('echo'), { rawPath: '/items/1' });

    // Assess
    assert.equal(env.ONLY_LIFECYCLE, "lifecycle's own");
    assert.equal(env.ONLY_ECHO, undefined, "another function's variable");
    assert.equal(env.ONLY_IN_THE_RUNNER, undefined, "the runner's own variable");
    assert.equal(env.JOBS_QUEUE_URL, local.resources.created.JobsQueue?.ref);
    assert.equal(env.AWS_LAMBDA_FUNCTION_NAME, 'fixture-test-lifecycle');
    assert.equal(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, '256');
    assert.equal(env.AWS_REGION, 'us-east-1');
    assert.ok(echo.ok);
    const body = JSON.parse((echo.result as { body: string }).body) as { env: Record<string, string> };
    assert.equal(body.env.ONLY_ECHO, "echo's own");
  });

  it('discards an instance whose invocation timed out', async () => {
    // Act
    const timedOut = await runtime.invoke(fn('slow'), {});
    const countAfter = runtime.instanceCount('slow');

    // Assess
    assert.equal(timedOut.ok, false);
    assert.equal(!timedOut.ok && timedOut.timedOut, true);
    assert.equal(countAfter, 0);
    assert.ok(errors.some((line) => /Task timed out after 1\.00 seconds/.test(line)));
  });

  it('leaves no process behind once stopped, frozen instances included', async () => {
    // Prepare
    await runtime.invoke(fn('lifecycle'), {});
    const pids = runtime.pids();
    assert.ok(pids.length >= 2);

    // Act
    await runtime.stop();

    // Assess
    assert.deepEqual(pids.filter(isAlive), []);
    assert.equal(runtime.instanceCount('lifecycle'), 0);
  });
});
