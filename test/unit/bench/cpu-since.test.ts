import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { cpuByPid, cpuSince } from '../../../bench/process-memory.js';

describe('cpuSince: CPU used between two readings of a set of processes', () => {
  it('counts what each process used since, and all of it for one started since', () => {
    const before = new Map([[10, 100], [11, 50]]);
    const after = new Map([[10, 130], [11, 50], [12, 40]]);
    assert.equal(cpuSince(before, after), 70);
  });

  it('does not take a process that has exited off the total (an instance the runtime stopped)', async () => {
    // Prepare: a process that burns CPU, read while it runs
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 300; while (Date.now() < end);'], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    const before = cpuByPid([child.pid as number]);
    assert.ok((before.get(child.pid as number) ?? 0) > 0, 'the child had used CPU');

    // Act: it exits before the next reading
    await once(child, 'exit');
    const used = cpuSince(before, cpuByPid([]));

    // Assess: nothing, rather than minus its lifetime
    assert.equal(used, 0);
  });
});
