import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deleteStageResources, externalAwsEndpoint, projectServiceName, uniqueStage } from './external-aws.js';
import { tempDir } from './temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export type RunningService = {
  baseUrl: string;
  token: string;
  /** All output so far (for diagnosing a failed test). */
  output: () => string;
  /** Calls the API with the printed token unless `token: null` or another is given. */
  request: (path: string, init?: RequestInit & { json?: unknown; token?: string | null }) => Promise<Response>;
  /** Runs the token CLI (`npm run tokens -- …`) against this service's stack. */
  tokens: (...args: string[]) => Promise<{ stdout: string; stderr: string }>;
  stop: () => Promise<void>;
};

/**
 * Starts the whole local service exactly as `npm start` does (emulators,
 * provisioning, HTTP API, real Chromium) on a free port, and waits until it
 * prints its base URL and token. `args` are npm start's options (`--idle-seconds 3600`).
 *
 * With TEST_AWS_ENDPOINT set (CI's LocalStack step) and no --endpoint among
 * `args`, it is `npm run start:localstack` against that endpoint instead, on a
 * stage of its own whose tables, bucket and queues `stop()` deletes.
 */
export async function startService(env: Record<string, string> = {}, args: string[] = []): Promise<RunningService> {
  const external = args.includes('--endpoint') ? undefined : externalAwsEndpoint();
  const stage = external && !args.includes('--stage') ? uniqueStage() : undefined;
  if (external) args = [...args, '--endpoint', external, ...(stage ? ['--stage', stage] : [])];
  // Each service gets its own stack file so tests never touch a developer's `npm start`.
  const stackFile = join(tempDir('docrender-e2e-'), 'dev-stack.json');
  const fullEnv = { ...process.env, PORT: '0', ALLOW_PRIVATE_HOSTS: '127.0.0.1,localhost', DEV_STACK_FILE: stackFile, ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', ...args], {
    cwd: root,
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // A hang guard, not a measure: ready in about 10 s, but over a minute on a machine loaded by other work.
  const { baseUrl, token } = await waitForReady(child, () => out, 240_000);
  const request: RunningService['request'] = (path, init = {}) => {
    const { json, token: override, ...rest } = init;
    const headers = new Headers(rest.headers);
    const bearer = override === undefined ? token : override;
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    const body = json !== undefined ? JSON.stringify(json) : rest.body;
    const send = () => fetch(baseUrl + path, { method: json !== undefined ? 'POST' : 'GET', ...rest, headers, body, redirect: 'manual' });
    // A kept-alive connection the service closed while this test's event loop was blocked (a synchronous tool:
    // pdftoppm, qpdf, Python) is taken again before undici's idle timer has run, and fails at once ("fetch failed",
    // the other side closed). Sent again on a new connection, once; a body that is a stream cannot be.
    return send().catch((error: unknown) => {
      const reason = `${path}: ${String(error)} (${causeOf(error)})`;
      if (!staleConnection(error) || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) throw new Error(`fetch ${reason}`, { cause: error });
      console.error(`# fetch ${reason}: sent again on a new connection`);
      return send();
    });
  };
  const tokens: RunningService['tokens'] = (...args) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/tokens.ts', ...args], { cwd: root, env: fullEnv });
  return {
    baseUrl,
    token,
    output: () => out,
    request,
    tokens,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await once(child, 'exit');
        clearTimeout(timer);
      }
      if (external && stage) await deleteStageResources(external, optionValue(args, '--region') ?? 'us-east-1', projectServiceName(), stage);
    },
  };
}

const run = promisify(execFile);

/** The value after `option` among npm start's arguments. */
function optionValue(args: string[], option: string): string | undefined {
  const at = args.indexOf(option);
  return at >= 0 ? args[at + 1] : undefined;
}

async function waitForReady(child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = output();
    const url = /DocRender API listening on (http:\/\/\S+)/.exec(text)?.[1];
    const token = /^Token: (\S+)$/m.exec(text)?.[1];
    if (url && token) return { baseUrl: url.replace(/\/$/, ''), token };
    if (child.exitCode !== null) {
      // Its own reason first: a CI log keeps the head and tail of a long message, and start-up output is long.
      const reason = text.split('\n').find((line) => line.startsWith('npm start failed:')) ?? '(no "npm start failed" line)';
      throw new Error(`service exited with ${child.exitCode}: ${reason}\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not become ready in ${timeoutMs} ms:\n${output()}`);
}

/** Base64 of a UTF-8 string, as the API expects for html fields. */
export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** What undici says went wrong under "fetch failed": the cause's code and message. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause ? `${cause.code ?? 'no code'}: ${cause.message ?? ''}` : 'no cause';
}

/** A request that failed because its kept-alive connection had been closed by the other side before it was answered. */
function staleConnection(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
}
