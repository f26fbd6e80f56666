import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { UNPACK_LOCK } from '../../../lib/render/browser/chromium-pack.js';

/**
 * Processes that share a temporary directory (the local runtime's instances,
 * two functions in one Lambda sandbox) unpack Chromium into the same place.
 * @sparticuz/chromium writes its binary in place and takes any file there as
 * unpacked: a process that came while another was still writing spawned a
 * half-written binary and failed within milliseconds ("Chromium could not be
 * started", ETXTBSY), the intermittent failure of fresh-clone CI runs.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A child process that unpacks Chromium into `tmp` and runs it at once: prints its version, or fails. */
function unpackAndRun(tmp: string): Promise<{ code: number | null; out: string }> {
  const script = `
    import { execFileSync } from 'node:child_process';
    import { unpackChromium } from './lib/render/browser/chromium-pack.ts';
    const path = await unpackChromium(undefined);
    process.stdout.write(execFileSync(path, ['--headless=old', '--no-sandbox', '--version'], { encoding: 'utf8' }));
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, env: { ...process.env, TMPDIR: tmp } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('unpackChromium › processes sharing a temporary directory', () => {
  const work = mkdtempSync(join(tmpdir(), 'docrender-unpack-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('lets a process that comes while another unpacks wait for it, instead of spawning a half-written binary', async () => {
    // Prepare: a fresh temporary directory, as a new environment has.
    const tmp = mkdtempSync(join(work, 'tmp-'));
    const binary = join(tmp, 'chromium');

    // Act: the first process starts unpacking; the second comes once the binary's file exists but is not whole.
    const first = unpackAndRun(tmp);
    for (let waited = 0; !existsSync(binary) && waited < 120_000; waited += 5) await sleep(5);
    assert.ok(existsSync(binary), 'the first process began writing the binary');
    const second = unpackAndRun(tmp);
    const [one, two] = await Promise.all([first, second]);

    // Assess
    assert.equal(one.code, 0, one.out);
    assert.equal(two.code, 0, `the second process ran Chromium: ${two.out}`);
    assert.match(two.out, /Chromium|Chrome/);
    assert.ok(!existsSync(join(tmp, UNPACK_LOCK)), 'the lock is gone once unpacked');
  });

  it('takes over a lock left by a process that died, and unpacks again what it may have half-written', async () => {
    // Prepare: a lock whose holder is not running, and a truncated binary beside it.
    const tmp = mkdtempSync(join(work, 'tmp-'));
    mkdirSync(join(tmp, UNPACK_LOCK));
    writeFileSync(join(tmp, UNPACK_LOCK, 'pid'), '999999999');
    writeFileSync(join(tmp, 'chromium'), 'half', { mode: 0o700 });

    // Act
    const run = await unpackAndRun(tmp);

    // Assess
    assert.equal(run.code, 0, run.out);
    assert.ok(statSync(join(tmp, 'chromium')).size > 100 * 1024 * 1024, 'the whole binary');
    assert.deepEqual(readdirSync(tmp).filter((name) => name === UNPACK_LOCK), []);
  });
});
