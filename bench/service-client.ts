import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../test/helpers/service.js';
import { processTree } from '../scripts/local-runtime/process-tree.js';
import { childrenMatching } from './process-memory.js';
import { emptyServiceLog, readServiceLines, serverSideOf, type ServerSide } from './service-log.js';

export type { ServerSide };

/** One request as the client saw it: the time to the whole file, and API Gateway's id of it. */
export type ServiceCall = { ms: number; bytes: number; status: number; requestId: string };

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
  /** The Node process of each function instance: one execution environment each. */
  instanceRoots(): number[];
  /**
   * The server-side figures of these calls (by `ServiceCall.requestId`), in
   * their order, once their invocations have ended (the REPORT line comes
   * after the post-response phase), waiting up to `waitMs` for it. Calls whose
   * lines never came are left out; a call without a REPORT line has NaN there.
   */
  serverSide(requestIds: string[], waitMs?: number): Promise<ServerSide[]>;
  /** Forgets the lines of calls nobody will ask about (warm-ups, throughput runs). */
  forgetServerSide(): void;
  /** Stops the service and removes what the run left in the temporary directory. */
  stop(): Promise<void>;
};

type StackFile = { pid: number; endpoints: { dynamodb: string; s3: string; sqs: string }; region: string };

/**
 * Starts the whole local service (`npm start`'s path: emulators, HTTP API,
 * real Chromium) with a token of its own that no quota or rate limit stops;
 * `env` adds settings (`ISOLATION_PHASE: 'inline'` for the comparison stack).
 */
export async function startBenchService(env: Record<string, string> = {}): Promise<BenchService> {
  const token = randomBytes(24).toString('base64url');
  const stackDir = mkdtempSync(join(tmpdir(), 'docrender-bench-'));
  const stackFile = join(stackDir, 'dev-stack.json');
  const service = await startService({ ...env, DEV_TOKEN: token, DEV_STACK_FILE: stackFile, ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const stack = JSON.parse(readFileSync(stackFile, 'utf8')) as StackFile;
  // The stack's own record names its process: two stacks may run side by side.
  const { pid } = stack;
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

  const instanceRoots = () => childrenMatching(pid, 'lambda-instance');
  const instancePids = () => instanceRoots().flatMap((instance) => processTree(instance));
  let consumed = service.output().length;
  const log = emptyServiceLog();
  const read = () => {
    const text = service.output().slice(consumed);
    // Only whole lines: the rest is read next time.
    const end = text.lastIndexOf('\n') + 1;
    consumed += end;
    readServiceLines(text.slice(0, end), log);
  };
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  return {
    service,
    pid,
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
      return { ms, bytes: data.byteLength, status: res.status, requestId: res.headers.get('apigw-requestid') ?? '' };
    },
    instancePids,
    instanceRoots,
    async stop() {
      await service.stop();
      rmSync(stackDir, { recursive: true, force: true });
    },
    async serverSide(requestIds, waitMs = 5_000) {
      const until = performance.now() + waitMs;
      for (;;) {
        read();
        const done = requestIds.every((id) => {
          const handler = log.handlers.get(id);
          // A handler line without Lambda's request id can never be paired with its REPORT line: no use waiting.
          return handler !== undefined && (handler.lambdaRequestId === '' || log.reports.has(handler.lambdaRequestId));
        });
        if (done || performance.now() >= until) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const found: ServerSide[] = [];
      for (const id of requestIds) {
        const handler = log.handlers.get(id);
        if (!handler) continue;
        const report = log.reports.get(handler.lambdaRequestId);
        log.handlers.delete(id);
        log.reports.delete(handler.lambdaRequestId);
        found.push(serverSideOf(handler, report));
      }
      return found;
    },
    forgetServerSide() {
      read();
      log.handlers.clear();
      log.reports.clear();
    },
  };
}
