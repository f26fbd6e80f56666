import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { watchMajorGc, writeMemoryStats, type MemoryStats } from '../../../scripts/local-runtime/memory-stats.js';

describe('writeMemoryStats', () => {
  it("replaces this process's figures in <dir>/<pid>.json", () => {
    // Prepare
    const dir = mkdtempSync(path.join(tmpdir(), 'docrender-heaps-'));
    try {
      // Act
      writeMemoryStats(dir, 'docrender-dev-pdf', 1);
      writeMemoryStats(dir, 'docrender-dev-pdf', 2);
      const stats = JSON.parse(readFileSync(path.join(dir, `${process.pid}.json`), 'utf8')) as MemoryStats;

      // Assess
      assert.equal(stats.pid, process.pid);
      assert.equal(stats.role, 'docrender-dev-pdf');
      assert.equal(stats.invocations, 2);
      assert.ok(stats.heapUsed > 0 && stats.heapUsed <= stats.heapTotal && stats.heapTotal < stats.heapLimit);
      assert.ok(stats.external >= stats.arrayBuffers);
      assert.ok(stats.newSpace > 0 && stats.newSpace < stats.heapTotal);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never fails the invocation it reports on: a directory that is gone is ignored', () => {
    assert.doesNotThrow(() => writeMemoryStats(path.join(tmpdir(), 'docrender-no-such-dir', 'nested'), 'runtime'));
  });
});

describe('watchMajorGc', () => {
  it('reports the heap left after a full collection once one has run', async () => {
    // Prepare
    const dir = mkdtempSync(path.join(tmpdir(), 'docrender-heaps-'));
    try {
      watchMajorGc();
      // Act: a full collection, forced through V8's flag (this test process was not started with --expose-gc)
      setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as () => void)();
      await new Promise((resolve) => setTimeout(resolve, 50));
      writeMemoryStats(dir, 'runtime');
      const stats = JSON.parse(readFileSync(path.join(dir, `${process.pid}.json`), 'utf8')) as MemoryStats;

      // Assess
      assert.ok(stats.heapAfterMajorGc !== undefined && stats.heapAfterMajorGc > 0 && stats.heapAfterMajorGc <= stats.heapTotal);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
