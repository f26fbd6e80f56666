/**
 * The deployed build's `require-node-builtins` plugin (scripts/esbuild-plugins.cjs):
 * an ES-module import of a Node built-in makes Node build a facade that reads
 * every export, lazy getters included (undici behind `http.WebSocket`, Web
 * Crypto behind `crypto.getRandomValues`), so the build serves those imports
 * from `require()` and reads only the names a module imports.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { deployedBuild } from '../../../bench/deployed-build.js';
import { tempDir } from '../../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Builds `source` (an ES module) with the deployed options into a temporary folder; answers the bundle's path. */
async function bundle(source: string): Promise<string> {
  const { options } = deployedBuild();
  const outdir = tempDir('docrender-builtins-');
  await build({
    ...options,
    absWorkingDir: root,
    stdin: { contents: source, resolveDir: root, loader: 'js', sourcefile: 'entry.mjs' },
    entryPoints: undefined,
    outdir,
    splitting: false,
    sourcemap: false,
    logLevel: 'silent',
  });
  return join(outdir, 'stdin.mjs');
}

/** Runs a bundle in a fresh Node and answers what it printed as JSON. */
async function run(file: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: root });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.join('|').replaceAll('/', '\\/')})$`);

describe('Node built-ins in the deployed build', () => {
  it('imports no built-in but node:module through an ES-module facade, in any function', async () => {
    // Prepare
    const functions = readdirSync(join(root, 'functions')).filter((name) => name.endsWith('.ts')).map((name) => `functions/${name}`);
    const { options } = deployedBuild();
    // Act
    const { metafile } = await build({ ...options, absWorkingDir: root, entryPoints: functions, outdir: 'unused', write: false, metafile: true, logLevel: 'silent' });
    // Assess: dynamic imports may stay Node's, but never http(s)'s
    const facades = Object.entries(metafile.inputs).flatMap(([path, input]) =>
      input.imports
        .filter((edge) => edge.external && BUILTIN.test(edge.path) && !/^(node:)?module$/.test(edge.path))
        .filter((edge) => edge.kind === 'import-statement' || /^(node:)?https?$/.test(edge.path))
        .map((edge) => `${path} → ${edge.path} (${edge.kind})`),
    );
    assert.deepEqual(facades, []);
  });

  it('reads only the names a module imports, and a costly getter only when its function is called', async () => {
    // Prepare: what the AWS SDK (getRandomValues, createHash) and Puppeteer (a namespace import of http) import
    const file = await bundle(`
      import { getRandomValues, createHash } from 'node:crypto';
      import { env } from 'node:process';
      import { promises } from 'node:fs';
      import * as http from 'node:http';
      const loaded = () => process.moduleLoadList.filter((name) => /webcrypto|undici/.test(name));
      const atImport = loaded();
      const random = getRandomValues(new Uint8Array(8));
      console.log(JSON.stringify({
        atImport,
        afterCall: loaded(),
        random: random.length,
        hash: createHash('sha256').update('x').digest('hex').length,
        env: typeof env.PATH,
        promises: typeof promises.readFile,
        request: typeof http.request,
        agent: http.globalAgent instanceof http.Agent,
      }));`);
    // Act
    const result = await run(file);
    // Assess: nothing loaded by importing; Web Crypto by calling getRandomValues; every name works
    assert.deepEqual(result.atImport, []);
    assert.ok((result.afterCall as string[]).some((name) => name.includes('webcrypto')), 'getRandomValues reaches Web Crypto when called');
    assert.deepEqual(
      { random: result.random, hash: result.hash, env: result.env, promises: result.promises, request: result.request, agent: result.agent },
      { random: 8, hash: 64, env: 'string', promises: 'function', request: 'function', agent: true },
    );
  });

  it('fails the build for undici classes of node:http, asked by name or through a namespace import', async () => {
    await assert.rejects(bundle(`import { WebSocket } from 'node:http'; console.log(typeof WebSocket);`), /No matching export .* for import "WebSocket"/);
    await assert.rejects(bundle(`import * as http from 'node:http'; console.log(typeof http.WebSocket);`), /will always be undefined/);
  });
});
