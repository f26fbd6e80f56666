/**
 * Page-by-page likeness of two PDFs: each page by poppler's `pdftoppm` at
 * 100 dpi, compared by scikit-image's SSIM (PyPI, pinned, in its own venv
 * under `.cache/`, made on the first run as pades.ts makes pyHanko's).
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVenv } from './pades.js';
import { pdftoppm } from './pdf-tools.js';
import { tempDir } from './temp-dir.js';

const SCIKIT_IMAGE_VERSION = '0.25.2';
const script = fileURLToPath(new URL('./page-ssim.py', import.meta.url));

/** The SSIM of each page of `b` against the same page of `a` (both at `dpi`). */
export function pageSsim(a: Uint8Array, b: Uint8Array, dpi = 100): number[] {
  const left = pdftoppm(a, dpi);
  const right = pdftoppm(b, dpi);
  if (left.length !== right.length) throw new Error(`${left.length} pages against ${right.length}`);
  return imageSsim(left.map((reference, i) => ({ reference, image: right[i] as Buffer, extension: 'png' })));
}

/** The SSIM of each image against its reference (PNG, JPEG or WebP bytes, cropped to the smaller of the two sizes). */
export function imageSsim(pairs: Array<{ reference: Uint8Array; image: Uint8Array; extension: string }>): number[] {
  const python = ensureVenv('scikit-image', `scikit-image==${SCIKIT_IMAGE_VERSION}`, SCIKIT_IMAGE_VERSION, 'scikit-image');
  const dir = tempDir('docrender-ssim-');
  try {
    const paths = pairs.flatMap(({ reference, image, extension }, i) => {
      const pair = [join(dir, `a-${i}.png`), join(dir, `b-${i}.${extension}`)];
      writeFileSync(pair[0] as string, reference);
      writeFileSync(pair[1] as string, image);
      return pair;
    });
    const result = spawnSync(python, [script, ...paths], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (result.status !== 0) throw new Error(`SSIM failed: ${result.stderr}`);
    return result.stdout.trim().split('\n').map(Number);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
