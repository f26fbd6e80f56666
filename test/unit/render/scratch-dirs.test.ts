import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeScratchOf, scratchPrefix, sweepScratchOnce } from '../../../lib/render/browser/scratch-dirs.js';

describe('scratch folders of the rendering processes', () => {
  const originalTmp = process.env.TMPDIR;
  let tmp: string;
  /** The pid of a process that has ended. */
  let deadPid: number;

  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'docrender-scratch-test-'));
    // os.tmpdir() reads TMPDIR on each call: the module works in this folder only.
    process.env.TMPDIR = tmp;
    deadPid = spawnSync('true').pid as number;
  });
  after(() => {
    if (originalTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = originalTmp;
    rmSync(tmp, { recursive: true, force: true });
  });

  const make = (name: string) => {
    mkdirSync(join(tmp, name, 'Default'), { recursive: true });
    writeFileSync(join(tmp, name, 'Default', 'Preferences'), '{}');
  };

  it('names a folder after the process that makes it', () => {
    // Act / Assess
    assert.equal(scratchPrefix('chromium'), join(tmp, `docrender-chromium-${process.pid}-`));
  });

  it('sweeps, once per process, the folders of ended processes and of an earlier process with this pid, and keeps those of live ones', () => {
    // Prepare
    make(`docrender-chromium-${deadPid}-aaaaaa`);
    make(`docrender-launcher-${deadPid}-bbbbbb`);
    make(`docrender-chromium-${process.pid}-cccccc`);
    make(`docrender-chromium-${process.ppid}-dddddd`);
    make('someone-elses-folder');

    // Act
    sweepScratchOnce();
    make(`docrender-chromium-${deadPid}-eeeeee`);
    sweepScratchOnce();

    // Assess
    assert.deepEqual(readdirSync(tmp).sort(), [`docrender-chromium-${deadPid}-eeeeee`, `docrender-chromium-${process.ppid}-dddddd`, 'someone-elses-folder'].sort());
  });

  it("removes every folder of one process, and only that process's", () => {
    // Prepare
    make(`docrender-chromium-${deadPid}-ffffff`);
    make(`docrender-launcher-${deadPid}-gggggg`);

    // Act
    removeScratchOf(deadPid);

    // Assess
    assert.deepEqual(readdirSync(tmp).filter((name) => name.includes(String(deadPid))), []);
    assert.ok(readdirSync(tmp).includes(`docrender-chromium-${process.ppid}-dddddd`));
  });
});
