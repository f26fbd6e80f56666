import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
