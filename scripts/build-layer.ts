/**
 * Builds the Chromium Lambda layer in layers/chromium from installed npm
 * packages only (no download):
 *
 * - nodejs/node_modules/: @sparticuz/chromium and @duckduckgo/autoconsent
 *   (whose content script the renderer reads from its package at run time)
 *   and @jsquash/jpeg (MozJPEG's .wasm files, read likewise by pdf.compress)
 *   and pdfjs-dist (its two minified modules and standard fonts, read as files
 *   by /v1/pdf/process page images and run in Chromium, not in Node)
 *   with their runtime dependencies, which Lambda mounts under
 *   /opt/nodejs/node_modules;
 * - chromium/: @sparticuz/chromium's Chromium binary as chromium.zst, the
 *   very bytes its chromium.br inflates to, recompressed with zstd, which
 *   unpacks several times faster on every cold start, beside the package's
 *   other archives (.tar.br) as they ship. Lambda mounts it at /opt/chromium;
 *   lib/render/browser/chromium-pack.ts unpacks it. The package's bin/ is left out;
 * - fonts/: Noto Sans CJK (Japanese, Simplified and Traditional Chinese,
 *   Korean; regular and bold) and Noto Color Emoji, which Lambda mounts under
 *   /opt/fonts. Lambda has no system fonts: Chromium only sees Open Sans
 *   (shipped inside @sparticuz/chromium) and what this folder holds, and the
 *   fonts.conf that @sparticuz/chromium unpacks lists /opt/fonts.
 *
 * Run as `npm run build:layer`; `npm run package` runs it first.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, constants, zstdCompress } from 'node:zlib';
import { CHROMIUM_PACK_ARCHIVES, CHROMIUM_PACK_FILE } from '../lib/render/browser/chromium-pack.js';

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
const LAYER_PACKAGES = ['@sparticuz/chromium', '@duckduckgo/autoconsent', '@jsquash/jpeg', 'pdfjs-dist'];

/**
 * Packages whose files are read, never loaded in Node: their dependencies stay out
 * (pdfjs-dist's optional @napi-rs/canvas is a native canvas for PDF.js in Node, tens of MB).
 */
const FILES_ONLY = new Set(['pdfjs-dist']);

/** Parts of packages that nothing reads at run time (tests, browser-extension builds): left out of the layer. */
const NOT_AT_RUN_TIME: Record<string, string[]> = {
  // Its compressed files travel in chromium/ instead: the binary as chromium.zst, the archives as they are.
  '@sparticuz/chromium': ['bin'],
  '@duckduckgo/autoconsent': ['tests', 'tests-wtr', 'docs', 'dist/addon-firefox', 'dist/addon-mv3', 'CHANGELOG.md'],
  // lib/finishing/images/page-images.ts reads build/pdf.min.mjs, build/pdf.worker.min.mjs and standard_fonts/.
  'pdfjs-dist': [
    'legacy', 'web', 'types', 'image_decoders', 'cmaps', 'iccs', 'wasm', 'webpack.mjs',
    'build/pdf.mjs', 'build/pdf.mjs.map', 'build/pdf.worker.mjs', 'build/pdf.worker.mjs.map',
    'build/pdf.sandbox.mjs', 'build/pdf.sandbox.mjs.map', 'build/pdf.sandbox.min.mjs',
  ],
};

/**
 * The zstd level of the Chromium pack, chosen with `npm run bench:unpack`
 * under the CPU share of 1,536 MB (bench/README.md, findings): streamed, every
 * level unpacked in 0.34–0.49× brotli's time (1.2–1.5 s of CPU against
 * brotli's 2.9 s), level 3 fastest of them in that run; higher levels save
 * up to 10 MB of layer for no faster unpack, and 12 takes a minute to
 * compress on a shared core where 3 takes seconds.
 */
export const CHROMIUM_PACK_LEVEL = 3;

/** Packs already made, by the brotli file's digest and the level: a rebuild of the layer copies instead of compressing. */
const PACK_CACHE = join(root, '.cache', 'chromium-pack');

/** The folder of the installed @sparticuz/chromium's compressed files (chromium.br and the .tar.br archives). */
export function packageBinDir(): string {
  return join(resolvePackageDir('@sparticuz/chromium', root), 'bin');
}

/**
 * Compresses the Chromium binary with zstd at `level`, with a checksum so
 * that a damaged pack fails its unpack instead of giving a broken binary.
 */
export function compressChromium(binary: Uint8Array, level = CHROMIUM_PACK_LEVEL): Promise<Buffer> {
  return promisify(zstdCompress)(binary, {
    params: {
      [constants.ZSTD_c_compressionLevel]: level,
      [constants.ZSTD_c_checksumFlag]: 1,
      [constants.ZSTD_c_nbWorkers]: 0,
    },
    pledgedSrcSize: binary.byteLength,
  });
}

/**
 * Writes the layer's chromium/ folder into `layerDir`: chromium.zst, the
 * binary @sparticuz/chromium tested and ships as chromium.br, inflated and
 * recompressed with zstd, and the package's other archives copied as they are.
 */
export async function writeChromiumPack(layerDir: string, level = CHROMIUM_PACK_LEVEL): Promise<string> {
  const bin = packageBinDir();
  const brotli = readFileSync(join(bin, 'chromium.br'));
  const file = join(layerDir, CHROMIUM_PACK_FILE);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  for (const archive of CHROMIUM_PACK_ARCHIVES) {
    if (existsSync(join(bin, archive))) cpSync(join(bin, archive), join(dir, archive));
  }
  const cached = join(PACK_CACHE, `${createHash('sha256').update(brotli).digest('hex').slice(0, 32)}-zstd${level}.zst`);
  if (!existsSync(cached)) {
    mkdirSync(PACK_CACHE, { recursive: true });
    const binary = await promisify(brotliDecompress)(brotli);
    writeFileSync(`${cached}.${process.pid}.partial`, await compressChromium(binary, level));
    renameSync(`${cached}.${process.pid}.partial`, cached);
  }
  cpSync(cached, `${file}.partial`);
  renameSync(`${file}.partial`, file);
  return dir;
}

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
  if (FILES_ONLY.has(name)) return;
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
  rmSync(join(layerDir, dirname(CHROMIUM_PACK_FILE)), { recursive: true, force: true });
  mkdirSync(modules, { recursive: true });
  const seen = new Set<string>();
  for (const pkg of LAYER_PACKAGES) copyWithDependencies(pkg, root, modules, seen);
  await writeChromiumPack(layerDir);
  const fonts = await writeLayerFonts(fontsDir);
  return { packages: seen.size, fonts, bytes: folderBytes(layerDir) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const summary = await buildChromiumLayer();
  const mb = (summary.bytes / 1024 / 1024).toFixed(1);
  console.log(`Chromium layer built in layers/chromium: ${summary.packages} packages, ${summary.fonts.length} font files, ${mb} MB unzipped`);
}
