import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { killGroup } from '../../../lib/render/browser/launch-browser.js';
import { rememberTree, signalAll } from '../../../scripts/local-runtime/process-tree.js';
import { isSameProcess, isStillRunning, rememberProcess, signalGroup, signalProcess, type ProcessIdentity } from '../../../lib/process/process-identity.js';

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A process that sleeps until killed; `detached` makes it lead its own process group, as puppeteer starts Chromium. */
async function sleeper(detached = false): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore', detached });
  started.push(child);
  await once(child, 'spawn');
  return child;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * What a remembered identity looks like once the kernel has handed its pid to
 * another process: the pid of `now`, with the start time of a process that
 * began before it (one clock tick earlier: two real processes may start in
 * the same tick, so the time is written rather than waited for). Pids are
 * reused only after the counter wraps, which a test cannot wait for; the
 * record is the same either way.
 */
function reusedPid(now: ChildProcess): ProcessIdentity {
  const current = rememberProcess(now.pid as number)?.start;
  assert.ok(current !== undefined, 'the process is running');
  return { pid: now.pid as number, start: String(Number(current) - 1) };
}

describe('signals to remembered processes', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  it('remembers when a process started, from field 22 of /proc/<pid>/stat', async () => {
    // Prepare
    const child = await sleeper();

    // Act
    const remembered = rememberProcess(child.pid as number);

    // Assess
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    assert.equal(remembered?.start, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    assert.ok(isSameProcess(remembered as ProcessIdentity));
  });

  it('does not signal a remembered pid that now belongs to another process', async () => {
    // Prepare: the pid's new owner, started after the remembered one.
    await sleep(30);
    const stranger = await sleeper();
    const stale = reusedPid(stranger);

    // Act
    const sent = signalProcess(stale, 'SIGKILL');

    // Assess
    await sleep(100);
    assert.equal(sent, false);
    assert.ok(running(stranger), 'the process that took the pid is still running');
  });

  it('does not kill the process group of another browser that took a remembered browser pid', async () => {
    // Prepare: a fresh "browser", leading its own group as puppeteer starts Chromium, with a helper in its group.
    const freshBrowser = spawn('sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore', detached: true });
    started.push(freshBrowser);
    await once(freshBrowser, 'spawn');
    await sleep(100);
    const helper = rememberTree(freshBrowser.pid as number)[1] as ProcessIdentity;
    const stale = reusedPid(freshBrowser);

    // Act
    const killed = killGroup(stale);

    // Assess
    await sleep(100);
    assert.equal(killed, false);
    assert.ok(running(freshBrowser), 'the fresh browser runs on');
    assert.ok(isSameProcess(helper), 'and so does its helper');
  });

  it('does not signal a remembered process that is gone', async () => {
    // Prepare
    const child = await sleeper(true);
    const remembered = rememberProcess(child.pid as number) as ProcessIdentity;
    child.kill('SIGKILL');
    await once(child, 'exit');

    // Act
    const sent = [signalProcess(remembered, 'SIGKILL'), signalGroup(remembered, 'SIGKILL')];

    // Assess
    assert.deepEqual(sent, [false, false]);
  });

  it('still kills a browser and the helpers of its group while its pid is its own', async () => {
    // Prepare
    const browser = spawn('sh', ['-c', 'sleep 60 & wait'], { stdio: 'ignore', detached: true });
    started.push(browser);
    await once(browser, 'spawn');
    await sleep(100);
    const [leader, helper] = rememberTree(browser.pid as number) as [ProcessIdentity, ProcessIdentity];

    // Act
    const killed = killGroup(leader);

    // Assess
    await once(browser, 'exit');
    await sleep(100);
    assert.equal(killed, true);
    assert.equal(isStillRunning(helper), false, 'the helper went with it');
  });

  it('signals the processes of a remembered tree that are still the same, and only those', async () => {
    // Prepare
    const same = await sleeper();
    const stranger = await sleeper();
    const stale = reusedPid(stranger);

    // Act
    signalAll([rememberProcess(same.pid as number) as ProcessIdentity, stale], 'SIGKILL');

    // Assess
    await once(same, 'exit');
    await sleep(100);
    assert.equal(same.signalCode, 'SIGKILL');
    assert.ok(running(stranger), 'the process that took the pid is still running');
  });
});
