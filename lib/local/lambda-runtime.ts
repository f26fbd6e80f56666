import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { LocalSetupError } from './errors.js';
import type { LocalFunction } from './serverless-config.js';

/** What one invocation ended with, as the Lambda service would report it. */
export type Invocation =
  | { ok: true; result: unknown; durationMs: number }
  | { ok: false; error: unknown; timedOut: boolean; durationMs: number };

export type LambdaRuntime = {
  /** Runs a function's handler with a Lambda-like context, bounded by its timeout. */
  invoke(fn: LocalFunction, event: unknown): Promise<Invocation>;
  /** Imports a function's module once (its cold start); later calls reuse it. */
  load(fn: LocalFunction): Promise<Record<string, unknown>>;
  /** Modules imported so far, for `warm()` and `shutdown()` hooks. */
  loadedModules(): Record<string, unknown>[];
};

export type LambdaRuntimeOptions = {
  /** Directory handler paths are relative to (serverless.yml's). */
  serviceDir: string;
  region: string;
  accountId: string;
  /** Where invoke errors are reported; defaults to stderr. */
  logError?: (line: string) => void;
};

type Handler = (event: unknown, context: Context, callback: (error?: unknown, result?: unknown) => void) => unknown;

/** Extensions tried for `functions/pdf` in `functions/pdf.handler`; the process runs under tsx. */
const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cjs'];

/**
 * An in-process Lambda runtime: each function's module is imported lazily
 * once and stays warm, invocations run concurrently, and each gets a context
 * whose `getRemainingTimeInMillis()` counts down the function's timeout.
 */
export function createLambdaRuntime(opts: LambdaRuntimeOptions): LambdaRuntime {
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const loaded: Record<string, unknown>[] = [];
  const logError = opts.logError ?? ((line: string) => console.error(line));

  const load = (fn: LocalFunction): Promise<Record<string, unknown>> => {
    let file: string;
    try {
      ({ file } = handlerLocation(fn, opts.serviceDir));
    } catch (error) {
      return Promise.reject(error);
    }
    let pending = modules.get(file);
    if (!pending) {
      pending = import(pathToFileURL(file).href).then((module: Record<string, unknown>) => {
        loaded.push(module);
        return module;
      });
      // A failed import is retried on the next request, as a new container would.
      pending.catch(() => modules.delete(file));
      modules.set(file, pending);
    }
    return pending;
  };

  const invoke = async (fn: LocalFunction, event: unknown): Promise<Invocation> => {
    const started = Date.now();
    const deadline = started + fn.timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    try {
      const module = await load(fn);
      const { exportName } = handlerLocation(fn, opts.serviceDir);
      const handler = module[exportName];
      if (typeof handler !== 'function') {
        throw new LocalSetupError(`${fn.handler}: the module does not export a function named "${exportName}"`);
      }
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      });
      const outcome = await Promise.race([run(handler as Handler, event, lambdaContext(fn, opts, deadline)), timeout]);
      if (outcome === 'timeout') {
        logError(`[${fn.key}] Task timed out after ${fn.timeoutSeconds.toFixed(2)} seconds`);
        return { ok: false, error: new Error('Task timed out'), timedOut: true, durationMs: Date.now() - started };
      }
      return { ok: true, result: outcome.result, durationMs: Date.now() - started };
    } catch (error) {
      logError(`[${fn.key}] Invoke Error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { ok: false, error, timedOut: false, durationMs: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  };

  return { invoke, load, loadedModules: () => [...loaded] };
}

/** Calls an async or callback-style handler; a sync throw or a rejection both reject. */
function run(handler: Handler, event: unknown, context: Context): Promise<{ result: unknown }> {
  return new Promise((resolve, reject) => {
    const callback = (error?: unknown, result?: unknown) => (error ? reject(error) : resolve({ result }));
    Object.assign(context, {
      done: callback,
      fail: (error: unknown) => reject(error),
      succeed: (result: unknown) => resolve({ result }),
    });
    const returned = handler(event, context, callback);
    if (returned && typeof (returned as Promise<unknown>).then === 'function') {
      (returned as Promise<unknown>).then((result) => resolve({ result }), reject);
    } else if (handler.length < 3) {
      resolve({ result: returned });
    }
  });
}

function lambdaContext(fn: LocalFunction, opts: LambdaRuntimeOptions, deadline: number): Context {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const noop = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${opts.region}:${opts.accountId}:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
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
