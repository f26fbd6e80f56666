import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { RenderError } from '../../../lib/errors.js';
import { launchBrowser, type LaunchedBrowser } from '../../../lib/render/browser/launch-browser.js';
import { LAUNCH_RETRY_LOG } from '../../../lib/render/browser/launch-retries.js';
import { localEgress } from '../../helpers/local-egress.js';

/** This process's core-dump-free launcher folders in the temporary directory. */
const launcherFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`docrender-launcher-${process.pid}-`));

describe('launchBrowser › the core-dump-free launcher', () => {
  const launched: LaunchedBrowser[] = [];
  after(async () => {
    for (const browser of launched) browser.kill();
    await Promise.all(launched.map((browser) => browser.gone));
  });

  it('writes the launcher again when its folder was removed from /tmp, rather than failing every launch after', async () => {
    // Prepare: a first launch writes the launcher; then a sweep of /tmp that is not this process's takes it away.
    const egress = await localEgress();
    launched.push(await launchBrowser({ mode: 'multi-process', egress }));
    const [folder] = launcherFolders();
    assert.ok(folder, 'the first launch wrote a launcher');
    rmSync(join(tmpdir(), folder), { recursive: true, force: true });

    // Act
    const second = await launchBrowser({ mode: 'multi-process', egress });
    launched.push(second);

    // Assess
    assert.match(await second.browser.version(), /Chrome/);
    assert.equal(launcherFolders().length, 1, 'a new launcher folder');
  });

  /** An executable that fails at once (printing `reason`) on its first `failures` starts, then is Chromium. */
  async function flakyChromium(failures: number, reason: string): Promise<{ path: string; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'docrender-flaky-'));
    const real = await chromium.executablePath();
    const path = join(dir, 'chromium');
    const steps = Array.from({ length: failures }, (_, i) => `if [ ! -e '${dir}/failed-${i}' ]; then touch '${dir}/failed-${i}'; echo '${reason}' >&2; exit 1; fi`);
    writeFileSync(path, `#!/bin/sh\n${steps.join('\n')}\nexec '${real}' "$@"\n`, { mode: 0o700 });
    return { path, dir };
  }

  /** Runs `act` with launch retries counted into a file of its own (not CI's count: these retries are forced); answers the lines counted. */
  async function countingRetries(dir: string, act: () => Promise<void>): Promise<string[]> {
    const before = process.env[LAUNCH_RETRY_LOG];
    const file = join(dir, 'retries.log');
    process.env[LAUNCH_RETRY_LOG] = file;
    try {
      await act();
    } finally {
      if (before === undefined) delete process.env[LAUNCH_RETRY_LOG];
      else process.env[LAUNCH_RETRY_LOG] = before;
    }
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  it('tries a launch that failed at once again, and starts Chromium the second time', async () => {
    // Prepare: the first start fails within milliseconds, as the CI runs' intermittent failures did.
    const { path, dir } = await flakyChromium(1, 'first start fails');
    try {
      // Act
      let browser: LaunchedBrowser | undefined;
      const retries = await countingRetries(dir, async () => {
        browser = await launchBrowser({ mode: 'multi-process', executablePath: path, egress: await localEgress() });
        launched.push(browser);
      });

      // Assess
      assert.match(await (browser as LaunchedBrowser).browser.version(), /Chrome/);
      assert.ok(existsSync(join(dir, 'failed-0')), 'the first start did fail');
      assert.equal(retries.length, 1, 'the retry is counted, once');
      assert.match(retries[0] as string, /launch retry: attempt 2 of 3 after a quick failure/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives up after the third quick failure, with the reason it saw in the error', async () => {
    // Prepare
    const { path, dir } = await flakyChromium(3, 'no such display http://user:secret@example.test/x');
    try {
      // Act + Assess
      const egress = await localEgress();
      const retries = await countingRetries(dir, () =>
        assert.rejects(launchBrowser({ mode: 'multi-process', executablePath: path, egress }), (error: unknown) => {
          assert.ok(error instanceof RenderError);
          // With a pipe, puppeteer does not read Chromium's stderr: the reason is what the connection saw.
          assert.match(error.message, /^Chromium could not be started \(.+\)$/s);
          assert.doesNotMatch(error.message, /secret/);
          return true;
        }),
      );
      assert.ok(existsSync(join(dir, 'failed-2')), 'started three times');
      assert.equal(retries.length, 2, 'both retries are counted');
      assert.ok(retries.every((line) => !line.includes('secret')), 'the count does not carry the URL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
