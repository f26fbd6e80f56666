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
 * - fonts/: the faces of lib/fonts/layer-fonts.ts (Noto for every script in
 *   current use, Noto Sans CJK, Noto Color Emoji) with their licences, which
 *   Lambda mounts under /opt/fonts. Lambda has no system fonts: Chromium only
 *   sees these and the Open Sans @sparticuz/chromium unpacks into /tmp/fonts;
 * - fontconfig/: fonts.conf generated from the same catalogue (fallback order,
 *   `lang` rules) and fontconfig's cache of fonts/, built now rather than on
 *   every cold start; Lambda mounts it at /opt/fontconfig (FONTCONFIG_PATH).
 *
 * Run as `npm run build:layer`; `npm run package` runs it first.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, constants, zstdCompress } from 'node:zlib';
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { LAYER_EMOJI, LAYER_FONTS, layerFileName } from '../lib/fonts/layer-fonts.js';
import { CHROMIUM_PACK_ARCHIVES, CHROMIUM_PACK_FILE } from '../lib/render/browser/chromium-pack.js';
import { chromiumArgs } from '../lib/render/browser/launch-args.js';
import { noteLaunchRetry } from '../lib/render/browser/launch-retries.js';
import { lambdaFontsConf, layerFontsCacheKey, layerFontsConf } from './layer-fontconfig.js';
import { withoutTables } from './sfnt-tables.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where the layer is built unless told otherwise. */
export const CHROMIUM_LAYER_DIR = join(root, 'layers', 'chromium');

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

/** The file in the layer's fonts/licenses/ that holds `pkg`'s font licence. */
export function layerLicenceFile(pkg: string): string {
  return `${pkg.replace(/[@/]/g, '_')}.txt`;
}

/**
 * Writes the layer's fonts into `fontsDir`: every face of the catalogue
 * (lib/fonts/layer-fonts.ts) as its package ships it, the colour emoji's
 * WOFF2 decoded to TrueType (fontconfig reads no WOFF2) without its SVG table, and each
 * package's font licence in licenses/ (the OFL asks for it to travel with the
 * fonts; fontconfig skips files that are no fonts). What Lambda mounts at
 * /opt/fonts, and what `npm start` points its rendering functions' fontconfig at.
 */
export async function writeLayerFonts(fontsDir: string): Promise<string[]> {
  mkdirSync(join(fontsDir, 'licenses'), { recursive: true });
  const written: string[] = [];
  const keepLicence = (pkgDir: string, pkg: string, licence: string) => {
    // A missing licence is a build error, not a font shipped without it.
    cpSync(join(pkgDir, licence), join(fontsDir, 'licenses', layerLicenceFile(pkg)));
  };
  for (const font of LAYER_FONTS) {
    const pkgDir = resolvePackageDir(font.pkg, root);
    for (const file of [font.files.regular, font.files.bold].filter((name) => name !== undefined)) {
      const name = layerFileName(file);
      if (written.includes(name)) throw new Error(`two layer fonts are named ${name}`);
      cpSync(join(pkgDir, file), join(fontsDir, name));
      written.push(name);
    }
    keepLicence(pkgDir, font.pkg, font.licence);
  }
  const woff2 = createRequire(import.meta.url)('wawoff2') as Woff2Decoder;
  const emojiDir = resolvePackageDir(LAYER_EMOJI.pkg, root);
  const emoji = await woff2.decompress(readFileSync(join(emojiDir, LAYER_EMOJI.file)));
  writeFileSync(join(fontsDir, LAYER_EMOJI.name), withoutTables(emoji, LAYER_EMOJI.dropTables));
  written.push(LAYER_EMOJI.name);
  keepLicence(emojiDir, LAYER_EMOJI.pkg, LAYER_EMOJI.licence);
  return written;
}

/**
 * Writes the layer's fontconfig/ folder (Lambda: /opt/fontconfig, the
 * rendering functions' FONTCONFIG_PATH): fonts.conf, generated from the
 * catalogue, and cache/, fontconfig's cache of the layer's fonts built now.
 * Without it every cold start scans the 60 MB of fonts again before the first
 * render (fontconfig's writable cache is in /tmp, empty in a new environment).
 * The cache is built by the layer's own Chromium, whose fontconfig reads it
 * (another fontconfig's cache format is ignored), with the fonts read as
 * /opt/fonts (`<remap-dir>`), so its name and font paths are Lambda's.
 * Returns the cache file, or undefined where that Chromium cannot run (not
 * Linux x64: the layer then works, each cold start building the cache).
 */
export async function writeLayerFontconfig(fontconfigDir: string, fontsDir: string): Promise<string | undefined> {
  const cacheDir = join(fontconfigDir, 'cache');
  rmSync(fontconfigDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(join(fontconfigDir, 'fonts.conf'), lambdaFontsConf());
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`No prebuilt fontconfig cache: the layer's Chromium runs on Linux x64 only, this is ${process.platform} ${process.arch}; each cold start will build it`);
    return undefined;
  }
  const buildConf = mkdtempSync(join(tmpdir(), 'docrender-fontconfig-'));
  try {
    writeFileSync(join(buildConf, 'fonts.conf'), layerFontsConf({ layerFontsDir: fontsDir, cacheDirs: [cacheDir] }));
    const browser = await launchForCache(join(buildConf, 'profile'), { ...process.env, FONTCONFIG_PATH: buildConf, TMPDIR: buildConf });
    try {
      // fontconfig builds its caches when Chromium first asks it for a face.
      const page = await browser.newPage();
      await page.setContent('<p style="font-family:sans-serif">Aa</p>');
      await page.screenshot();
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(buildConf, { recursive: true, force: true });
  }
  const cache = readdirSync(cacheDir).find((name) => name.startsWith(`${layerFontsCacheKey()}-`));
  if (cache === undefined) throw new Error(`Chromium wrote no fontconfig cache of ${fontsDir} into ${cacheDir} (${readdirSync(cacheDir).join(', ') || 'nothing'})`);
  for (const name of readdirSync(cacheDir).filter((file) => /-le64\.cache-\d+$/.test(file))) trustOnLambda(join(cacheDir, name));
  return join(cacheDir, cache);
}

/**
 * Chromium for building the fontconfig cache, its profile and its temporary
 * files in `profileDir` (removed with the build folder). A launch that fails
 * at once is tried again, as the renderer's are (lib/render/browser/launch-browser.ts),
 * with Chromium's stderr shown and the retry counted: npm start builds the
 * fonts of a fresh clone, and one such failure stopped a CI run there.
 */
async function launchForCache(profileDir: string, env: NodeJS.ProcessEnv) {
  const pauses = [250, 1_000];
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      return await puppeteer.launch({
        executablePath: await chromium.executablePath(),
        args: chromiumArgs(chromium.args, 'multi-process'),
        headless: 'shell',
        userDataDir: profileDir,
        dumpio: attempt > 0,
        env,
      });
    } catch (error) {
      const pause = pauses[attempt];
      if (pause === undefined || Date.now() - started > 2_000) throw error;
      noteLaunchRetry(`fontconfig cache build, attempt ${attempt + 2} of ${pauses.length + 1} after a quick failure (${String((error as Error).message).split('\n')[0]})`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** fontconfig's cache files: their magic number, and the one format (cache-11, fontconfig 2.18) whose header layout `trustOnLambda` knows. */
const FONTCONFIG_CACHE = { magic: 0xfc02fc04, version: 11, fcVersionOffset: 64 };
/** A fontconfig version newer than any 2.x: 2.4095.4095. */
const NEWER_THAN_ANY = (2 << 24) + (0xfff << 12) + 0xfff;

/**
 * Makes a cache file valid on Lambda whatever mtime the folder gets there.
 * fontconfig takes a folder's cache only if it records the folder's mtime
 * (src/fccache.c, FcCacheTimeValid; SOURCE_DATE_EPOCH changes what it writes,
 * not what it compares), and the layer's folders get theirs when Lambda
 * unpacks the layer, after this build. It also takes, without that check, a
 * cache written by a newer fontconfig than its own (FcCacheIsNewVersion: "do
 * not trigger regenerating"): the cache says so. The layer is read-only and
 * its cache built from exactly its fonts, so it can never be stale there.
 * A header this code does not know is left as it is (each cold start then
 * builds the cache: slower, still right), and test/deploy/layer-fonts.test.ts fails.
 */
function trustOnLambda(file: string): void {
  const bytes = readFileSync(file);
  if (bytes.length < 72 || bytes.readUInt32LE(0) !== FONTCONFIG_CACHE.magic || bytes.readInt32LE(4) !== FONTCONFIG_CACHE.version || bytes.readUInt32LE(8) !== bytes.length) {
    console.error(`${file}: not a fontconfig cache-${FONTCONFIG_CACHE.version} file; left as it is, so each cold start will build it`);
    return;
  }
  bytes.writeBigInt64LE(BigInt(NEWER_THAN_ANY), FONTCONFIG_CACHE.fcVersionOffset);
  writeFileSync(file, bytes);
}

/**
 * A digest of what the layer's fonts are made of: the catalogue, the
 * installed version of each font package, and the Chromium that built the
 * cache. `npm start` rebuilds the fonts when it changed.
 */
export function layerFontsDigest(): string {
  const version = (pkg: string) => (JSON.parse(readFileSync(join(resolvePackageDir(pkg, root), 'package.json'), 'utf8')) as { version: string }).version;
  const packages = [...new Set([...LAYER_FONTS.map((font) => font.pkg), LAYER_EMOJI.pkg, '@sparticuz/chromium'])].map((pkg) => `${pkg}@${version(pkg)}`);
  return createHash('sha256').update(JSON.stringify({ LAYER_FONTS, LAYER_EMOJI, packages })).digest('hex');
}

/** Where the digest of the fonts last built into a layer folder is kept (beside them, not in what Lambda gets). */
export function layerFontsStamp(layerDir: string): string {
  return join(layerDir, '.fonts-stamp');
}

/** True when `layerDir` holds fonts built from `digest` (the catalogue and packages installed now), not only a fonts folder. */
export function layerFontsCurrent(layerDir: string, digest = layerFontsDigest()): boolean {
  const stamp = layerFontsStamp(layerDir);
  return existsSync(join(layerDir, 'fonts')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest;
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}

/** Builds (or rebuilds from scratch) the Chromium layer folder: Node packages, Chromium, fonts and fontconfig. */
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
  rmSync(layerFontsStamp(layerDir), { force: true });
  const fonts = await writeLayerFonts(fontsDir);
  await writeLayerFontconfig(join(layerDir, 'fontconfig'), fontsDir);
  writeFileSync(layerFontsStamp(layerDir), layerFontsDigest());
  return { packages: seen.size, fonts, bytes: folderBytes(layerDir) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const summary = await buildChromiumLayer();
  const mb = (summary.bytes / 1024 / 1024).toFixed(1);
  console.log(`Chromium layer built in layers/chromium: ${summary.packages} packages, ${summary.fonts.length} font files, ${mb} MB unzipped`);
}
