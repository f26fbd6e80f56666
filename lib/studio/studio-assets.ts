/**
 * The template studio's files (`GET /` and `GET /studio/{file}`), read from
 * `studio/dist`: beside the project under `npm start`, beside the handler in
 * a deployed zip (packaged with the function's `package.patterns`). In a
 * source checkout the build is refreshed first when `studio/src` changed, so
 * editing the studio needs no extra step.
 */
import { randomBytes } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { HttpEvent, HttpResult } from '../http/types.js';
import { PAGE_SECURITY_HEADERS, sameOriginPolicy } from '../http/page-security.js';
import { StudioBuildMissingError } from './errors.js';

/** Where `studio/dist` may be, most specific first. */
const CANDIDATES = [new URL('../../studio/dist/', import.meta.url), new URL('../studio/dist/', import.meta.url)];
const BUILD_SCRIPT = new URL('../../studio/build.ts', import.meta.url);

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'studio.js': 'text/javascript; charset=utf-8',
  'studio.css': 'text/css; charset=utf-8',
  'pdf.worker.mjs': 'text/javascript; charset=utf-8',
};

/**
 * Only this origin. No inline script; inline style only in the one <style>
 * element CodeMirror writes its theme into, which carries this answer's nonce
 * (CodeMirror's `EditorView.cspNonce`, read from the page's meta tag). pdf.js
 * sets styles through the CSSOM, which a CSP does not restrict. Previews are
 * blob: URLs; pdf.js runs in a worker we serve.
 */
const contentSecurityPolicy = (nonce: string) =>
  sameOriginPolicy({ style: `'self' 'nonce-${nonce}'`, images: "'self' blob: data:", extra: ["worker-src 'self'"] });

type Asset = { type: string; plain: Buffer; gzip: string };
let assets: Promise<Map<string, Asset>> | undefined;

async function exists(url: URL): Promise<boolean> {
  return access(url).then(() => true, () => false);
}

/** In a source checkout (esbuild and the sources at hand), rebuilds when the sources are newer. */
async function refreshBuild(): Promise<void> {
  if (!(await exists(BUILD_SCRIPT))) return;
  // A computed specifier keeps the bundler from pulling esbuild into the Lambda zip.
  const script = pathToFileURL(fileURLToPath(BUILD_SCRIPT)).href;
  const studio = (await import(script)) as { buildStudio: () => Promise<void>; studioBuildIsStale: () => Promise<boolean> };
  if (await studio.studioBuildIsStale()) await studio.buildStudio();
}

async function loadAssets(): Promise<Map<string, Asset>> {
  await refreshBuild();
  for (const dir of CANDIDATES) {
    if (!(await exists(new URL('index.html', dir)))) continue;
    const loaded = new Map<string, Asset>();
    for (const [name, type] of Object.entries(TYPES)) {
      const plain = await readFile(new URL(name, dir));
      loaded.set(name, { type, plain, gzip: gzipSync(plain, { level: 9 }).toString('base64') });
    }
    return loaded;
  }
  throw new StudioBuildMissingError('studio/dist not found: run `npm run build:studio` (npm ci does) and package it with the studio function');
}

/** The studio's files, read and compressed once per process. */
export function studioAssets(): Promise<Map<string, Asset>> {
  assets ??= loadAssets().catch((error: unknown) => {
    assets = undefined;
    throw error;
  });
  return assets;
}

/** `GET /` is the page; `GET /studio/{file}` its script, styles and pdf.js worker; anything else 404. */
export async function studioResponse(event: Pick<HttpEvent, 'rawPath' | 'headers'>): Promise<HttpResult> {
  const name = event.rawPath === '/' || event.rawPath === '' ? 'index.html' : event.rawPath.replace(/^.*\/studio\//, '');
  const asset = name === 'index.html' || event.rawPath.includes('/studio/') ? (await studioAssets()).get(name) : undefined;
  if (!asset) {
    return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Not Found' }) };
  }
  const nonce = randomBytes(18).toString('base64');
  const headers: Record<string, string> = {
    'content-type': asset.type,
    // The page carries a fresh nonce; its files are named without a version, so they are checked again soon.
    'cache-control': name === 'index.html' ? 'no-store' : 'public, max-age=300',
    vary: 'accept-encoding',
    'content-security-policy': contentSecurityPolicy(nonce),
    ...PAGE_SECURITY_HEADERS,
  };
  const acceptsGzip = /\bgzip\b/i.test(event.headers?.['accept-encoding'] ?? '');
  if (name === 'index.html') {
    const page = asset.plain.toString('utf8').replace('{{CSP_NONCE}}', nonce);
    return acceptsGzip
      ? { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(page).toString('base64'), isBase64Encoded: true }
      : { statusCode: 200, headers, body: page };
  }
  return acceptsGzip
    ? { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: asset.gzip, isBase64Encoded: true }
    : { statusCode: 200, headers, body: asset.plain.toString('utf8') };
}
