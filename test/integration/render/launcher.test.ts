import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { RenderError } from '../../../lib/errors.js';
import { launchBrowser, type LaunchedBrowser } from '../../../lib/render/browser/launch-browser.js';
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

  it('tries a launch that failed at once again, and starts Chromium the second time', async () => {
    // Prepare: the first start fails within milliseconds, as the CI runs' intermittent failures did.
    const { path, dir } = await flakyChromium(1, 'first start fails');
    try {
      // Act
      const browser = await launchBrowser({ mode: 'multi-process', executablePath: path, egress: await localEgress() });
      launched.push(browser);

      // Assess
      assert.match(await browser.browser.version(), /Chrome/);
      assert.ok(existsSync(join(dir, 'failed-0')), 'the first start did fail');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives up after the third quick failure, with the reason it saw in the error', async () => {
    // Prepare
    const { path, dir } = await flakyChromium(3, 'no such display http://user:secret@example.test/x');
    try {
      // Act + Assess
      await assert.rejects(launchBrowser({ mode: 'multi-process', executablePath: path, egress: await localEgress() }), (error: unknown) => {
        assert.ok(error instanceof RenderError);
        // With a pipe, puppeteer does not read Chromium's stderr: the reason is what the connection saw.
        assert.match(error.message, /^Chromium could not be started \(.+\)$/s);
        assert.doesNotMatch(error.message, /secret/);
        return true;
      });
      assert.ok(existsSync(join(dir, 'failed-2')), 'started three times');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
