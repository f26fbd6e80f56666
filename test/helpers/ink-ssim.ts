/**
 * Likeness of two drawings of the same text wherever each sits on its image:
 * each PNG cropped to its ink, compared by scikit-image's SSIM (the pinned
 * venv page-ssim.ts makes). For comparing a line drawn in a PDF with the same
 * line drawn by Chromium.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVenv } from './pades.js';
import { tempDir } from './temp-dir.js';

const script = fileURLToPath(new URL('./ink-ssim.py', import.meta.url));

/** The SSIM of the ink of `image` against the ink of `reference` (PNG bytes). */
export function inkSsim(reference: Uint8Array, image: Uint8Array): number {
  const python = ensureVenv('scikit-image', 'scikit-image==0.25.2', '0.25.2', 'scikit-image');
  const dir = tempDir('docrender-ink-ssim-');
  try {
    writeFileSync(join(dir, 'a.png'), reference);
    writeFileSync(join(dir, 'b.png'), image);
    const result = spawnSync(python, [script, join(dir, 'a.png'), join(dir, 'b.png')], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`SSIM failed: ${result.stderr}`);
    return Number(result.stdout.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
