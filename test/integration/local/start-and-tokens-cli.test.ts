import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoTokenStore } from '../../../lib/aws/dynamo-token-store.js';
import type { DevStack } from '../../../scripts/local-runtime/dev-stack.js';
import type { TokenStore } from '../../../lib/tokens/token-store.js';
import { DEFAULT_RATE_PER_SECOND, hashToken } from '../../../lib/tokens/tokens.js';
import { FIXTURE_SERVERLESS_FILE } from '../../helpers/emulators.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The environment of a fresh shell: no endpoint pointing anywhere, the stack file of this test. */
function shellEnv(stackFile: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEV_STACK_FILE: stackFile, ...extra };
  for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
  return env;
}

type Started = { child: ChildProcess; baseUrl: string; token: string; lines: string[]; output: () => string };

/** Runs `npm start`'s script with the fixture service and waits for its banner. */
async function startStack(stackFile: string, extra: Record<string, string> = {}): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/start.ts', '--config', FIXTURE_SERVERLESS_FILE],
    { cwd: root, env: shellEnv(stackFile, { PORT: '0', ...extra }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/^Token: .+$/m.test(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`npm start did not print its banner:\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lines = stdout.split('\n');
  return {
    child,
    lines,
    baseUrl: /^DocRender API listening on (\S+)$/.exec(lines[0] ?? '')?.[1] ?? '',
    token: /^Token: (\S+)$/.exec(lines[1] ?? '')?.[1] ?? '',
    output: () => stdout + stderr,
  };
}

async function stopStack(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs the token CLI as a user would: `npm run -s tokens -- …`, or its script directly (faster). */
async function tokensCli(args: string[], stackFile: string, via: 'npm' | 'script' = 'script'): Promise<CliResult> {
  const [command, commandArgs] =
    via === 'npm'
      ? ['npm', ['run', '-s', 'tokens', '--', ...args]]
      : [process.execPath, ['--import', 'tsx', 'scripts/tokens.ts', ...args]];
  const child = spawn(command, commandArgs, { cwd: root, env: shellEnv(stackFile), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Reads token records straight from the running stack's DynamoDB. */
function storeOf(stack: DevStack): TokenStore {
  const client = new DynamoDBClient({
    region: stack.region,
    endpoint: stack.endpoints.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return createDynamoTokenStore(DynamoDBDocumentClient.from(client), stack.tables.tokens);
}

describe('npm start and the tokens CLI', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'docrender-stack-'));
  const stackFile = path.join(dir, 'dev-stack.json');
  let started: Started;
  let stack: DevStack;
  let store: TokenStore;

  before(async () => {
    started = await startStack(stackFile);
    stack = JSON.parse(readFileSync(stackFile, 'utf8')) as DevStack;
    store = storeOf(stack);
  });
  after(async () => {
    await stopStack(started.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the base URL and a working token first, and serves the functions there', async () => {
    // Act
    const response = await fetch(`${started.baseUrl}/items/1`);
    const record = await store.findByHash(hashToken(started.token));

    // Assess
    assert.match(started.lines[0] ?? '', /^DocRender API listening on http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(started.lines[1] ?? '', /^Token: dr_[A-Za-z0-9_-]{43}$/);
    assert.equal(response.status, 200);
    assert.equal(record?.active, true);
    assert.equal(record?.monthlyLimit, null);
  });

  it('records itself for other shells: pid, URL and endpoints', () => {
    // Assess
    assert.equal(stack.pid, started.child.pid);
    assert.equal(stack.url, started.baseUrl);
    assert.match(stack.endpoints.dynamodb, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('create prints the new token alone on stdout and stores it active and unlimited', async () => {
    // Act
    const result = await tokensCli(['create'], stackFile, 'npm');

    // Assess
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^dr_[A-Za-z0-9_-]{43}\n$/);
    const record = await store.findByHash(hashToken(result.stdout.trim()));
    assert.equal(record?.active, true);
    assert.equal(record?.monthlyLimit, null);
    assert.equal(record?.ratePerSecond, DEFAULT_RATE_PER_SECOND);
  });

  it('create --json prints token, accountId and webhookSecret, with --limit and --rate stored', async () => {
    // Act
    const result = await tokensCli(['create', '--json', '--limit', '5', '--rate', '2'], stackFile, 'npm');

    // Assess
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(created).sort(), ['accountId', 'token', 'webhookSecret']);
    assert.match(created.webhookSecret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    const record = await store.findByHash(hashToken(created.token ?? ''));
    assert.equal(record?.monthlyLimit, 5);
    assert.equal(record?.ratePerSecond, 2);
    assert.equal(record?.accountId, created.accountId);
    assert.equal(record?.webhookSecret, created.webhookSecret);
  });

  it('create --inactive stores a token whose subscription is off', async () => {
    // Act
    const result = await tokensCli(['create', '--inactive'], stackFile);

    // Assess
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await store.findByHash(hashToken(result.stdout.trim())))?.active, false);
  });

  it('deactivate and activate flip the stored subscription', async () => {
    // Prepare
    const token = (await tokensCli(['create'], stackFile)).stdout.trim();

    // Act
    const deactivated = await tokensCli(['deactivate', token], stackFile);
    const afterDeactivate = await store.findByHash(hashToken(token));
    const activated = await tokensCli(['activate', token], stackFile);
    const afterActivate = await store.findByHash(hashToken(token));

    // Assess
    assert.equal(deactivated.code, 0, deactivated.stderr);
    assert.equal(afterDeactivate?.active, false);
    assert.equal(activated.code, 0, activated.stderr);
    assert.equal(afterActivate?.active, true);
  });

  it('fails with a message on stderr for a token that was never issued', async () => {
    // Act
    const result = await tokensCli(['deactivate', 'dr_thisTokenWasNeverIssuedByAnyone'], stackFile);

    // Assess
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Unknown token/);
  });

  it('rejects a malformed command line with exit code 2', async () => {
    // Act
    const result = await tokensCli(['create', '--limit', 'lots'], stackFile);

    // Assess
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /--limit must be a whole number/);
  });

  it('stops cleanly on SIGTERM and removes its record', async () => {
    // Prepare
    const other = path.join(dir, 'other-stack.json');
    const second = await startStack(other);

    // Act
    const code = await stopStack(second.child);

    // Assess
    assert.equal(code, 0, second.output());
    assert.equal(existsSync(other), false);
  });

  it('stops cleanly on a SIGTERM sent the moment its banner starts, while it still prints the rest', async () => {
    // Prepare: a script that stops npm start as soon as it reads the first line (CI6 caught the old code
    // killed outright there, its record left behind: the signal handlers came after the banner)
    const other = path.join(dir, 'early-stack.json');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/start.ts', '--config', FIXTURE_SERVERLESS_FILE],
      { cwd: root, env: shellEnv(other, { PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));

    // Act: one SIGTERM (a second one means "stop now" to npm start: exit code 1)
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!sent && output.includes('DocRender API listening')) sent = child.kill('SIGTERM');
    });
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];

    // Assess: it ran its own shutdown (exit code 0), not the default action of the signal
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, output);
    assert.equal(existsSync(other), false);
  });

  it('registers DEV_TOKEN exactly, active and unlimited', async () => {
    // Prepare
    const other = path.join(dir, 'dev-token-stack.json');
    const devToken = 'my-local-dev-token-0123456789';

    // Act
    const second = await startStack(other, { DEV_TOKEN: devToken });
    const record = await storeOf(JSON.parse(readFileSync(other, 'utf8')) as DevStack).findByHash(hashToken(devToken));
    await stopStack(second.child);

    // Assess
    assert.equal(second.token, devToken);
    assert.equal(record?.active, true);
    assert.equal(record?.monthlyLimit, null);
  });
});
