/**
 * Builds the Chromium Lambda layer in layers/chromium from installed npm
 * packages only (no download):
 *
 * - nodejs/node_modules/: @sparticuz/chromium and @duckduckgo/autoconsent
 *   (whose content script the renderer reads from its package at run time)
 *   with their runtime dependencies, which Lambda mounts under
 *   /opt/nodejs/node_modules;
 * - fonts/: Noto Sans CJK (Japanese, Simplified and Traditional Chinese,
 *   Korean; regular and bold) and Noto Color Emoji, which Lambda mounts under
 *   /opt/fonts. Lambda has no system fonts: Chromium only sees Open Sans
 *   (shipped inside @sparticuz/chromium) and what this folder holds, and the
 *   fonts.conf that @sparticuz/chromium unpacks lists /opt/fonts.
 *
 * Run as `npm run build:layer`; `npm run package` runs it first.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where the layer is built unless told otherwise. */
export const CHROMIUM_LAYER_DIR = join(root, 'layers', 'chromium');

/**
 * OpenType fonts copied as they are. The CJK families are Noto Sans subsets
 * to the national character sets (JIS, GB 2312, Big5, KS X 1001), which keeps
 * the layer around 50 MB of fonts instead of 200; bold comes as a real weight
 * because synthetic bold smears CJK strokes.
 */
const OPENTYPE_FONTS: { pkg: string; files: string[] }[] = [
  { pkg: '@embedpdf/fonts-jp', files: ['fonts/NotoSansJP-Regular.otf', 'fonts/NotoSansJP-Bold.otf'] },
  { pkg: '@embedpdf/fonts-sc', files: ['fonts/NotoSansHans-Regular.otf', 'fonts/NotoSansHans-Bold.otf'] },
  { pkg: '@embedpdf/fonts-tc', files: ['fonts/NotoSansHant-Regular.otf', 'fonts/NotoSansHant-Bold.otf'] },
  { pkg: '@embedpdf/fonts-kr', files: ['fonts/NotoSansKR-Regular.otf', 'fonts/NotoSansKR-Bold.otf'] },
];

/**
 * Noto Color Emoji (COLRv1, which Chromium draws in colour in screenshots
 * and PDFs) comes on npm only as WOFF2 slices; fontconfig does not read WOFF2,
 * so each slice is decoded to a TrueType file.
 */
const WOFF2_FONTS: { pkg: string; dir: string; name: string }[] = [
  { pkg: '@infolektuell/noto-color-emoji', dir: 'files', name: 'NotoColorEmoji' },
];

/** The layer's Node packages: what the bundles keep external (serverless.yml, custom.esbuild.external). */
const LAYER_PACKAGES = ['@sparticuz/chromium', '@duckduckgo/autoconsent'];

/** Parts of packages that nothing reads at run time (tests, browser-extension builds): left out of the layer. */
const NOT_AT_RUN_TIME: Record<string, string[]> = {
  '@duckduckgo/autoconsent': ['tests', 'tests-wtr', 'docs', 'dist/addon-firefox', 'dist/addon-mv3', 'CHANGELOG.md'],
};

export type LayerSummary = {
  /** Packages copied under nodejs/node_modules. */
  packages: number;
  /** Font files written under fonts/. */
  fonts: string[];
  /** Bytes of the whole layer folder, unzipped. */
  bytes: number;
};

/** Finds the installed folder of `name`, walking up from `from` as Node does. */
function resolvePackageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed (run npm ci)`);
  }
}

function copyWithDependencies(name: string, from: string, target: string, seen: Set<string>): void {
  const dir = resolvePackageDir(name, from);
  if (seen.has(dir)) return;
  seen.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const skipped = (NOT_AT_RUN_TIME[name] ?? []).map((part) => join(dir, part));
  cpSync(dir, join(target, name), {
    recursive: true,
    dereference: true,
    filter: (source) => !skipped.some((part) => source === part || source.startsWith(`${part}/`)),
  });
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyWithDependencies(dep, dir, target, seen);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
    try {
      copyWithDependencies(dep, dir, target, seen);
    } catch {
      // optional and not installed on this platform
    }
  }
}

type Woff2Decoder = { decompress(input: Uint8Array): Promise<Uint8Array> };

/**
 * Writes the layer's fonts into `fontsDir`: what Lambda mounts at /opt/fonts,
 * and what `npm start` points its rendering functions' fontconfig at.
 */
export async function writeLayerFonts(fontsDir: string): Promise<string[]> {
  mkdirSync(join(fontsDir, 'licenses'), { recursive: true });
  const written: string[] = [];
  // The OFL asks for the licence to travel with the fonts; fontconfig skips non-font files.
  const keepLicence = (pkgDir: string, pkg: string) => {
    const licence = join(pkgDir, 'LICENSE');
    if (existsSync(licence)) cpSync(licence, join(fontsDir, 'licenses', `${pkg.replace(/[@/]/g, '_')}.txt`));
  };
  for (const { pkg, files } of OPENTYPE_FONTS) {
    const pkgDir = resolvePackageDir(pkg, root);
    for (const file of files) {
      const name = file.split('/').pop() as string;
      cpSync(join(pkgDir, file), join(fontsDir, name));
      written.push(name);
    }
    keepLicence(pkgDir, pkg);
  }
  const woff2 = createRequire(import.meta.url)('wawoff2') as Woff2Decoder;
  for (const { pkg, dir, name } of WOFF2_FONTS) {
    const pkgDir = resolvePackageDir(pkg, root);
    const slices = readdirSync(join(pkgDir, dir))
      .filter((file) => file.endsWith('.woff2'))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    if (slices.length === 0) throw new Error(`${pkg} holds no .woff2 files in ${dir}/`);
    for (const slice of slices) {
      const ttf = await woff2.decompress(readFileSync(join(pkgDir, dir, slice)));
      const file = `${name}-${slice.replace(/\.woff2$/, '')}.ttf`;
      writeFileSync(join(fontsDir, file), ttf);
      written.push(file);
    }
    keepLicence(pkgDir, pkg);
  }
  return written;
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}

/** Builds (or rebuilds from scratch) the Chromium layer folder: Node packages and fonts. */
export async function buildChromiumLayer(layerDir = CHROMIUM_LAYER_DIR): Promise<LayerSummary> {
  const modules = join(layerDir, 'nodejs', 'node_modules');
  const fontsDir = join(layerDir, 'fonts');
  rmSync(join(layerDir, 'nodejs'), { recursive: true, force: true });
  rmSync(fontsDir, { recursive: true, force: true });
  mkdirSync(modules, { recursive: true });
  const seen = new Set<string>();
  for (const pkg of LAYER_PACKAGES) copyWithDependencies(pkg, root, modules, seen);
  const fonts = await writeLayerFonts(fontsDir);
  return { packages: seen.size, fonts, bytes: folderBytes(layerDir) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const summary = await buildChromiumLayer();
  const mb = (summary.bytes / 1024 / 1024).toFixed(1);
  console.log(`Chromium layer built in layers/chromium: ${summary.packages} packages, ${summary.fonts.length} font files, ${mb} MB unzipped`);
}
