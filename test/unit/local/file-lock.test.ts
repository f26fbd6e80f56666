import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock } from '../../../scripts/local-runtime/file-lock.js';

/** npm start builds a fresh clone's layer fonts under this lock: two starting at once must not build into each other. */
describe('the local runtime\'s file lock', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-lock-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a second holder wait until the first releases', async () => {
    // Prepare
    const lock = join(dir, 'wait.lock');
    const releaseFirst = await acquireFileLock(lock);
    const events: string[] = [];
    // Act
    const second = acquireFileLock(lock, { pollMs: 10, waiting: (owner) => events.push(`waiting for ${owner}`) }).then((release) => {
      events.push('second holds it');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.push('first releases');
    releaseFirst();
    const releaseSecond = await second;
    // Assess
    assert.deepEqual(events, [`waiting for ${process.pid}`, 'first releases', 'second holds it']);
    assert.equal(readFileSync(lock, 'utf8'), String(process.pid));
    releaseSecond();
    assert.equal(existsSync(lock), false);
  });

  it('takes over a lock whose owner died without releasing it', async () => {
    // Prepare: the pid of a process that has exited
    const lock = join(dir, 'stale.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lock, dead);
    let waited = false;
    // Act
    const release = await acquireFileLock(lock, { pollMs: 10, waiting: () => (waited = true) });
    // Assess
    assert.equal(waited, false);
    assert.equal(readFileSync(lock, 'utf8'), String(process.pid));
    release();
  });

  it('gives up with the owner named once the wait is past its bound', async () => {
    // Prepare: held by this (live) process
    const lock = join(dir, 'held.lock');
    const release = await acquireFileLock(lock);
    // Act / Assess
    await assert.rejects(acquireFileLock(lock, { pollMs: 10, timeoutMs: 50 }), new RegExp(`process ${process.pid} has held`));
    release();
  });
});
