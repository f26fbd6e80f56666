import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../test/helpers/service.js';
import { processTree } from '../lib/local/process-tree.js';
import { childrenMatching } from './process-memory.js';

/** Where the time of one service request went, in milliseconds, from the service's own log lines. */
export type ServerSide = {
  /** The local API Gateway emulation: request read to response written (whole milliseconds). */
  api: number;
  /** The Lambda handler: the middy stack from its first middleware to its last. */
  handler: number;
  /** The renderer, and its phases (context, setup, navigate, wait, capture). */
  render: number;
  phases: Record<string, number>;
};

export type ServiceCall = { ms: number; bytes: number; status: number; server?: ServerSide };

/** The local service as the benchmark drives it. */
export type BenchService = {
  service: RunningService;
  /** Pid of the service process (the root of its process tree, Chromium included). */
  pid: number;
  token: string;
  /** Emulator endpoints and settings a fresh handler process needs to reach the same stack. */
  handlerEnv: Record<string, string>;
  call(endpoint: string, body: unknown): Promise<ServiceCall>;
  /** Every process of the function instances (their Node process and Chromium): what Lambda would bill and freeze. */
  instancePids(): number[];
  /**
   * Lets the frozen instances run again until their next invocation, as a
   * server that is not frozen between requests would (the secondary row).
   */
  thaw(): void;
  /** The server-side figures of the calls made since the last `takeServerSide()`, in order. */
  takeServerSide(): ServerSide[];
  /** Stops the service and removes what the run left in the temporary directory. */
  stop(): Promise<void>;
};

type StackFile = { endpoints: { dynamodb: string; s3: string; sqs: string }; region: string };

/**
 * Starts the whole local service (`npm start`'s path: emulators, HTTP API,
 * real Chromium) with a token of its own that no quota or rate limit stops.
 */
export async function startBenchService(): Promise<BenchService> {
  const token = randomBytes(24).toString('base64url');
  const stackDir = mkdtempSync(join(tmpdir(), 'docrender-bench-'));
  const stackFile = join(stackDir, 'dev-stack.json');
  const service = await startService({ DEV_TOKEN: token, DEV_STACK_FILE: stackFile, ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const [pid] = childrenMatching(process.pid, 'scripts/start.ts');
  const stack = JSON.parse(readFileSync(stackFile, 'utf8')) as StackFile;
  const handlerEnv: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: stack.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: stack.endpoints.sqs,
    AWS_REGION: stack.region,
    AWS_DEFAULT_REGION: stack.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    BENCH_TOKEN: token,
  };

  const instancePids = () => (pid === undefined ? [] : childrenMatching(pid, 'lambda-instance')).flatMap((instance) => processTree(instance));
  let consumed = service.output().length;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  return {
    service,
    pid: pid ?? -1,
    token,
    handlerEnv,
    async call(endpoint, body) {
      const payload = JSON.stringify(body);
      const started = performance.now();
      const res = await fetch(service.baseUrl + endpoint, { method: 'POST', headers, body: payload, redirect: 'manual' });
      const data = await res.arrayBuffer();
      const ms = performance.now() - started;
      if (res.status !== 200) {
        throw new Error(`${endpoint} answered ${res.status}: ${Buffer.from(data).toString('utf8').slice(0, 500)}`);
      }
      return { ms, bytes: data.byteLength, status: res.status };
    },
    instancePids,
    thaw() {
      for (const target of instancePids()) {
        try {
          process.kill(target, 'SIGCONT');
        } catch {
          // gone meanwhile
        }
      }
    },
    async stop() {
      await service.stop();
      rmSync(stackDir, { recursive: true, force: true });
    },
    takeServerSide() {
      const text = service.output().slice(consumed);
      // Only whole lines: the rest is read next time.
      const end = text.lastIndexOf('\n') + 1;
      consumed += end;
      return parseServerSide(text.slice(0, end));
    },
  };
}

/** Pairs the emulation's access lines (`POST /v1/pdf 200 123 ms`) with the handler's request log lines, in order. */
export function parseServerSide(text: string): ServerSide[] {
  const api: number[] = [];
  const handlers: Array<{ durationMs: number; timings: Record<string, number> }> = [];
  for (const line of text.split('\n')) {
    const access = /^POST \/v1\/\S+ 200 (\d+) ms$/.exec(line.trim());
    if (access) {
      api.push(Number(access[1]));
      continue;
    }
    if (!line.startsWith('{') || !line.includes('"request"')) continue;
    try {
      const entry = JSON.parse(line) as { message?: string; status?: number; durationMs?: number; timings?: Record<string, number> };
      if (entry.message === 'request' && entry.status === 200 && typeof entry.durationMs === 'number') {
        handlers.push({ durationMs: entry.durationMs, timings: entry.timings ?? {} });
      }
    } catch {
      // not a log line of ours
    }
  }
  const count = Math.min(api.length, handlers.length);
  return Array.from({ length: count }, (_, i) => {
    const handler = handlers[i] as { durationMs: number; timings: Record<string, number> };
    const { total, ...phases } = handler.timings;
    return { api: api[i] as number, handler: handler.durationMs, render: total ?? NaN, phases };
  });
}
