/**
 * `GET /docs`: the API reference, rendered in the browser by Scalar's
 * standalone bundle (@scalar/api-reference) from `/v1/openapi.json`. The
 * bundle is served by the service itself (`/docs/api-reference.js`), so the
 * page loads nothing from another origin.
 */
import { access, readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { HttpEvent, HttpResult } from '../http/types.js';
import { PAGE_SECURITY_HEADERS, sameOriginPolicy } from '../http/page-security.js';

const BUNDLE = 'node_modules/@scalar/api-reference/dist/browser/standalone.js';

/**
 * Where the bundle is: beside the project when run from the sources
 * (`npm start`), beside the handler in a deployed zip (packaged with the
 * function's `package.patterns`), or under the working directory.
 */
const CANDIDATES = [
  new URL(`../../${BUNDLE}`, import.meta.url),
  new URL(`../${BUNDLE}`, import.meta.url),
  pathToFileURL(`${process.cwd()}/${BUNDLE}`),
];

/**
 * Only this origin, for a page that runs a large third-party bundle: Scalar
 * injects its styles (hence 'unsafe-inline' for style only), and its
 * "try it" client calls the API on the same origin.
 */
const SECURITY_HEADERS = {
  'content-security-policy': sameOriginPolicy({ style: "'self' 'unsafe-inline'" }),
  ...PAGE_SECURITY_HEADERS,
};

/** Scalar's options: no web fonts from its CDN, no hosted services, every endpoint listed at once. */
const SCALAR_CONFIGURATION = {
  defaultOpenAllTags: true,
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
};

/** The page: relative URLs, so it works under any stage prefix. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DocRender API reference</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="v1/openapi.json" data-configuration="${escapeAttribute(
  JSON.stringify(SCALAR_CONFIGURATION),
)}"></script>
<script src="docs/api-reference.js"></script>
</body>
</html>
`;

function escapeAttribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/** The reference page. */
export function docsPage(): HttpResult {
  return {
    statusCode: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=300', ...SECURITY_HEADERS },
    body: PAGE,
  };
}

let bundle: Promise<{ plain: string; gzip: string }> | undefined;

async function loadBundle(): Promise<{ plain: string; gzip: string }> {
  for (const url of CANDIDATES) {
    const found = await access(url).then(() => true, () => false);
    if (!found) continue;
    const bytes = await readFile(url);
    // Gzipped it fits a Lambda answer with room to spare (4 MB → ~1 MB); base64 for the binary body.
    return { plain: bytes.toString('utf8'), gzip: gzipSync(bytes, { level: 9 }).toString('base64') };
  }
  throw new Error(`${BUNDLE} not found; package it with the docs function`);
}

/** The Scalar bundle, gzipped when the client takes it (every browser does). Read and compressed once per process. */
export async function docsScript(event: Pick<HttpEvent, 'headers'>): Promise<HttpResult> {
  bundle ??= loadBundle();
  const loaded = await bundle.catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  const acceptsGzip = /\bgzip\b/i.test(event.headers?.['accept-encoding'] ?? '');
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=86400',
    vary: 'accept-encoding',
    ...SECURITY_HEADERS,
  };
  return acceptsGzip
    ? { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: loaded.gzip, isBase64Encoded: true }
    : { statusCode: 200, headers, body: loaded.plain };
}
