/**
 * One function instance (a Lambda execution environment), run as a child
 * process of the local runtime (lambda-runtime.ts): imports the handler's
 * module once (the init phase, the cold start), then runs one invocation
 * per `invoke` message and answers with its result. The parent freezes this
 * process and its children (Chromium) between invocations.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { MEMORY_STATS_DIR_VARIABLE, watchMajorGc, writeMemoryStats } from './memory-stats.js';

export type InstanceRequest =
  | { type: 'init'; runtimeApi: string }
  | { type: 'invoke'; requestId: string; event: unknown; deadline: number; invokedFunctionArn: string };
export type InstanceMessage =
  | { type: 'started' }
  | { type: 'ready' }
  | { type: 'init-error'; error: SerializedError }
  | { type: 'result'; requestId: string; ok: true; result: unknown }
  | { type: 'result'; requestId: string; ok: false; error: SerializedError };
export type SerializedError = { errorType: string; errorMessage: string; stack?: string };

type Handler = (event: unknown, context: Context, callback: (error?: unknown, result?: unknown) => void) => unknown;

const file = process.env.LOCAL_HANDLER_FILE as string;
const exportName = process.env.LOCAL_HANDLER_EXPORT as string;
const memoryStatsDir = process.env[MEMORY_STATS_DIR_VARIABLE];
// Runner plumbing, not part of the function's environment.
delete process.env.LOCAL_HANDLER_FILE;
delete process.env.LOCAL_HANDLER_EXPORT;
delete process.env[MEMORY_STATS_DIR_VARIABLE];
let invocations = 0;
if (memoryStatsDir) watchMajorGc();

const send = (message: InstanceMessage) => process.send?.(message);

// Stopping the instance: exit hooks run (e.g. the browser's profile directory is removed).
process.on('SIGTERM', () => process.exit(0));
// The runtime is gone: an instance never outlives it.
process.on('disconnect', () => process.exit(0));
process.on('unhandledRejection', (reason) => {
  console.error(`Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
});

let handler: Handler;
try {
  // The Extensions API's address (AWS_LAMBDA_RUNTIME_API) is known once the runtime's server for this
  // instance listens; it is in the environment before the function's code loads, as on Lambda.
  process.env.AWS_LAMBDA_RUNTIME_API = await runtimeApiAddress();
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  if (typeof module[exportName] !== 'function') throw new Error(`${file} does not export a function named "${exportName}"`);
  handler = module[exportName] as Handler;
  process.on('message', (message: InstanceRequest) => {
    if (message.type === 'invoke') void invoke(message);
  });
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'init-error', error: serialize(error) });
  process.exitCode = 1;
  process.disconnect?.();
}

/** Asks the runtime for the address of this instance's Extensions API. */
function runtimeApiAddress(): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (message: InstanceRequest) => {
      if (message.type !== 'init') return;
      process.off('message', onMessage);
      resolve(message.runtimeApi);
    };
    process.on('message', onMessage);
    send({ type: 'started' });
  });
}

async function invoke(request: Extract<InstanceRequest, { type: 'invoke' }>): Promise<void> {
  let message: InstanceMessage;
  try {
    const result = await run(handler, request.event, lambdaContext(request));
    message = { type: 'result', requestId: request.requestId, ok: true, result };
  } catch (error) {
    console.error(`Invoke Error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    message = { type: 'result', requestId: request.requestId, ok: false, error: serialize(error) };
  }
  invocations += 1;
  // Before answering: the runtime freezes this process as soon as the answer arrives.
  if (memoryStatsDir) writeMemoryStats(memoryStatsDir, process.env.AWS_LAMBDA_FUNCTION_NAME ?? exportName, invocations);
  send(message);
}

/** Calls an async or callback-style handler; a sync throw or a rejection both reject. */
function run(fn: Handler, event: unknown, context: Context): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const callback = (error?: unknown, result?: unknown) => (error ? reject(error) : resolve(result));
    Object.assign(context, { done: callback, fail: reject, succeed: resolve });
    const returned = fn(event, context, callback);
    if (returned && typeof (returned as Promise<unknown>).then === 'function') (returned as Promise<unknown>).then(resolve, reject);
    else if (fn.length < 3) resolve(returned);
  });
}

function lambdaContext(request: Extract<InstanceRequest, { type: 'invoke' }>): Context {
  const env = process.env;
  const noop = () => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME ?? '',
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    invokedFunctionArn: request.invokedFunctionArn,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '',
    awsRequestId: request.requestId,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME ?? '',
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME ?? randomBytes(16).toString('hex'),
    getRemainingTimeInMillis: () => Math.max(0, request.deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) return { errorType: error.name, errorMessage: error.message, stack: error.stack };
  return { errorType: 'Error', errorMessage: String(error) };
}
