import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeMemoryStats, type MemoryStats } from '../../../lib/local/memory-stats.js';

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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never fails the invocation it reports on: a directory that is gone is ignored', () => {
    assert.doesNotThrow(() => writeMemoryStats(path.join(tmpdir(), 'docrender-no-such-dir', 'nested'), 'runtime'));
  });
});
