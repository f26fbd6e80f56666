import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Isolation, RenderOutcome, ThroughputOutcome, WorkerReply, WorkerRequest } from './bare-worker.js';
import { freezeTree, signalAll } from '../scripts/local-runtime/process-tree.js';
import type { ProcessIdentity } from '../lib/process/process-identity.js';
import type { BareJob } from './scenarios.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A worker request before the client numbers it. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** The bare Puppeteer process, driven over IPC. */
export type BareClient = {
  pid: number;
  launch(): Promise<{ launchMs: number; version: string }>;
  /**
   * One render. `lambdaLike`: as a Lambda handler, the fastest way: answered as soon as the file is in
   * hand (a fresh context is left closing), and the whole tree (Node and Chromium) frozen with SIGSTOP
   * from the answer until the next call, as the service's instances are. Otherwise the context is
   * closed before the answer and the tree keeps running.
   */
  render(job: BareJob, isolation: Isolation, lambdaLike: boolean): Promise<RenderOutcome>;
  throughput(job: BareJob, isolation: Isolation, concurrency: number, count: number): Promise<ThroughputOutcome>;
  stop(): Promise<void>;
};

/** Starts `bench/bare-worker.ts` in its own Node process. */
export function startBare(): BareClient {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-worker.ts'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  child.on('message', (reply: WorkerReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(new Error(`bare: ${reply.error}`));
  });
  // A frozen worker cannot hear the disconnect that ends it.
  process.once('exit', () => thaw());
  child.on('exit', (code) => {
    for (const waiting of pending.values()) waiting.reject(new Error(`bare worker exited with ${code}`));
    pending.clear();
  });
  // Frozen after a Lambda-like render; every call thaws it first.
  let frozen: ProcessIdentity[] = [];
  const thaw = () => {
    signalAll(frozen, 'SIGCONT');
    frozen = [];
  };
  // Requests are built without their id, which is added here; the cast names the reply type.
  const call = <T>(request: Unnumbered<WorkerRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      thaw();
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...request, id });
    });

  return {
    pid: child.pid ?? -1,
    launch: () => call({ op: 'launch' }),
    async render(job, isolation, lambdaLike) {
      const outcome = await call<RenderOutcome>({ op: 'render', job, isolation, answerFirst: lambdaLike });
      if (lambdaLike && child.pid !== undefined) {
        frozen = freezeTree(child.pid);
      }
      return outcome;
    },
    throughput: (job, isolation, concurrency, count) => call({ op: 'throughput', job, isolation, concurrency, count }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      await call({ op: 'close' }).catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
