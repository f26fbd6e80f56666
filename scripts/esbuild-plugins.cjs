/**
 * esbuild plugins of the deployed bundle (serverless.yml `custom.esbuild.plugins`;
 * the bench's cold start builds with them too): `requireNodeHttp` and
 * `chunksNamedByEntry` below.
 *
 * `requireNodeHttp`: `node:http` / `node:https` without Node's ES-module facade. Importing
 * `http` from an ES module makes Node build a facade that reads every export
 * of the module, and `http.WebSocket` (with `CloseEvent`, `MessageEvent`) is
 * a lazy getter that loads all of undici: about 70 ms of CPU in a cold start
 * at a function's CPU share, for a WebSocket nothing here uses
 * (nodejs/node#57649, #59686, open). `require()` builds no facade. So every
 * ES-module import of the two (ours, the AWS SDK's HTTP handler, Puppeteer's
 * browser fetcher) is served by a module that requires them and re-exports
 * every name the module has, but the lazy undici classes.
 */
'use strict';

/** The lazy getters that load undici (Node 22's http.js): never read, so never exported. */
const UNDICI_GETTERS = new Set(['WebSocket', 'CloseEvent', 'MessageEvent']);

/** What the module exports, read from the Node that builds (keys only: no getter runs). */
const exportsOf = (name) => Object.keys(require(`node:${name}`)).filter((key) => !UNDICI_GETTERS.has(key) && /^[A-Za-z_$][\w$]*$/.test(key));

const NAMESPACE = 'docrender-node-builtin';

/** Serves ES-module imports of `http`/`https` (with or without `node:`) from `require()`. */
const requireNodeHttp = {
  name: 'require-node-http',
  setup(build) {
    build.onResolve({ filter: /^(node:)?https?$/ }, (args) => {
      // CommonJS code requires them already; only ES-module imports build a facade.
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      return { path: args.path.replace(/^node:/, ''), namespace: NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
      const names = exportsOf(args.path);
      return {
        loader: 'js',
        contents: [
          "import { createRequire } from 'node:module';",
          `const m = createRequire(import.meta.url)('node:${args.path}');`,
          'export default m;',
          ...names.map((name) => `export const ${name} = m.${name};`),
        ].join('\n'),
      };
    });
  },
};

/**
 * Chunks named after the entry that owns them (`pdf~chunk-XXXX.mjs`) when a
 * build has one entry, as serverless-esbuild builds each handler. Its builds
 * share one output folder, and esbuild may give two builds' chunks the same
 * name with different contents (the same Puppeteer module importing each
 * build's own copy of a common chunk): the last build written won, and a
 * function's zip could hold another build's file. With the entry in the
 * name, no build writes over another's, and a zip's file names say whose
 * they are (scripts/serverless-import-closure.cjs keeps only its own).
 */
const chunksNamedByEntry = {
  name: 'chunks-named-by-entry',
  setup(build) {
    const entries = build.initialOptions.entryPoints ?? [];
    const names = Array.isArray(entries) ? entries.map((entry) => (typeof entry === 'string' ? entry : entry.out)) : Object.keys(entries);
    // Several entries in one build share their chunks on purpose.
    if (names.length !== 1) return;
    const base = names[0].split('/').pop().replace(/\.[^.]*$/, '');
    build.initialOptions.chunkNames = `${base}~[name]-[hash]`;
  },
};

/**
 * What Puppeteer imports but a pipe launch of a given executable never runs,
 * left out of every bundle (`pipeLaunchOnly`): Puppeteer's index imports `ws`
 * for its WebSocket transport (connecting to a running browser by URL) and all
 * of `@puppeteer/browsers`, whose downloader and command line (yargs) load at
 * a renderer's INIT with the rest. Nothing here connects by URL or downloads a
 * browser: `ws` becomes a WebSocket that cannot be built, and
 * `@puppeteer/browsers` its launcher and browser data (what
 * `puppeteer.launch({ executablePath })` calls), its other exports functions
 * that say they were left out.
 */
const PUPPETEER_BROWSERS_KEPT = {
  'launch.js': ['launch', 'computeExecutablePath', 'computeSystemExecutablePath', 'TimeoutError', 'CDP_WEBSOCKET_ENDPOINT_REGEX', 'WEBDRIVER_BIDI_WEBSOCKET_ENDPOINT_REGEX', 'Process'],
  'detectPlatform.js': ['detectBrowserPlatform'],
  'browser-data/browser-data.js': ['resolveBuildId', 'Browser', 'BrowserPlatform', 'ChromeReleaseChannel', 'createProfile', 'getVersionComparator', 'resolveDefaultUserDataDir'],
  'Cache.js': ['Cache', 'InstalledBrowser'],
  'browser-data/types.js': ['BrowserTag'],
};
const PUPPETEER_BROWSERS_LEFT_OUT = ['install', 'getInstalledBrowsers', 'canDownload', 'uninstall', 'getDownloadUrl', 'CLI', 'DefaultProvider', 'buildArchiveFilename'];
const LEFT_OUT = 'docrender-left-out';

const pipeLaunchOnly = {
  name: 'pipe-launch-only',
  setup(build) {
    build.onResolve({ filter: /^(ws|@puppeteer\/browsers)$/ }, (args) => ({ path: args.path, namespace: LEFT_OUT, pluginData: { resolveDir: args.resolveDir } }));
    build.onLoad({ filter: /.*/, namespace: LEFT_OUT }, (args) => {
      const absent = (what) => `function () { throw new Error(${JSON.stringify(`${what} is left out of this bundle: Chromium is launched over a pipe from a given executable (scripts/esbuild-plugins.cjs)`)}); }`;
      if (args.path === 'ws') {
        return { loader: 'js', contents: `const WebSocket = ${absent('ws')};\nexport default WebSocket;\nexport { WebSocket };\n` };
      }
      const lib = require('node:path').dirname(require.resolve('@puppeteer/browsers', { paths: [args.pluginData.resolveDir] }));
      return {
        loader: 'js',
        resolveDir: lib,
        contents: [
          ...Object.entries(PUPPETEER_BROWSERS_KEPT).map(([file, names]) => `export { ${names.join(', ')} } from './${file}';`),
          ...PUPPETEER_BROWSERS_LEFT_OUT.map((name) => `export const ${name} = ${absent(`@puppeteer/browsers ${name}`)};`),
        ].join('\n'),
      };
    });
  },
};

module.exports = [requireNodeHttp, chunksNamedByEntry, pipeLaunchOnly];
