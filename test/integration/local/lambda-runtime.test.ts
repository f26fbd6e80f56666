import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLambdaRuntime, type Invocation, type LambdaRuntime } from '../../../scripts/local-runtime/lambda-runtime.js';
import { parseReportLine } from '../../../scripts/local-runtime/report-line.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../../../scripts/local-runtime/local-aws.js';
import type { LocalFunction } from '../../../scripts/local-runtime/service-definition.js';
import { FIXTURE_SERVERLESS_FILE } from '../../helpers/emulators.js';
import { waitFor } from '../../helpers/wait-for.js';
import { tempDir } from '../../helpers/temp-dir.js';

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
  const reportLines: string[] = [];
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
      logReport: (line) => reportLines.push(line),
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
    const marker = path.join(tempDir('docrender-freeze-'), 'ran');

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
    assert.equal(env.AWS_LAMBDA_INITIALIZATION_TYPE, 'on-demand');
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

  describe('the Extensions API: the post-response phase', () => {
    type Answer = { pid: number; registered: boolean; invocations: number; requestId: string };
    const reportOf = (requestId: string) => reportLines.map(parseReportLine).find((line) => line?.requestId === requestId);
    const answerOf = (invocation: Invocation) => {
      assert.ok(invocation.ok, `invocation failed: ${invocation.ok ? '' : invocation.error.message}`);
      return invocation.result as Answer;
    };
    const frozen = (pid: number) => waitFor(`process ${pid} frozen`, () => (processState(pid) === 'T' ? true : undefined));

    it('answers before the post-response work ends, gives a busy instance no invocation, and freezes it once the work is done', async () => {
      // Prepare: the work after the answer waits for a file that only this test creates
      const dir = tempDir('docrender-post-response-');
      const go = path.join(dir, 'go');
      const marker = path.join(dir, 'done');

      // Act: the invocation answers while its extension still works
      const first = await runtime.invoke(fn('afterwork'), { go, marker });
      const answer = answerOf(first);
      const doneAtAnswer = existsSync(marker);
      const stateAtAnswer = processState(answer.pid);
      // One arriving meanwhile
      const second = await runtime.invoke(fn('afterwork'), {});
      const secondEnd = await second.ended;
      writeFileSync(go, '');
      const end = await first.ended;

      // Assess: the answer came first; the instance stayed busy, so the next invocation started another
      assert.equal(answer.registered, true);
      assert.equal(doneAtAnswer, false, 'the post-response work had ended before the answer came back');
      assert.notEqual(stateAtAnswer, 'T', 'frozen while its extension still worked');
      assert.notEqual(answerOf(second).pid, answer.pid, 'an instance in its post-response phase was given the next invocation');
      assert.equal(secondEnd?.outcome, 'frozen');
      // The work ended, then the freeze; the instance is free again
      assert.equal(end?.outcome, 'frozen');
      assert.ok(existsSync(marker));
      await frozen(answer.pid);
      const third = answerOf(await runtime.invoke(fn('afterwork'), {}));
      assert.ok([answer.pid, answerOf(second).pid].includes(third.pid));
      assert.equal(runtime.instanceCount('afterwork'), 2);
    });

    it('writes the REPORT line once the post-response phase has ended, that phase in its Billed Duration', async () => {
      // Prepare
      const dir = tempDir('docrender-post-response-');
      const go = path.join(dir, 'go');

      // Act
      const invocation = await runtime.invoke(fn('afterwork'), { go, marker: path.join(dir, 'done') });
      const answer = answerOf(invocation);
      const reportAtAnswer = reportOf(answer.requestId);
      writeFileSync(go, '');
      const end = await invocation.ended;
      const report = await waitFor('the REPORT line', () => reportOf(answer.requestId));

      // Assess: none while the extension worked; then the phase the runtime measured, billed on top of the runtime's part
      assert.equal(reportAtAnswer, undefined, 'REPORT written before the post-response phase ended');
      assert.equal(report.postResponseMs, end?.postResponseMs);
      assert.equal(report.billedMs, Math.ceil(report.runtimeMs + report.postResponseMs));
      assert.equal(report.memoryMb, fn('afterwork').memoryMb);
    });

    it("cuts off, by the extension's own bound, work that ignores it: the instance still freezes and stays", async () => {
      // Prepare
      const dir = tempDir('docrender-post-response-');
      const marker = path.join(dir, 'done');
      const abortMarker = path.join(dir, 'aborted');

      // Act: work that never ends, with a bound of 300 ms
      const invocation = await runtime.invoke(fn('afterwork-bounded'), { ignoreAbort: true, marker, abortMarker });
      const end = await invocation.ended;

      // Assess
      const { pid } = answerOf(invocation);
      assert.equal(end?.outcome, 'frozen');
      assert.ok(existsSync(abortMarker), 'the work was not told it was cut off');
      assert.equal(existsSync(marker), false);
      await frozen(pid);
      assert.equal(answerOf(await runtime.invoke(fn('afterwork-bounded'), {})).pid, pid);
    });

    it('cuts off an extension that never asks for the next event at the invocation deadline, and discards its instance', async () => {
      // Act
      const invocation = await runtime.invoke(fn('stuck-extension'), {});
      const answer = invocation.ok ? (invocation.result as { pid: number; shutdownStatus: number; registerStatus: number; lateRegistration: number; eventType: string }) : undefined;
      const countAtAnswer = runtime.instanceCount('stuck-extension');
      const end = await invocation.ended;

      // Assess: the answer came; the protocol held (no SHUTDOWN for an internal extension, no registration after INIT)
      assert.ok(answer, 'the invocation failed');
      assert.deepEqual(
        { shutdownStatus: answer.shutdownStatus, registerStatus: answer.registerStatus, lateRegistration: answer.lateRegistration, eventType: answer.eventType },
        { shutdownStatus: 400, registerStatus: 200, lateRegistration: 403, eventType: 'INVOKE' },
      );
      assert.equal(countAtAnswer, 1);
      // Cut off: reported, and the environment reset (the next invocation gets a new one)
      assert.equal(end?.outcome, 'cut-off');
      assert.equal(runtime.instanceCount('stuck-extension'), 0);
      assert.ok(errors.some((line) => /Task timed out after 1\.00 seconds in the post-response phase \(extension stuck /.test(line)), errors.join('\n'));
      await waitFor('the cut-off instance gone', () => (isAlive(answer.pid) ? undefined : true));
    });

    it('ends the invocation of a function without extensions with its answer, as before', async () => {
      // Act: the next invocation comes right as the first answers
      const first = await runtime.invoke(fn('lifecycle'), {});
      const second = await runtime.invoke(fn('lifecycle'), {});
      const end = await first.ended;

      // Assess: the instance was free at once
      assert.equal(report(second).pid, report(first).pid);
      assert.deepEqual(end, { outcome: 'frozen', postResponseMs: 0 });
    });
  });

  it('leaves no process behind once stopped, frozen instances included', async () => {
    // Prepare
    await runtime.invoke(fn('lifecycle'), {});
    const pids = runtime.processes().map(({ pid }) => pid);
    assert.ok(pids.length >= 2);

    // Act
    await runtime.stop();

    // Assess
    assert.deepEqual(pids.filter(isAlive), []);
    assert.equal(runtime.instanceCount('lifecycle'), 0);
  });
});
