import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PACK_FILE } from '../../lib/render/browser/chromium-pack.js';
import { layerFontsConf } from '../layer-fontconfig.js';
import { LocalSetupError } from './errors.js';

/** Where the runner keeps the fontconfig files of its "mounted" layers, and fontconfig's cache. */
const FONTCONFIG_ROOT = fileURLToPath(new URL('../../.local/fontconfig/', import.meta.url));

/**
 * The environment that makes an instance see its layers' fonts as on Lambda.
 * There, a layer's fonts/ folder is /opt/fonts and its fontconfig/ folder
 * /opt/fontconfig, whose fonts.conf (scripts/layer-fontconfig.ts) lists the
 * layer's fonts, the Open Sans @sparticuz/chromium unpacks into <tmp>/fonts,
 * and nothing else: no system fonts. The runner writes the same configuration
 * with the layer's local fonts/ folder read as /opt/fonts, so a document
 * renders with the same faces and rules locally and on Lambda, and the
 * layer's prebuilt fontconfig cache serves here too.
 */
export function layerFontEnvironment(layerDirs: string[], taskRoot: string): Record<string, string> {
  const fontDirs = layerDirs.map((dir) => path.join(dir, 'fonts'));
  const [layerFonts, ...otherFonts] = fontDirs;
  if (layerFonts === undefined) return {};
  for (const dir of fontDirs) {
    if (!existsSync(dir)) throw new LocalSetupError(`layer fonts not built: ${dir} is missing (npm run build:layer)`);
  }
  const conf = layerFontsConf({
    layerFontsDir: layerFonts,
    // Lambda merges every layer into one /opt/fonts; only the first is read as that folder here (one cache per name).
    before: [path.join(taskRoot, '.fonts'), path.join(taskRoot, 'fonts')],
    after: [...otherFonts, path.join(tmpdir(), 'fonts')],
    cacheDirs: [path.join(FONTCONFIG_ROOT, 'cache'), path.join(path.dirname(layerFonts), 'fontconfig', 'cache')],
  });
  const configDir = path.join(FONTCONFIG_ROOT, createHash('sha256').update(conf).digest('hex').slice(0, 16));
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'fonts.conf'), conf);
  return { FONTCONFIG_PATH: configDir };
}

/**
 * The environment that makes an instance unpack Chromium from its layer's
 * pack as on Lambda, where the layer's chromium/ folder is /opt/chromium:
 * the first of `layerDirs` whose pack `npm run build:layer` has written.
 * Without one (the layer not built, or built before it had a pack) the
 * instance unpacks @sparticuz/chromium's own brotli file, as before.
 */
export function layerChromiumEnvironment(layerDirs: string[]): Record<string, string> {
  const dir = layerDirs.find((layer) => existsSync(path.join(layer, CHROMIUM_PACK_FILE)));
  return dir === undefined ? {} : { CHROMIUM_PACK_DIR: path.dirname(path.join(dir, CHROMIUM_PACK_FILE)) };
}
