/**
 * esbuild plugins of the deployed bundle (serverless.yml `custom.esbuild.plugins`;
 * the bench's cold start builds with them too): `requireNodeBuiltins`,
 * `chunksNamedByEntry`, `pipeLaunchOnly` and `finishingStepsWhereRendered` below.
 *
 * `requireNodeBuiltins`: Node's built-in modules without their ES-module facades. Importing
 * a built-in from an ES module makes Node build a facade that reads every
 * export of the module, lazy getters included, and Node hides what it loads
 * late behind getters: `http.WebSocket` (with `CloseEvent`, `MessageEvent`)
 * loads all of undici, about 70 ms of CPU in a cold start at a function's CPU
 * share, for a WebSocket nothing here uses (nodejs/node#57649, #59686, open);
 * `crypto.getRandomValues` (and `webcrypto`, `subtle`) load Web Crypto;
 * `process.stdin` opens standard input, `process.report` the diagnostic
 * report, `util.parseArgs` and `util.MIMEType` their modules, `net.BlockList`
 * its own. `require()` builds no facade. So every static ES-module import of a
 * built-in (ours, the AWS SDK's, Puppeteer's) is served by a module that
 * requires it, exports the module as its default, and each name as
 * `/* @__PURE__ *\/ $read$(name)`: esbuild drops the names no module of the
 * build imports, so only those are read, when the module is evaluated, as
 * Node would (a namespace import keeps them all: no worse than the facade).
 * A function behind a costly getter that a library imports by name
 * (`@smithy/core`'s `getRandomValues`) is exported as a function that reads
 * the getter when called, and undici's classes on `http` are never exported
 * (a dynamic import keeps every name). Dynamic imports of other built-ins
 * stay Node's.
 */
'use strict';

/** Built-ins whose dynamic imports are served too. */
const DYNAMIC_TOO = /^(node:)?https?$/;

/** Functions behind a costly getter, read when called rather than when the module is evaluated. */
const LAZY_FUNCTIONS = { crypto: ['getRandomValues'] };

/**
 * Getters never exported, even where every name is kept (a namespace or
 * dynamic import): undici's classes, for which nothing here has a use. A
 * module that asks for one by name fails the build, and so does one that
 * reads one through a namespace import (`import-is-undefined`, an error here).
 */
const NEVER = { http: ['WebSocket', 'CloseEvent', 'MessageEvent'] };

/** The module serving built-in `name`. */
function facadeFree(name) {
  // Keys only, as Node's facade takes them: no getter runs here.
  const keys = Object.keys(require(`node:${name}`)).filter((key) => key !== 'default' && !NEVER[name]?.includes(key) && /^[A-Za-z_$][\w$]*$/.test(key));
  const lazy = LAZY_FUNCTIONS[name] ?? [];
  return [
    "import { createRequire } from 'node:module';",
    // Names no built-in exports: a built-in's own names (fs.read) must not meet them.
    `const $builtin$ = createRequire(import.meta.url)('node:${name}');`,
    'const $read$ = (key) => $builtin$[key];',
    'export default $builtin$;',
    ...keys.map((key) =>
      lazy.includes(key) ? `export function ${key}(...args) { return $builtin$.${key}(...args); }` : `export const ${key} = /* @__PURE__ */ $read$(${JSON.stringify(key)});`,
    ),
  ].join('\n');
}

const NAMESPACE = 'docrender-node-builtin';
/** Node's public built-ins but `module` (which the served modules import themselves). */
const BUILTIN = new RegExp(`^(node:)?(${require('node:module').builtinModules.filter((name) => !name.startsWith('_') && name !== 'module').join('|').replaceAll('/', '\\/')})$`);

/** Serves static ES-module imports of Node's built-ins (with or without `node:`) from `require()`. */
const requireNodeBuiltins = {
  name: 'require-node-builtins',
  setup(build) {
    build.initialOptions.logOverride = { ...build.initialOptions.logOverride, 'import-is-undefined': 'error' };
    build.onResolve({ filter: BUILTIN }, (args) => {
      // CommonJS code requires them already; only ES-module imports build a facade.
      if (args.kind !== 'import-statement' && !(args.kind === 'dynamic-import' && DYNAMIC_TOO.test(args.path))) return undefined;
      return { path: args.path.replace(/^node:/, ''), namespace: NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({ loader: 'js', contents: facadeFree(args.path) }));
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
/** A build's one entry, as its source file and its output name, or undefined when the build has several. */
function singleEntry(build) {
  const given = build.initialOptions.entryPoints ?? [];
  const entries = Array.isArray(given)
    ? given.map((entry) => (typeof entry === 'string' ? { in: entry, out: entry } : entry))
    : Object.entries(given).map(([out, source]) => ({ in: source, out }));
  return entries.length === 1 ? entries[0] : undefined;
}

/** A path's file name without its extension. */
const baseName = (path) => String(path).split(/[\\/]/).pop().replace(/\.[^.]*$/, '');

const chunksNamedByEntry = {
  name: 'chunks-named-by-entry',
  setup(build) {
    // Several entries in one build share their chunks on purpose.
    const entry = singleEntry(build);
    if (!entry) return;
    build.initialOptions.chunkNames = `${baseName(entry.out)}~[name]-[hash]`;
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

/**
 * The finishing steps' code only in the functions that render
 * (`finishingStepsWhereRendered`). A step's definition
 * (lib/finishing/steps/<step>/definition.ts) holds its request options,
 * which every function that validates a request reads, and loads its code
 * with a dynamic import when a document runs the step. esbuild bundles
 * every dynamic import a build reaches, so a function that only checks and
 * queues a request (pdf-async, the batch and template endpoints) would carry
 * every step and the PDF library as chunks it never loads. In the builds of
 * the functions that do not render (serverless.yml: those without
 * `<<: *renderer`), a definition's dynamic imports are served by a module
 * that says the step is not in this function.
 */
function renderingHandlers() {
  const yml = require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'serverless.yml'), 'utf8');
  const handlers = new Set();
  for (const [, block] of yml.matchAll(/^ {2}[\w-]+:\n((?: {4}.*\n|[ \t]*\n)+)/gm)) {
    const handler = /^ {4}handler: functions\/([\w-]+)\.handler$/m.exec(block)?.[1];
    if (handler && /^ {4}<<: \*renderer$/m.test(block)) handlers.add(handler);
  }
  return handlers;
}

const STEP_LEFT_OUT = 'docrender-step-left-out';

const finishingStepsWhereRendered = {
  name: 'finishing-steps-where-rendered',
  setup(build) {
    const entry = singleEntry(build);
    if (!entry) return;
    const handler = baseName(entry.in);
    const rendering = renderingHandlers();
    // Not a handler of serverless.yml (the bench's own entries): as built.
    if (rendering.size === 0 || rendering.has(handler)) return;
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import' || !/[\\/]lib[\\/]finishing[\\/]steps[\\/][^\\/]+[\\/]definition\.ts$/.test(args.importer)) return undefined;
      return { path: args.path, namespace: STEP_LEFT_OUT };
    });
    build.onLoad({ filter: /.*/, namespace: STEP_LEFT_OUT }, (args) => ({
      loader: 'js',
      contents: `throw new Error(${JSON.stringify(`The finishing step ${args.path} runs in the functions that render; it is left out of ${handler} (scripts/esbuild-plugins.cjs)`)});\n`,
    }));
  },
};

module.exports = [requireNodeBuiltins, chunksNamedByEntry, pipeLaunchOnly, finishingStepsWhereRendered];
