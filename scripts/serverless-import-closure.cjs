/**
 * A local Serverless plugin (serverless.yml `plugins`): each function's zip
 * holds its own import closure, the handler and the chunks it imports
 * statically or on demand, and nothing of any other function.
 *
 * Why: serverless-esbuild builds every handler on its own (code splitting:
 * the handler and its chunks) into one shared folder, then zips that whole
 * folder into every function, dropping only the other handlers' entry files:
 * every zip held every chunk of every function and its source map (Puppeteer
 * and the PDF library in `GET /v1/usage`'s). It does exclude what a
 * function's `package.patterns` negate, globbed in the build folder when it
 * zips; chunk names are known only once built. So, between its build and its
 * zip, this plugin negates in each function's patterns every file of the
 * build folder its handler cannot reach (from each build's metafile:
 * `custom.esbuild.metafile`), the metafiles, and the source maps: no
 * function starts Node with --enable-source-maps (serverless.yml,
 * `provider.environment`), so nothing on Lambda reads them. The chunks carry
 * their entry's name (scripts/esbuild-plugins.cjs), so no build overwrites
 * another's.
 *
 * `serverless package`, `deploy` and `deploy function` all zip through that
 * same step, so what is checked offline (test/deploy/package.test.ts) is what
 * is uploaded.
 */
'use strict';

const path = require('node:path');

class ImportClosurePlugin {
  constructor(serverless) {
    this.serverless = serverless;
    // After every plugin is loaded, whatever the order of `plugins`.
    this.hooks = { initialize: () => this.wrapEsbuildPack() };
  }

  wrapEsbuildPack() {
    const esbuild = this.serverless.pluginManager.plugins.find((plugin) => plugin.constructor.name === 'EsbuildServerlessPlugin');
    if (!esbuild || typeof esbuild.pack !== 'function') {
      throw new this.serverless.classes.Error('scripts/serverless-import-closure.cjs needs serverless-esbuild among the plugins');
    }
    const pack = esbuild.pack;
    esbuild.pack = async () => {
      excludeOtherBuilds(esbuild);
      return pack();
    };
  }
}

/** The build folder's path of a metafile path (relative to esbuild's working folder). */
function inBuildFolder(esbuild, file) {
  const workingDir = esbuild.buildOptions.absWorkingDir ?? process.cwd();
  return path.relative(esbuild.buildDirPath, path.resolve(workingDir, file)).split(path.sep).join('/');
}

/**
 * What one build wrote (`written`) and what its handler can load (`closure`):
 * its entry file and every chunk reached from it through static and dynamic
 * imports. esbuild may write a chunk no file imports (a dynamic import it
 * shook out): written, not in the closure.
 */
function outputsOf(esbuild, { result, bundlePath }) {
  const outputs = result?.metafile?.outputs;
  if (!outputs) throw new Error('serverless-import-closure: a build has no metafile; serverless.yml custom.esbuild needs `metafile: true`');
  // The handler's file (dynamically imported modules are entry points of the build too).
  const handler = Object.keys(outputs).find((file) => inBuildFolder(esbuild, file) === bundlePath);
  if (!handler) throw new Error(`serverless-import-closure: the build of ${bundlePath} did not write it`);
  const closure = new Set([handler]);
  for (const file of closure) {
    for (const edge of outputs[file]?.imports ?? []) if (!edge.external && outputs[edge.path]) closure.add(edge.path);
  }
  return { written: Object.keys(outputs).map((file) => inBuildFolder(esbuild, file)), closure: new Set([...closure].map((file) => inBuildFolder(esbuild, file))) };
}

/** Negates, in each function's package patterns, every file of the build folder outside its closure, source maps included. */
function excludeOtherBuilds(esbuild) {
  const builds = Object.values(esbuild.buildCache);
  const outputsByBundle = new Map(builds.map((build) => [build.bundlePath, outputsOf(esbuild, build)]));
  const everyOutput = new Set([...outputsByBundle.values()].flatMap((outputs) => outputs.written));
  // serverless-esbuild writes each build's metafile beside its handler (`functions/pdf-meta.json`).
  const metafiles = builds.map((build) => `${build.entry.slice(0, build.entry.lastIndexOf('.'))}-meta.json`);
  for (const { func, bundlePath } of esbuild.buildResults) {
    const { closure } = outputsByBundle.get(bundlePath);
    // serverless-esbuild takes `!a/b.mjs` to exclude a/b.mjs and anything named a/b.mjs.*: a/b.mjs.map too.
    const outside = [...everyOutput].filter((file) => !closure.has(file) && !file.endsWith('.map'));
    const maps = [...closure].map((file) => `${file}.map`).filter((file) => everyOutput.has(file));
    func.package = func.package ?? {};
    func.package.patterns = [...(func.package.patterns ?? []), ...[...outside, ...maps, ...metafiles].map((file) => `!${file}`)];
  }
}

module.exports = ImportClosurePlugin;
