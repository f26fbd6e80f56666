/**
 * What a rendering function loads in its INIT, read from the deployed build
 * (serverless.yml's esbuild options): the function's module and everything
 * it imports statically, plus what INIT itself imports dynamically (the
 * shared dependencies and the endpoint, see lib/render-app.ts), and their
 * static imports in turn. Libraries only some requests need load with the
 * first request that needs them: each costs a cold start its compile and
 * evaluation at the function's CPU share.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readdirSync } from 'node:fs';
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
const INIT_IMPORTS = ['lib/app.ts', 'lib/api/render-endpoints.ts', 'lib/job-runner/job-consumers.ts'];

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

  it('imports node:http and node:https from ES modules only through require(), which builds no facade (no undici), in every function', async () => {
    const functions = readdirSync(join(root, 'functions')).filter((name) => name.endsWith('.ts')).map((name) => `functions/${name}`);
    const { meta } = await deployed(functions);
    const facades = Object.entries(meta.inputs).flatMap(([path, input]) =>
      input.imports.filter((edge) => edge.external && /^(node:)?https?$/.test(edge.path) && edge.kind === 'import-statement').map(() => path),
    );
    assert.deepEqual(facades, []);
  });
});
