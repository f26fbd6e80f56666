import { access, readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import type { FiltersEngine, RequestType } from '@ghostery/adblocker';
import type { Page } from 'puppeteer-core';

/**
 * Ad and tracker blocking from filter lists that ship with the code
 * (`lib/render/assets/`, built by `scripts/build-adblock-engine.ts`): AdGuard
 * Base (EasyList + AdGuard English), AdGuard Tracking Protection and AdGuard
 * Cookie Notices, compiled into two serialised @ghostery/adblocker engines,
 * one for requests and one for element hiding.
 */
export type AdblockEngine = {
  shouldBlock(req: { url: string; type: string /* puppeteer ResourceType: 'script','image','xhr','fetch','stylesheet','document','sub_frame'… */; sourceUrl: string }): boolean;
  /** CSS (selectors → display:none) to inject for this page's hostname: generic + specific cosmetic filters. '' when none. */
  cosmeticCss(pageUrl: string, dom?: PageTokens): string;
};

/**
 * Class names, ids and link targets found in a page. Generic hiding rules
 * written as `.class` or `#id` selectors (most of them) are only returned
 * for tokens the page actually uses; without them `cosmeticCss` returns the
 * site-specific rules and the generic rules that are not tied to a token.
 */
export type PageTokens = { classes?: string[]; ids?: string[]; hrefs?: string[] };

/**
 * Where the engine files are: in lib/render/assets when run from source, and,
 * in a bundle (functions/*.mjs) packaged with `lib/render/assets/**`, under
 * the package root.
 */
const ASSET_DIRS = [
  new URL('../assets/', import.meta.url),
  new URL('../lib/render/assets/', import.meta.url),
  pathToFileURL(`${process.cwd()}/lib/render/assets/`),
];
const NETWORK_FILE = 'adblock-network.bin.br';
const COSMETIC_FILE = 'adblock-cosmetic.bin.br';

// Puppeteer names the top document and iframes alike `document`; the engine
// tells them apart. Types the engine does not know are matched as `other`.
const KNOWN_TYPES = new Set<string>([
  'main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'media', 'object', 'xhr', 'fetch',
  'xmlhttprequest', 'ping', 'websocket', 'eventsource', 'texttrack', 'manifest', 'prefetch', 'preflight',
  'signedexchange', 'cspviolationreport', 'other',
]);

const decompress = promisify(brotliDecompress);

/**
 * The engine library, imported on first use: it is large, and a cold start
 * must not load it before Chromium is launched (see `loadAdblockEngine`).
 */
type Adblocker = typeof import('@ghostery/adblocker');
let library: Promise<Adblocker> | undefined;
const adblocker = (): Promise<Adblocker> => (library ??= import('@ghostery/adblocker'));

async function readEngine(dir: URL, file: string): Promise<FiltersEngine> {
  const path = fileURLToPath(new URL(file, dir));
  const [raw, { FiltersEngine, ENGINE_VERSION }] = await Promise.all([readFile(path).then((data) => decompress(data)), adblocker()]);
  try {
    return FiltersEngine.deserialize(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
  } catch (error) {
    // A newer @ghostery/adblocker cannot read an engine serialised by an older one.
    throw new Error(
      `${file} does not load with @ghostery/adblocker (engine version ${ENGINE_VERSION}); ` +
        'run `npx tsx scripts/build-adblock-engine.ts` to rebuild it',
      { cause: error },
    );
  }
}

function requestType(type: string, url: string, sourceUrl: string): RequestType {
  if (type === 'document') {
    const top = sourceUrl === '' || sourceUrl === url || sourceUrl === 'about:blank';
    return top ? 'main_frame' : 'sub_frame';
  }
  return (KNOWN_TYPES.has(type) ? type : 'other') as RequestType;
}

/** Host name and registrable domain of a URL, as the engine computes them. */
type Site = { hostname: string; domain: string };
const SOURCE_CACHE_ENTRIES = 256;

/** Wraps the two deserialised engines in the small interface the renderer uses. */
export function createAdblockEngine(network: FiltersEngine, cosmetic: FiltersEngine, { Request }: Adblocker): AdblockEngine {
  // A page makes hundreds of requests from the same few source URLs: parse each once.
  const sources = new Map<string, Site>();
  const siteOf = (sourceUrl: string): Site => {
    let site = sources.get(sourceUrl);
    if (!site) {
      const parsed = Request.fromRawDetails({ url: sourceUrl, type: 'main_frame' });
      site = { hostname: parsed.hostname, domain: parsed.domain || parsed.hostname };
      if (sources.size >= SOURCE_CACHE_ENTRIES) sources.delete(sources.keys().next().value as string);
      sources.set(sourceUrl, site);
    }
    return site;
  };

  return {
    shouldBlock({ url, type, sourceUrl }) {
      const kind = requestType(type, url, sourceUrl);
      // The page the caller asked for is never the ad blocker's to refuse.
      if (kind === 'main_frame') return false;
      const source = siteOf(sourceUrl);
      const request = Request.fromRawDetails({ url, sourceUrl, sourceHostname: source.hostname, sourceDomain: source.domain, type: kind });
      if (!request.isSupported) return false;
      return network.match(request).match;
    },

    cosmeticCss(pageUrl, dom) {
      const { hostname, domain } = Request.fromRawDetails({ url: pageUrl, type: 'main_frame' });
      if (!hostname) return '';
      const { styles } = cosmetic.getCosmeticsFilters({
        url: pageUrl,
        hostname,
        domain: domain ?? '',
        classes: dom?.classes ?? [],
        ids: dom?.ids ?? [],
        hrefs: dom?.hrefs ?? [],
        getBaseRules: true,
        getRulesFromHostname: true,
        getRulesFromDOM: dom !== undefined,
        // Scriptlets and procedural selectors need page scripts; we only inject CSS.
        getInjectionRules: false,
        getExtendedRules: false,
      });
      return styles;
    },
  };
}

async function assetsDir(): Promise<URL> {
  for (const dir of ASSET_DIRS) {
    try {
      await access(fileURLToPath(new URL(NETWORK_FILE, dir)));
      return dir;
    } catch {
      // try the next layout
    }
  }
  throw new Error(`${NETWORK_FILE} not found; package lib/render/assets/** with the function`);
}

let loading: Promise<AdblockEngine> | undefined;
let loaded: AdblockEngine | undefined;

/** The engine if it has finished loading, for callers that must not wait. */
export function loadedAdblockEngine(): AdblockEngine | undefined {
  return loaded;
}

/** Deserialises the shipped engine once per process (cache the promise). */
export function loadAdblockEngine(): Promise<AdblockEngine> {
  loading ??= assetsDir()
    .then((dir) => Promise.all([readEngine(dir, NETWORK_FILE), readEngine(dir, COSMETIC_FILE), adblocker()]))
    .then(([network, cosmetic, lib]) => {
      loaded = createAdblockEngine(network, cosmetic, lib);
      return loaded;
    })
    .catch((error: unknown) => {
      // Let a later render try again rather than caching the failure for the life of the container.
      loading = undefined;
      throw error;
    });
  return loading;
}

/** Most tokens of each kind read from a page; enough for real pages, bounded for hostile ones. */
const MAX_TOKENS = 5000;

/**
 * Reads the class names, ids and link targets a loaded page uses, so that
 * `cosmeticCss(url, tokens)` can include the generic hiding rules that match
 * them. Never throws: a page that cannot be read gets no generic rules.
 */
export async function readPageTokens(page: Page): Promise<PageTokens> {
  try {
    return await page.evaluate((max: number) => {
      const classes = new Set<string>();
      const ids = new Set<string>();
      const hrefs = new Set<string>();
      for (const element of Array.from(document.querySelectorAll('[class],[id],a[href]'))) {
        if (classes.size < max) for (const name of Array.from(element.classList)) classes.add(name);
        if (element.id && ids.size < max) ids.add(element.id);
        const href = element.getAttribute('href');
        if (href && element.tagName === 'A' && hrefs.size < max) hrefs.add(href);
        if (classes.size >= max && ids.size >= max && hrefs.size >= max) break;
      }
      return { classes: [...classes], ids: [...ids], hrefs: [...hrefs] };
    }, MAX_TOKENS);
  } catch {
    return {};
  }
}
