/**
 * `npm run deploy:localstack [-- --param allowPrivateHosts=host.docker.internal]`:
 * deploys the whole stack (functions, layer, HTTP API, tables, bucket,
 * queues) into the LocalStack of `localstack/docker-compose.yml`, as
 * `serverless deploy --stage local`, then prints the API's base URL and a
 * fresh token for it. LOCALSTACK_ENDPOINT overrides http://localhost:4566.
 *
 * Not the serverless-localstack plugin: its 1.x calls provider.getCredentials()
 * and provider.sdk, which osls 4 removed, so it fails as soon as it is active.
 * osls 4 talks to AWS through the v3 SDK, which honours AWS_ENDPOINT_URL:
 * pointing that at LocalStack (with its test credentials) is all it takes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { buildChromiumLayer } from '../scripts/build-layer.js';
import { pinnedAwsEnvironment, SERVERLESS_CLI } from '../scripts/package.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAGE = 'local';
const REGION = 'us-east-1';

async function run(command: string, args: string[], env: NodeJS.ProcessEnv, quiet = false): Promise<{ code: number; output: string }> {
  const child = spawn(process.execPath, [command, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const forward = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    output += chunk.toString();
    if (!quiet) stream.write(chunk);
  };
  child.stdout.on('data', forward(process.stdout));
  child.stderr.on('data', forward(process.stderr));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code: code ?? 1, output };
}

async function main(): Promise<number> {
  const endpoint = (process.env.LOCALSTACK_ENDPOINT ?? 'http://localhost:4566').replace(/\/+$/, '');
  const { hostname, port } = new URL(endpoint);
  // S3 is addressed per bucket (<bucket>.s3.…); LocalStack's own domain resolves every such name to 127.0.0.1.
  const s3Endpoint = hostname === 'localhost' || hostname === '127.0.0.1' ? `http://s3.localhost.localstack.cloud:${port || '4566'}` : endpoint;
  const env = pinnedAwsEnvironment(endpoint, { id: 'test', secret: 'test' }, { AWS_ENDPOINT_URL_S3: s3Endpoint, AWS_REGION: REGION });

  const layer = await buildChromiumLayer();
  process.stdout.write(`Chromium layer built (${(layer.bytes / 1024 / 1024).toFixed(0)} MB); deploying stage ${STAGE} to ${endpoint}\n`);
  const deploy = await run(SERVERLESS_CLI, ['deploy', '--stage', STAGE, '--region', REGION, ...process.argv.slice(2)], env);
  if (deploy.code !== 0) {
    process.stderr.write(
      '\nDeploy failed. LocalStack must be running (docker compose -f localstack/docker-compose.yml up -d) with a plan that\n' +
        'includes API Gateway V2 (HTTP APIs) and Lambda layers: set LOCALSTACK_AUTH_TOKEN before starting it (localstack/README.md).\n',
    );
    return deploy.code;
  }

  const info = await run(SERVERLESS_CLI, ['info', '--verbose', '--stage', STAGE, '--region', REGION], env, true);
  const apiId = /HttpApiId:\s*(\S+)/.exec(info.output)?.[1];
  if (!apiId) {
    process.stderr.write(`Deployed, but the HTTP API id is not among the stack outputs:\n${info.output}\n`);
    return 1;
  }
  const baseUrl = `http://${apiId}.execute-api.localhost.localstack.cloud:${port || '4566'}`;
  const token = await run('--import', ['tsx', 'scripts/tokens.ts', 'create', '--stage', STAGE, '--region', REGION], env, true);
  process.stdout.write(`\nDocRender on LocalStack: ${baseUrl}\n`);
  if (token.code === 0) {
    const value = token.output.trim().split('\n').pop();
    process.stdout.write(`Token: ${value}\n\nCheck it:\n  npm run smoke -- ${baseUrl} ${value}\n`);
  } else {
    process.stderr.write(`Could not create a token:\n${token.output}\n`);
  }
  return 0;
}

process.exitCode = await main();
