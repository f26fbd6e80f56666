import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { PROJECT_SERVERLESS_FILE } from '../../scripts/local-runtime/service-definition.js';

/**
 * Local = Lambda for the Node version: the functions run on Lambda's
 * `provider.runtime`, and locally (`npm start`, the tests, the bench) on the
 * Node that npm puts first on PATH for its scripts: the `node` package of
 * devDependencies (node_modules/.bin/node), whose process.execPath the local
 * runtime starts every instance with. Moving to another runtime
 * (docs/deploy-and-operations.md: nodejs24.x) means moving all of these together.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

type Serverless = {
  provider: { runtime: string };
  functions: Record<string, { runtime?: string }>;
  layers: Record<string, { compatibleRuntimes?: string[] }>;
  custom: { esbuild: { target: string } };
};

// The CloudFormation tags (!GetAtt, !Sub…) are not this test's business: read them as plain values.
const serverless = parse(readFileSync(PROJECT_SERVERLESS_FILE, 'utf8'), { logLevel: 'silent' }) as Serverless;
const runtime = serverless.provider.runtime;
const lambdaMajor = Number(/^nodejs(\d+)\.x$/.exec(runtime)?.[1]);
const major = (version: string) => Number(/(\d+)/.exec(version)?.[1]);

describe('the Node of Lambda and the Node of the local runtime', () => {
  it('is one Lambda runtime for every function, the Chromium layer and the bundle', () => {
    assert.ok(lambdaMajor > 0, `provider.runtime ${runtime} is a Node.js runtime`);
    for (const [name, fn] of Object.entries(serverless.functions)) assert.equal(fn.runtime ?? runtime, runtime, `function ${name}`);
    for (const [name, layer] of Object.entries(serverless.layers)) assert.ok(layer.compatibleRuntimes?.includes(runtime), `layer ${name} is for ${runtime}`);
    assert.equal(serverless.custom.esbuild.target, `node${lambdaMajor}`, 'esbuild compiles for the Node the functions run on');
  });

  it('is the same major version locally: the node package npm runs the scripts with', async () => {
    const manifest = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { devDependencies: Record<string, string> };
    assert.equal(major(manifest.devDependencies.node ?? ''), lambdaMajor, `devDependencies.node ${manifest.devDependencies.node} against ${runtime}`);
    // What `npm start` runs on: npm's own resolution, not this process' Node (CI may start npm with another).
    const { stdout } = await run('npm', ['exec', '--no', '--', 'node', '-p', 'process.execPath + " " + process.versions.node'], { cwd: root });
    const [execPath = '', version = ''] = stdout.trim().split(' ');
    assert.match(execPath, /node_modules[/\\]node[/\\]/, 'npm scripts run on the node package');
    assert.equal(major(version), lambdaMajor, `npm scripts run on Node ${version}, Lambda on ${runtime}`);
  });

  it("is one @sparticuz/chromium knows as Amazon Linux 2023 (else Chromium misses its libraries there)", async () => {
    // On import it points LD_LIBRARY_PATH at the al2023 libraries it unpacks, for the runtimes it knows.
    const script = "await import('@sparticuz/chromium'); console.log(process.env.LD_LIBRARY_PATH ?? '')";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { PATH: process.env.PATH, AWS_EXECUTION_ENV: `AWS_Lambda_${runtime}`, AWS_LAMBDA_FUNCTION_NAME: 'probe' },
    });
    assert.match(stdout, /al2023/);
  });
});
