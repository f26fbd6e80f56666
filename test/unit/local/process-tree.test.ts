import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { freezeTree, processTree, rememberTree, signalAll } from '../../../scripts/local-runtime/process-tree.js';

/** The state letter of /proc/<pid>/stat ('T' is stopped), or undefined once the process is gone. */
const stateOf = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

describe('freezeTree', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  it('stops a tree whose processes keep starting children, the children started during the freeze included', async () => {
    // Prepare: a shell that starts a child as fast as it can (as Chromium starts renderers at any time).
    const root = spawn('sh', ['-c', 'while :; do sleep 30 & done'], { stdio: 'ignore' });
    const pid = root.pid as number;
    try {
      await sleep(200);

      // Act
      const stopped = freezeTree(pid).map((stoppedOne) => stoppedOne.pid);

      // Assess: nothing of the tree runs on, whatever it started while it was being stopped.
      await sleep(100);
      const tree = processTree(pid);
      const running = tree.filter((p) => stateOf(p) !== undefined && stateOf(p) !== 'T');
      assert.deepEqual(running, [], `still running after the freeze: ${running.join(', ')}`);
      assert.ok(stopped.includes(pid), 'the root is among the stopped');
      assert.equal(new Set(tree.filter((p) => stateOf(p) !== undefined)).size, tree.filter((p) => stopped.includes(p)).length, 'every live process of the tree is reported stopped');
    } finally {
      const tree = rememberTree(pid);
      signalAll(tree, 'SIGKILL');
      signalAll(tree, 'SIGCONT');
    }
  });
});
