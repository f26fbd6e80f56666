import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PACK_FILE } from '../../lib/render/browser/chromium-pack.js';
import { LocalSetupError } from './errors.js';

/** Where the runner keeps the fontconfig files of its "mounted" layers, and fontconfig's cache. */
const FONTCONFIG_ROOT = fileURLToPath(new URL('../../.local/fontconfig/', import.meta.url));

/**
 * The environment that makes an instance see its layers' fonts as on Lambda.
 * There, a layer's fonts/ folder is /opt/fonts, and the fonts.conf that
 * @sparticuz/chromium installs lists /opt/fonts and its own Open Sans in
 * <tmp>/fonts and nothing else: no system fonts. The runner writes that same
 * configuration with /opt/fonts replaced by each layer's local fonts/ folder,
 * so a document renders with the same fonts locally and on Lambda.
 */
export function layerFontEnvironment(layerDirs: string[], taskRoot: string): Record<string, string> {
  const fontDirs = layerDirs.map((dir) => path.join(dir, 'fonts'));
  if (fontDirs.length === 0) return {};
  for (const dir of fontDirs) {
    if (!existsSync(dir)) throw new LocalSetupError(`layer fonts not built: ${dir} is missing (npm run build:layer)`);
  }
  const dirs = [path.join(taskRoot, '.fonts'), path.join(taskRoot, 'fonts'), ...fontDirs, path.join(tmpdir(), 'fonts')];
  const key = createHash('sha256').update(dirs.join('\n')).digest('hex').slice(0, 16);
  const configDir = path.join(FONTCONFIG_ROOT, key);
  const conf = [
    '<?xml version="1.0" ?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    ...dirs.map((dir) => `  <dir>${escapeXml(dir)}</dir>`),
    `  <cachedir>${escapeXml(path.join(FONTCONFIG_ROOT, 'cache'))}</cachedir>`,
    '  <config></config>',
    '</fontconfig>',
    '',
  ].join('\n');
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

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
