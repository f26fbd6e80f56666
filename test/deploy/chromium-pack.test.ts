import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { accessSync, constants, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { RenderError } from '../../lib/errors.js';
import { unpackChromium } from '../../lib/render/browser/chromium-pack.js';
import { chromiumArgs } from '../../lib/render/browser/launch-args.js';
import { packageBinDir, writeChromiumPack } from '../../scripts/build-layer.js';

/**
 * The layer ships Chromium as chromium/chromium.zst (`npm run build:layer`)
 * instead of @sparticuz/chromium's chromium.br. These tests build that pack
 * as the layer build does, unpack it into a fresh temporary directory as a
 * new Lambda environment would, and check it is the binary the package
 * tested and ships, byte for byte, and that it renders.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('Chromium pack (layer chromium/)', () => {
  let work: string;
  let packDir: string;
  let shipped: string;
  const savedTmp = process.env.TMPDIR;

  /** Runs `act` with a fresh, empty temporary directory, as a new Lambda execution environment has. */
  async function inFreshTmp<T>(act: (tmp: string) => Promise<T>): Promise<T> {
    const tmp = mkdtempSync(join(work, 'tmp-'));
    process.env.TMPDIR = tmp;
    try {
      return await act(tmp);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'docrender-pack-'));
    packDir = await writeChromiumPack(join(work, 'layer'));
    shipped = sha256(brotliDecompressSync(readFileSync(join(packageBinDir(), 'chromium.br'))));
  });

  after(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds the binary as zstd and the package archives as they ship, smaller than the brotli file allows for', () => {
    // Assess
    assert.deepEqual(readdirSync(packDir).sort(), ['al2023.tar.br', 'chromium.zst', 'fonts.tar.br', 'swiftshader.tar.br']);
    assert.equal(readFileSync(join(packDir, 'chromium.zst')).readUInt32LE(0), 0xfd2fb528, 'a zstd frame');
    // The layer must stay far inside 250 MB beside the fonts (about 50 MB) and the code (about 16 MB).
    assert.ok(statSync(join(packDir, 'chromium.zst')).size < 100 * 1024 * 1024);
  });

  it('unpacks in a fresh /tmp to the very binary @sparticuz/chromium ships, executable, with its fonts and SwiftShader', async () => {
    await inFreshTmp(async (tmp) => {
      // Act
      const path = await unpackChromium(packDir);
      // Assess
      assert.equal(path, join(tmp, 'chromium'));
      assert.equal(sha256(readFileSync(path)), shipped);
      accessSync(path, constants.X_OK);
      assert.ok(existsSync(join(tmp, 'fonts', 'fonts.conf')), 'fonts.tar.br inflated');
      assert.ok(existsSync(join(tmp, 'libGLESv2.so')), 'swiftshader.tar.br inflated');
      assert.deepEqual(
        readdirSync(tmp).filter((name) => name.includes('partial')),
        [],
        'nothing half-written is left behind',
      );
      // Act: a second call (a warm environment) finds it and does nothing
      const again = await unpackChromium(packDir);
      assert.equal(again, path);
    });
  });

  it('renders a PDF with the unpacked binary and @sparticuz/chromium flags', async () => {
    await inFreshTmp(async () => {
      // Prepare
      const executablePath = await unpackChromium(packDir);
      const browser = await puppeteer.launch({ executablePath, headless: 'shell', args: chromiumArgs(chromium.args, 'multi-process'), pipe: true });
      try {
        // Act
        const page = await browser.newPage();
        await page.setContent('<h1>Unpacked from zstd</h1>');
        const pdf = await page.pdf();
        // Assess
        assert.equal(Buffer.from(pdf.subarray(0, 5)).toString(), '%PDF-');
      } finally {
        await browser.close();
      }
    });
  });

  it('fails with RenderError on a damaged pack and leaves no binary behind', async () => {
    // Prepare: a pack whose zstd checksum no longer matches
    const damaged = join(work, 'damaged');
    cpSync(packDir, damaged, { recursive: true });
    const bytes = readFileSync(join(damaged, 'chromium.zst'));
    bytes[Math.floor(bytes.length / 2)] = (bytes[Math.floor(bytes.length / 2)] as number) ^ 0xff;
    writeFileSync(join(damaged, 'chromium.zst'), bytes);
    await inFreshTmp(async (tmp) => {
      // Act + Assess
      await assert.rejects(unpackChromium(damaged), RenderError);
      assert.ok(!existsSync(join(tmp, 'chromium')), 'no /tmp/chromium that a later call would take for whole');
      assert.deepEqual(
        readdirSync(tmp).filter((name) => name.startsWith('chromium')),
        [],
      );
    });
  });

  it('without a pack (no layer built) unpacks @sparticuz/chromium’s own file, the same binary', async () => {
    await inFreshTmp(async (tmp) => {
      // Act
      const path = await unpackChromium(join(work, 'no-such-layer', 'chromium'));
      // Assess
      assert.equal(path, join(tmp, 'chromium'));
      assert.equal(sha256(readFileSync(path)), shipped);
    });
  });
});
