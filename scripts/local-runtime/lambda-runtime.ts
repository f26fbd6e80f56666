import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalSetupError } from './errors.js';
import { createExtensionsApi, type ExtensionsApi } from './extensions-api.js';
import type { InstanceMessage, InstanceRequest, SerializedError } from './lambda-instance.js';
import { startInstanceReaper } from './instance-reaper.js';
import { LAUNCH_RETRY_LOG } from '../../lib/render/browser/launch-retries.js';
import { removeScratchOf } from '../../lib/render/browser/scratch-dirs.js';
import type { ProcessIdentity } from '../../lib/process/process-identity.js';
import { freezeTree, rememberTree, signalAll, waitGone } from './process-tree.js';
import type { LocalFunction } from './service-definition.js';
import { MEMORY_STATS_DIR_VARIABLE, watchMajorGc, writeMemoryStats } from './memory-stats.js';
import { formatReportLine } from './report-line.js';

/** What one invocation ended with, as the Lambda service would report it. */
export type Invocation =
  | { ok: true; result: unknown; durationMs: number; ended?: Promise<InvocationEnd> }
  | { ok: false; error: Error; timedOut: boolean; durationMs: number; ended?: Promise<InvocationEnd> };

/**
 * How an invocation's environment came free after its answer (`ended`,
 * given once the handler has answered): every
 * extension asked for the next event (`frozen`), the invocation's deadline
 * cut one off (`cut-off`: the instance was discarded), or the instance
 * died meanwhile (`exited`). `postResponseMs` is Lambda's
 * `PostRuntimeExtensionsDuration`: answer to freeze, billed.
 */
export type InvocationEnd = { outcome: 'frozen' | 'cut-off' | 'exited'; postResponseMs: number };

export type LambdaRuntime = {
  /** Runs the function on a free instance (a new one, up to the cap, when all are busy), bounded by its timeout. */
  invoke(fn: LocalFunction, event: unknown): Promise<Invocation>;
  /** Live instances of a function (busy or frozen). */
  instanceCount(fnKey: string): number;
  /** Every process of every instance (workers and their children), as they are now: to end them, or to check that nothing is left. */
  processes(): ProcessIdentity[];
  /** Stops every instance and its children (Chromium included). */
  stop(): Promise<void>;
};

export type LambdaRuntimeOptions = {
  /** Directory handler paths are relative to (serverless.yml's). */
  serviceDir: string;
  region: string;
  accountId: string;
  /** The complete environment of an instance of `fn` (its own variables, resolved, and the AWS endpoints). */
  environmentOf(fn: LocalFunction): Record<string, string>;
  /** Instances per function at most (reservedConcurrency lowers it); default 4. */
  maxInstances?: number;
  /** An instance idle this long is stopped; default 5 minutes. */
  idleMs?: number;
  /** Where runtime errors (timeouts, crashes) are reported; defaults to stderr. */
  logError?: (line: string) => void;
  /**
   * Where each invocation's `REPORT` line goes once it has ended (its
   * post-response phase included), as Lambda writes one to the function's
   * log; none: not written.
   */
  logReport?: (line: string) => void;
};

type Instance = {
  fn: LocalFunction;
  child: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
  /** The processes stopped at the last freeze, thawed at the next invocation. */
  frozen: ProcessIdentity[];
  /** This instance's Extensions API (served here, at its AWS_LAMBDA_RUNTIME_API). */
  extensions: ExtensionsApi;
  idleTimer?: NodeJS.Timeout;
  /** Settles the invocation in flight when the process dies. */
  onExit?: (error: Error) => void;
  exited: Promise<void>;
  /** How long INIT took (spawn to every extension and the runtime waiting), until the first invocation reports it. */
  initMs?: number;
};

const INSTANCE_ENTRY = fileURLToPath(new URL('./lambda-instance.ts', import.meta.url));
/** Extensions tried for `functions/pdf` in `functions/pdf.handler`; instances run under tsx. */
const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];
/** Lambda's limit on the init phase (module import: Chromium's launch included). */
const INIT_LIMIT_MS = 30_000;
/** How long a stopping instance may take to exit (its exit hooks run) before it is killed. */
const STOP_GRACE_MS = 2_000;
/** How often the runtime's own heap figures are written when LOCAL_MEMORY_STATS_DIR asks for them. */
const MEMORY_STATS_MS = 1_000;

/**
 * A local Lambda service: each function instance is a child process that
 * handles one invocation at a time, is started on demand (its cold start),
 * frozen with SIGSTOP, its children included, as soon as the invocation has
 * ended, thawed with SIGCONT for the next invocation, and stopped after a
 * while idle or after a timeout (Lambda discards an environment that timed
 * out). Each instance has the Extensions API at its AWS_LAMBDA_RUNTIME_API:
 * the answer goes to the caller as soon as the handler returns it, and the
 * invocation ends (freeze; the instance is free again) only once every
 * registered extension has asked for the next event, within the function's
 * timeout counted from the invocation's start, as on Lambda. An extension
 * still busy at that deadline is cut off: the instance is discarded (its
 * Chromium with it) and the next invocation gets a new one, as Lambda resets
 * an environment whose invoke phase timed out.
 */
export function createLambdaRuntime(opts: LambdaRuntimeOptions): LambdaRuntime {
  const pools = new Map<string, Instance[]>();
  const waiting = new Map<string, ((instance: Instance) => void)[]>();
  const logError = opts.logError ?? ((line: string) => console.error(line));
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const reaper = startInstanceReaper();
  let stopped = false;
  // A measurement aid (the soak): this process's heap, which also holds the embedded emulators' data.
  const memoryStatsDir = process.env[MEMORY_STATS_DIR_VARIABLE];
  const memoryStatsTimer = memoryStatsDir ? setInterval(() => writeMemoryStats(memoryStatsDir, 'runtime'), MEMORY_STATS_MS) : undefined;
  memoryStatsTimer?.unref();
  if (memoryStatsDir) watchMajorGc();

  const poolOf = (fn: LocalFunction) => {
    let pool = pools.get(fn.key);
    if (!pool) pools.set(fn.key, (pool = []));
    return pool;
  };
  const capOf = (fn: LocalFunction) => Math.max(1, Math.min(opts.maxInstances ?? 4, fn.reservedConcurrency ?? Infinity));

  const startInstance = (fn: LocalFunction): Instance => {
    const { file, exportName } = handlerLocation(fn, opts.serviceDir);
    const child = spawn(process.execPath, ['--import', 'tsx', INSTANCE_ENTRY], {
      cwd: opts.serviceDir,
      env: {
        ...opts.environmentOf(fn),
        ...lambdaVariables(fn, opts.region),
        LOCAL_HANDLER_FILE: file,
        LOCAL_HANDLER_EXPORT: exportName,
        ...(memoryStatsDir ? { [MEMORY_STATS_DIR_VARIABLE]: memoryStatsDir } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Its own process group: Ctrl+C in the terminal reaches the runtime, which stops instances in order.
      detached: true,
    });
    const extensions = createExtensionsApi({ functionName: fn.name, functionVersion: '$LATEST', handler: fn.handler });
    const instance: Instance = { fn, child, busy: true, frozen: [], extensions, ready: Promise.resolve(), exited: Promise.resolve() };
    const spawned = performance.now();
    // A send to an instance that just died reports here; its invocation settles through 'exit'.
    child.on('error', (error) => logError(`[${fn.key}] ${error.message}`));
    instance.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        extensions.close();
        remove(instance);
        instance.onExit?.(new Error(`Runtime exited ${signal ? `on ${signal}` : `with code ${code}`}`));
        resolve();
      });
    });
    instance.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`init phase took more than ${INIT_LIMIT_MS} ms`)), INIT_LIMIT_MS);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        if (error) reject(error);
        else {
          instance.initMs = performance.now() - spawned;
          resolve();
        }
      };
      const onMessage = (message: InstanceMessage) => {
        if (message.type === 'started') {
          extensions.address.then(
            (runtimeApi) => child.connected && child.send({ type: 'init', runtimeApi } satisfies InstanceRequest),
            (error: Error) => settle(error),
          );
        } else if (message.type === 'ready') {
          // The runtime asked for its first event: INIT ends once every extension has asked too.
          extensions.closeRegistration();
          void extensions.allWaiting().then(() => settle());
        } else if (message.type === 'init-error') settle(toError(message.error));
      };
      child.on('message', onMessage);
      child.once('exit', (code) => settle(new Error(`Runtime exited during init with code ${code}`)));
      child.once('error', (error) => settle(error));
    });
    instance.ready.catch(() => undefined);
    poolOf(fn).push(instance);
    return instance;
  };

  const remove = (instance: Instance) => {
    clearTimeout(instance.idleTimer);
    const pool = pools.get(instance.fn.key) ?? [];
    const index = pool.indexOf(instance);
    if (index < 0) return;
    pool.splice(index, 1);
    // A waiter for this function may now start an instance of its own.
    const next = waiting.get(instance.fn.key)?.shift();
    if (next && !stopped) {
      try {
        next(startInstance(instance.fn));
      } catch (error) {
        logError(`[${instance.fn.key}] ${(error as Error).message}`);
      }
    }
  };

  /** An idle instance (thawed), a new one, or the next one to come free. */
  const acquire = (fn: LocalFunction): Promise<Instance> => {
    const idle = poolOf(fn).find((instance) => !instance.busy);
    if (idle) {
      idle.busy = true;
      clearTimeout(idle.idleTimer);
      return Promise.resolve(idle);
    }
    if (poolOf(fn).length < capOf(fn)) return Promise.resolve(startInstance(fn));
    return new Promise((resolve) => {
      const queue = waiting.get(fn.key) ?? [];
      queue.push(resolve);
      waiting.set(fn.key, queue);
    });
  };

  const release = (instance: Instance) => {
    const next = waiting.get(instance.fn.key)?.shift();
    if (next) {
      next(instance);
      return;
    }
    instance.busy = false;
    // Frozen: nothing the handler left behind (timers, sockets, Chromium) runs until the next invocation.
    instance.frozen = freezeTree(instance.child.pid as number);
    reaper.track(instance.frozen);
    instance.idleTimer = setTimeout(() => {
      // Out of the pool first: an invocation arriving meanwhile gets another instance, not this one.
      remove(instance);
      void stopInstance(instance);
    }, idleMs);
    instance.idleTimer.unref();
  };

  const stopInstance = async (instance: Instance): Promise<void> => {
    const tree = instance.child.exitCode === null ? rememberTree(instance.child.pid as number) : [];
    signalAll([...instance.frozen, ...tree], 'SIGCONT');
    instance.frozen = [];
    signalAll(tree.slice(0, 1), 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([instance.exited, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
    clearTimeout(timer);
    // Whatever it started and did not end (a browser, its helpers) goes with it.
    signalAll(tree, 'SIGKILL');
    reaper.forget(tree);
    // An instance killed before its exit hooks ran leaves its browser's profile behind: removed once nothing writes there.
    const pid = instance.child.pid;
    if (pid !== undefined) {
      await waitGone(tree, STOP_GRACE_MS);
      removeScratchOf(pid);
    }
  };

  const invoke = async (fn: LocalFunction, event: unknown): Promise<Invocation> => {
    const started = Date.now();
    if (stopped) return { ok: false, error: new Error('the local runtime is stopping'), timedOut: false, durationMs: 0 };
    let instance: Instance;
    try {
      instance = await acquire(fn);
      signalAll(instance.frozen, 'SIGCONT');
      instance.frozen = [];
      await instance.ready.catch((error: unknown) => {
        remove(instance);
        void stopInstance(instance);
        throw error;
      });
    } catch (error) {
      logError(`[${fn.key}] Init Error: ${(error as Error).message}`);
      return { ok: false, error: error as Error, timedOut: false, durationMs: Date.now() - started };
    }
    const requestId = randomUUID();
    const deadline = Date.now() + fn.timeoutSeconds * 1000;
    const invokedFunctionArn = `arn:aws:lambda:${opts.region}:${opts.accountId}:function:${fn.name}`;
    const request: InstanceRequest = { type: 'invoke', requestId, event, deadline, invokedFunctionArn };
    const initMs = instance.initMs;
    instance.initMs = undefined;
    let sent = 0;
    let runtimeMs = 0;
    const outcome = await new Promise<Invocation | 'timeout' | 'crashed'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      const onMessage = (message: InstanceMessage) => {
        if (message.type !== 'result' || message.requestId !== requestId) return;
        clearTimeout(timer);
        instance.child.off('message', onMessage);
        runtimeMs = performance.now() - sent;
        const durationMs = Date.now() - started;
        resolve(message.ok ? { ok: true, result: message.result, durationMs } : { ok: false, error: toError(message.error), timedOut: false, durationMs });
      };
      instance.onExit = (error) => {
        clearTimeout(timer);
        logError(`[${fn.key}] ${error.message} (RequestId: ${requestId})`);
        resolve('crashed');
      };
      instance.child.on('message', onMessage);
      // Lambda sends the INVOKE event to the extensions alongside the runtime's.
      instance.extensions.deliver({ eventType: 'INVOKE', deadlineMs: deadline, requestId, invokedFunctionArn, tracing: traceHeader() });
      sent = performance.now();
      instance.child.send(request);
    });
    instance.onExit = undefined;
    if (outcome === 'timeout') {
      logError(`[${fn.key}] ${requestId} Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`);
      remove(instance);
      void stopInstance(instance);
      return { ok: false, error: new Error('Task timed out'), timedOut: true, durationMs: Date.now() - started };
    }
    if (outcome === 'crashed') return { ok: false, error: new Error('Runtime exited'), timedOut: false, durationMs: Date.now() - started };
    let ended: Promise<InvocationEnd>;
    if (instance.extensions.allWaitingNow()) {
      // No extension works on: the invocation ends with its answer (a function without extensions, as before).
      release(instance);
      ended = Promise.resolve({ outcome: 'frozen', postResponseMs: 0 });
    } else {
      // The answer goes back now; the instance stays busy through its post-response phase.
      ended = postResponse(instance, requestId, deadline);
    }
    if (opts.logReport) {
      const write = opts.logReport;
      void ended.then((end) => write(formatReportLine({ requestId, runtimeMs, postResponseMs: end.postResponseMs, memoryMb: instance.fn.memoryMb, initMs })));
    }
    return { ...outcome, ended };
  };

  /** Waits for every extension to ask for the next event, then frees the instance; past the deadline, discards it. */
  const postResponse = async (instance: Instance, requestId: string, deadline: number): Promise<InvocationEnd> => {
    const answered = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      instance.extensions.allWaiting().then(() => 'frozen' as const),
      instance.exited.then(() => 'exited' as const),
      new Promise<'cut-off'>((resolve) => (timer = setTimeout(() => resolve('cut-off'), Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    const end: InvocationEnd = { outcome, postResponseMs: Date.now() - answered };
    if (outcome === 'frozen') {
      release(instance);
    } else if (outcome === 'cut-off') {
      const late = instance.extensions.busyNames().join(', ');
      logError(
        `[${instance.fn.key}] ${requestId} Task timed out after ${instance.fn.timeoutSeconds.toFixed(2)} seconds ` +
          `in the post-response phase (extension ${late} did not ask for the next event); the answer had been sent; instance discarded`,
      );
      remove(instance);
      void stopInstance(instance);
    }
    return end;
  };

  return {
    invoke,
    instanceCount: (fnKey) => pools.get(fnKey)?.length ?? 0,
    processes: () => [...pools.values()].flat().flatMap((instance) => (instance.child.exitCode === null ? rememberTree(instance.child.pid as number) : [])),
    async stop() {
      stopped = true;
      clearInterval(memoryStatsTimer);
      waiting.clear();
      await Promise.all([...pools.values()].flat().map(stopInstance));
      reaper.close();
    },
  };
}

/** The variables Lambda sets in every execution environment. */
function lambdaVariables(fn: LocalFunction, region: string): Record<string, string> {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    // Every local instance starts on demand; Powertools reads it to mark a cold start's first log line (cold_start).
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    LAMBDA_TASK_ROOT: process.cwd(),
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    // Not Lambda's, but a process needs them to find programs and a home (Chromium's profile, fontconfig's cache).
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    // Not Lambda's either: where CI counts Chromium's launch retries (lib/render/browser/launch-browser.ts).
    ...(process.env[LAUNCH_RETRY_LOG] ? { [LAUNCH_RETRY_LOG]: process.env[LAUNCH_RETRY_LOG] } : {}),
  };
}

/** An X-Ray trace header as Lambda puts in the INVOKE event (nothing here samples it). */
function traceHeader(): { type: 'X-Amzn-Trace-Id'; value: string } {
  const epoch = Math.floor(Date.now() / 1000).toString(16);
  return { type: 'X-Amzn-Trace-Id', value: `Root=1-${epoch}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0` };
}

function toError(serialized: SerializedError): Error {
  const error = new Error(serialized.errorMessage);
  error.name = serialized.errorType;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

/** `functions/pdf.handler` → the file `functions/pdf.ts` (or .js…) and the export `handler`. */
export function handlerLocation(fn: Pick<LocalFunction, 'handler'>, serviceDir: string) {
  const dot = fn.handler.lastIndexOf('.');
  if (dot <= 0) throw new LocalSetupError(`handler "${fn.handler}" must look like "functions/pdf.handler"`);
  const base = path.resolve(serviceDir, fn.handler.slice(0, dot));
  const file = MODULE_EXTENSIONS.map((extension) => base + extension).find((candidate) => existsSync(candidate));
  if (!file) throw new LocalSetupError(`handler "${fn.handler}": no ${base}{${MODULE_EXTENSIONS.join(',')}}`);
  return { file, exportName: fn.handler.slice(dot + 1) };
}
