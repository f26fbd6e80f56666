/**
 * `npm run package -- [--stage prod] [--region eu-west-1] [--package DIR] [other serverless options]`:
 * builds the Chromium layer, then runs `serverless package` without AWS: no
 * credentials, no network. The CloudFormation template and the zips land in
 * `.serverless/` (or DIR), as with `serverless package`.
 *
 * Why a wrapper: osls asks CloudFormation during `package` whether the layer
 * is already deployed with the same hash (`compareWithLastLayer`, there is no
 * switch to skip it; serverless/serverless#8187). Here the AWS SDK is pointed
 * at a stand-in endpoint on 127.0.0.1 that answers that one question with
 * "stack does not exist", which makes osls package the layer as for a first
 * deploy. Any other AWS call fails loudly instead of reaching AWS, and the
 * credentials are dummies, so nothing can be signed for a real account.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildChromiumLayer } from './build-layer.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const SERVERLESS_BIN = fileURLToPath(new URL('../node_modules/osls/bin/serverless.js', import.meta.url));

export type PackageOptions = {
  /** Arguments after `serverless package`, e.g. `['--stage', 'prod']`. */
  args?: string[];
  /** Directory holding serverless.yml; the project by default. */
  serviceDir?: string;
  /** Build layers/chromium in serviceDir first (default true). */
  buildLayer?: boolean;
  /** Receives serverless' output as it comes; by default it goes to this process' stdout and stderr. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
};

export type PackageResult = {
  exitCode: number;
  /** Everything serverless printed, both streams. */
  output: string;
  /** The AWS API actions serverless asked for, all answered by the stand-in. */
  awsCalls: string[];
};

/** The one answer osls needs offline: the stack does not exist yet (CloudFormation's query-protocol error). */
function stackMissing(stackName: string): string {
  return (
    '<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type>' +
    `<Code>ValidationError</Code><Message>Stack with id ${stackName} does not exist</Message></Error>` +
    '<RequestId>offline-package</RequestId></ErrorResponse>'
  );
}

function refused(action: string): string {
  return (
    '<ErrorResponse><Error><Type>Sender</Type><Code>OfflinePackaging</Code>' +
    `<Message>offline packaging: ${action} is not available without AWS (scripts/package.ts)</Message></Error>` +
    '<RequestId>offline-package</RequestId></ErrorResponse>'
  );
}

/** Stand-in for every AWS endpoint: DescribeStacks says "does not exist", anything else is refused. */
async function startStandIn(calls: string[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const action = form.get('Action') ?? String(req.headers['x-amz-target'] ?? `${req.method} ${req.url}`);
      calls.push(action);
      res.writeHead(400, { 'content-type': 'text/xml' });
      res.end(action === 'DescribeStacks' ? stackMissing(form.get('StackName') ?? '') : refused(action));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/**
 * This process' environment with the AWS SDK pinned to `endpoint` and the
 * given static credentials: no profile, SSO, container or instance
 * credentials can stand in, so nothing is signed for a real account.
 */
export function pinnedAwsEnvironment(endpoint: string, credentials: { id: string; secret: string }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^AWS_(PROFILE|DEFAULT_PROFILE|SESSION_TOKEN|SECURITY_TOKEN|CONTAINER_|WEB_IDENTITY|ROLE_|SHARED_CREDENTIALS|CONFIG_FILE|ENDPOINT_URL|IGNORE_CONFIGURED)/.test(name)) {
      delete env[name];
    }
  }
  return {
    ...env,
    AWS_ACCESS_KEY_ID: credentials.id,
    AWS_SECRET_ACCESS_KEY: credentials.secret,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL: endpoint,
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_CONFIG_FILE: '/dev/null',
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    ...extra,
  };
}

/** Where osls' own entry point is, to run it with this Node. */
export const SERVERLESS_CLI = SERVERLESS_BIN;

/** Builds the layer and runs `serverless package` with no AWS account and no network. */
export async function packageOffline(opts: PackageOptions = {}): Promise<PackageResult> {
  const serviceDir = opts.serviceDir ?? projectRoot;
  if (opts.buildLayer !== false) await buildChromiumLayer(`${serviceDir}/layers/chromium`);
  const awsCalls: string[] = [];
  const standIn = await startStandIn(awsCalls);
  // serverless-esbuild zips each function through a scratch folder in the temporary directory that it
  // never removes (one per function and package, `<function>-<pid>-<time>-<hex>`): the framework gets a
  // temporary directory of its own, removed when it is done.
  const scratch = mkdtempSync(join(tmpdir(), 'docrender-packaging-'));
  try {
    const { port } = standIn.address() as AddressInfo;
    const child = spawn(process.execPath, [SERVERLESS_BIN, 'package', ...(opts.args ?? [])], {
      cwd: serviceDir,
      env: pinnedAwsEnvironment(`http://127.0.0.1:${port}`, { id: 'AKIAOFFLINEPACKAGING', secret: 'offline-packaging-not-a-secret' }, { TMPDIR: scratch }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const forward = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (opts.onOutput) opts.onOutput(text, stream);
      else process[stream].write(text);
    };
    child.stdout.on('data', forward('stdout'));
    child.stderr.on('data', forward('stderr'));
    const [code] = (await once(child, 'close')) as [number | null];
    return { exitCode: code ?? 1, output, awsCalls };
  } finally {
    standIn.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await packageOffline({ args: process.argv.slice(2) });
  const unexpected = result.awsCalls.filter((action) => action !== 'DescribeStacks');
  if (unexpected.length > 0) process.stderr.write(`AWS calls refused while packaging: ${unexpected.join(', ')}\n`);
  process.exitCode = result.exitCode;
}
