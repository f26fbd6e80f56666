import { request } from 'node:http';
import { ExtensionsApiError } from './errors.js';

/**
 * Work done after an invocation's answer, given a signal that aborts at the
 * bound: on abort it must give up at once (kill what is stuck), because the
 * environment is frozen right after.
 */
export type PostResponseWork = (signal: AbortSignal) => Promise<void>;

export type PostResponseOptions = {
  /** The extension's name (`Lambda-Extension-Name`). */
  name: string;
  /** What to do after each answer. */
  work: PostResponseWork;
  /** How long the work may hold the environment after an answer. */
  boundMs: number;
  /** `host:port` of the Extensions API (`AWS_LAMBDA_RUNTIME_API`); none: no extension, no work. */
  runtimeApi: string | undefined;
  /** Where failures (registration, a lost connection, work that threw or was cut off) are reported. */
  onProblem?: (message: string, error?: unknown) => void;
};

export type PostResponse = {
  /** Whether an extension holds the environment open after each answer (registration worked). */
  readonly registered: boolean;
  /**
   * Wraps a handler: its answer goes to the runtime first, then the work
   * runs. Where registration failed the work still runs after the answer,
   * but nothing keeps the environment from being frozen under it; where
   * there is no Extensions API at all (a handler called in-process), the
   * handler is returned as it is and no work runs.
   */
  wrap<E, C extends { awsRequestId: string }, R>(handler: (event: E, context: C) => Promise<R>): (event: E, context: C) => Promise<R>;
};

type InvokeEvent = { eventType: string; requestId?: string; deadlineMs?: number };

const API_VERSION = '2020-01-01';
/** Kept back from the invocation's deadline: past it Lambda would time the invocation out and reset the environment. */
const DEADLINE_MARGIN_MS = 250;

/**
 * Registers an internal Lambda extension (call it during INIT: Lambda
 * refuses registration once the runtime has asked for its first event) that
 * runs `work` after each answer, in the post-response phase: Lambda returns
 * the answer to the caller while the extension still works, and freezes the
 * environment only once the extension asks for the next event. The work is
 * bounded (`boundMs`, and the invocation's deadline); at the bound its
 * signal aborts and the extension asks for the next event regardless.
 */
export async function startPostResponse(options: PostResponseOptions): Promise<PostResponse> {
  const { runtimeApi } = options;
  const report = options.onProblem ?? ((message: string) => console.error(message));
  // Answers handed to the runtime, by request id, and the extension's wait for one.
  const answered = new Set<string>();
  const waiting = new Map<string, () => void>();
  let running = false;

  const markAnswered = (requestId: string) => {
    const resolve = waiting.get(requestId);
    if (resolve) {
      waiting.delete(requestId);
      resolve();
    } else if (running) {
      answered.add(requestId);
    }
  };
  const answerOf = (requestId: string) =>
    answered.delete(requestId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(requestId, resolve));

  const runBounded = async (deadlineMs: number | undefined) => {
    const boundMs = Math.min(options.boundMs, deadlineMs ? deadlineMs - Date.now() - DEADLINE_MARGIN_MS : Infinity);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, boundMs));
    const aborted = new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([options.work(controller.signal).catch((error: unknown) => report('post-response work failed', error)), aborted]);
      if (controller.signal.aborted) report(`post-response work cut off after ${Math.max(0, boundMs)} ms`);
    } finally {
      clearTimeout(timer);
    }
  };

  let identifier: string | undefined;
  if (runtimeApi) {
    try {
      // Not given up on after a while: a registration the API accepted late, from an extension that
      // then never asks for its first event, would hold INIT until its limit. An API that never
      // answers is bounded by that same INIT limit.
      identifier = await register(runtimeApi, options.name);
    } catch (error) {
      report('post-response extension not registered: the work runs after each answer, unbounded by the environment', error);
    }
  }

  if (identifier && runtimeApi) {
    running = true;
    const id = identifier;
    void (async () => {
      for (;;) {
        // The first call ends this extension's INIT; each later one ends an invocation's post-response phase.
        const event = await nextEvent(runtimeApi, id);
        if (event.eventType !== 'INVOKE' || !event.requestId) continue;
        await answerOf(event.requestId);
        await runBounded(event.deadlineMs);
      }
    })().catch((error: unknown) => {
      running = false;
      report('post-response extension stopped', error);
    });
  }

  return {
    registered: running,
    wrap(handler) {
      if (!runtimeApi) return handler;
      return async (event, context) => {
        try {
          return await handler(event, context);
        } finally {
          // After the runtime has taken the answer (it does so as this promise settles) and sent it.
          setImmediate(() => {
            if (running) markAnswered(context.awsRequestId);
            else void runBounded(undefined);
          });
        }
      };
    },
  };
}

/** `POST /extension/register` for INVOKE events; resolves to the `Lambda-Extension-Identifier`. */
async function register(runtimeApi: string, name: string): Promise<string> {
  const { status, headers, body } = await call(runtimeApi, 'POST', `/${API_VERSION}/extension/register`, { 'Lambda-Extension-Name': name }, JSON.stringify({ events: ['INVOKE'] }));
  const id = headers['lambda-extension-identifier'];
  if (status !== 200 || typeof id !== 'string') throw new ExtensionsApiError(`register answered ${status}: ${body.slice(0, 200)}`);
  return id;
}

/** `GET /extension/event/next`: waits (long poll, no timeout) until Lambda has an event for this extension. */
async function nextEvent(runtimeApi: string, id: string): Promise<InvokeEvent> {
  const { status, body } = await call(runtimeApi, 'GET', `/${API_VERSION}/extension/event/next`, { 'Lambda-Extension-Identifier': id });
  if (status !== 200) throw new ExtensionsApiError(`event/next answered ${status}: ${body.slice(0, 200)}`);
  return JSON.parse(body) as InvokeEvent;
}

// node:http rather than fetch: undici's headers timeout would end a long poll that outlasts a freeze.
function call(runtimeApi: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    // No agent: nothing pools or times out the connection of a long poll.
    const req = request(`http://${runtimeApi}${path}`, { method, agent: false, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error) => reject(new ExtensionsApiError(`${method} ${path} failed`, { cause: error })));
    req.end(body);
  });
}
