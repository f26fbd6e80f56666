/**
 * What a rendering function loads in its INIT, read from the deployed build
 * (serverless.yml's esbuild options): the function's module and everything
 * it imports statically, plus what INIT itself imports dynamically (the
 * renderer, the shared dependencies and the endpoint, see lib/bootstrap/rendering-handler.ts
 * and lib/bootstrap/renderer-init.ts), and their
 * static imports in turn. Libraries only some requests need load with the
 * first request that needs them: each costs a cold start its compile and
 * evaluation at the function's CPU share.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { deployedBuild } from '../../../bench/deployed-build.js';

/** The functions that render, and the modules their INIT imports dynamically. */
const RENDERING_FUNCTIONS = [
  'functions/jobs-consume.ts',
  'functions/pdf-merge-sync.ts',
  'functions/pdf-merge.ts',
  'functions/pdf-sync.ts',
  'functions/pdf.ts',
  'functions/screenshot-sync.ts',
  'functions/screenshot.ts',
  'functions/template-render-sync.ts',
  'functions/template-render.ts',
];
const INIT_IMPORTS = ['lib/bootstrap/renderer-init.ts', 'lib/bootstrap/app-deps.ts', 'lib/api/render-endpoints.ts', 'lib/job-runner/job-consumers.ts'];

/** Packages no rendering function's INIT may load. */
const NOT_IN_INIT = ['node_modules/@cantoo/pdf-lib/', 'node_modules/culori/', 'node_modules/fflate/', 'node_modules/handlebars/'];

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The deployed build of `entryPoints`. */
async function deployed(entryPoints: string[]) {
  const { options } = deployedBuild();
  const result = await build({ ...options, absWorkingDir: root, entryPoints, outdir: 'unused', write: false, metafile: true, logLevel: 'silent' });
  return { meta: result.metafile };
}

async function metafile(): Promise<Metafile> {
  return (await deployed(RENDERING_FUNCTIONS)).meta;
}

/** Every input reached from `roots` through static imports, with the path that reached it first. */
function staticClosure(meta: Metafile, roots: string[]): Map<string, string[]> {
  const reached = new Map<string, string[]>(roots.map((root) => [root, [root]]));
  const queue = [...roots];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    for (const edge of meta.inputs[current]?.imports ?? []) {
      if (edge.external || (edge.kind !== 'import-statement' && edge.kind !== 'require-call') || reached.has(edge.path)) continue;
      reached.set(edge.path, [...(reached.get(current) ?? []), edge.path]);
      queue.push(edge.path);
    }
  }
  return reached;
}

describe('what a rendering function loads in INIT', () => {
  it('leaves the PDF library and Handlebars to the first request that needs them', async () => {
    const meta = await metafile();
    for (const root of [...RENDERING_FUNCTIONS, ...INIT_IMPORTS]) assert.ok(meta.inputs[root], `${root} is not in the build`);
    const init = staticClosure(meta, [...RENDERING_FUNCTIONS, ...INIT_IMPORTS]);
    const loaded = [...init.entries()].filter(([path]) => NOT_IN_INIT.some((prefix) => path.startsWith(prefix)));
    assert.deepEqual(
      loaded.slice(0, 3).map(([, chain]) => chain.join(' → ')),
      [],
    );
    // The libraries are in the build all the same, loaded on demand.
    for (const library of ['node_modules/@cantoo/pdf-lib/', 'node_modules/handlebars/']) assert.ok(Object.keys(meta.inputs).some((path) => path.startsWith(library)), library);
  });

  it("reaches none of the renderer's modules from a function's module statically: the compile cache is on before they compile", async () => {
    // Every module a static import reaches is compiled before any of them runs (lib/bootstrap/rendering-handler.ts).
    const functions = readdirSync(join(root, 'functions'))
      .map((name) => `functions/${name}`)
      .filter((path) => readFileSync(join(root, path), 'utf8').includes('renderingHandler'));
    assert.ok(functions.length >= RENDERING_FUNCTIONS.length);
    const { meta } = await deployed(functions);
    for (const fn of functions) {
      // Node's built-ins aside (served by require(), scripts/esbuild-plugins.cjs).
      const reached = [...staticClosure(meta, [fn]).keys()].filter((path) => path !== fn && !path.startsWith('docrender-node-builtin:'));
      assert.deepEqual(reached.sort(), ['lib/bootstrap/rendering-handler.ts', 'lib/lambda/compile-cache.ts'], fn);
    }
  });
});
