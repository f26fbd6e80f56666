import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import chromium from '@sparticuz/chromium';
import { chromiumArgs } from '../../../lib/render/browser/launch-args.js';

describe('chromiumArgs', () => {
  it('drops the flags that switch off web security and site isolation', () => {
    // Prepare
    const base = chromium.args;

    // Act
    const args = chromiumArgs(base, 'multi-process');

    // Assess
    for (const unsafe of ['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']) {
      assert.ok(base.includes(unsafe), `the package ships ${unsafe}`);
      assert.ok(!args.includes(unsafe), `${unsafe} is dropped`);
    }
    const disabled = args.filter((arg) => arg.startsWith('--disable-features=')).join(',');
    assert.doesNotMatch(disabled, /IsolateOrigins|site-per-process/);
    assert.match(disabled, /AudioServiceOutOfProcess/, 'other disabled features are kept');
  });

  it('runs multi-process unless single-process is asked for', () => {
    // Act
    const multi = chromiumArgs(chromium.args, 'multi-process');
    const single = chromiumArgs(chromium.args, 'single-process');

    // Assess
    assert.ok(!multi.includes('--single-process'));
    assert.ok(single.includes('--single-process'));
    assert.ok(chromiumArgs(['--no-sandbox'], 'single-process').includes('--single-process'));
  });

  it('keeps Chromium off the network when it has nothing to render', () => {
    // Act
    const args = chromiumArgs(chromium.args, 'multi-process');

    // Assess
    for (const flag of ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage']) {
      assert.equal(args.filter((arg) => arg === flag).length, 1, `${flag} once`);
    }
    assert.ok(!args.some((arg) => arg.startsWith('--headless')), 'puppeteer sets headless itself');
  });

  it('blocks popups in both modes', () => {
    // Act
    const modes = (['multi-process', 'single-process'] as const).map((mode) => chromiumArgs(chromium.args, mode));

    // Assess
    for (const args of modes) assert.equal(args.filter((arg) => arg === '--block-new-web-contents').length, 1);
  });

  it('composites in software in both modes, keeping SwiftShader for WebGL', () => {
    // Act
    const modes = (['multi-process', 'single-process'] as const).map((mode) => chromiumArgs(chromium.args, mode));

    // Assess
    for (const args of modes) {
      assert.equal(args.filter((arg) => arg === '--disable-gpu-compositing').length, 1);
      assert.ok(!args.includes('--disable-gpu'), 'the GPU thread stays: WebGL runs on it');
      assert.ok(args.includes('--use-angle=swiftshader'), "the package's GPU flags are kept");
    }
  });
});
