import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { AppDeps } from './app-deps.js';
import { loadConfig } from '../config.js';
import { flushCompileCacheOnce } from '../lambda/compile-cache.js';
import { startPostResponse, type PostResponse } from '../lambda/post-response.js';
import { withFinishing } from '../document-renderer.js';
import { createEgressPolicy, sharedEgressProxy, useEgressPolicy } from '../net/index.js';
import { createRenderer } from '../render/index.js';
import type { DocumentRenderer } from '../render/types.js';
import type { SignerRegistry } from '../signing/signers.js';
import type { SigningConfig } from '../signing/signing-config.js';

/**
 * Dependencies of the functions that render: the shared ones plus the browser, and (where a post-response
 * phase follows each answer) how to leave work for it.
 */
export type RenderDeps = AppDeps & { renderer: DocumentRenderer; afterAnswer?: (task: () => Promise<void>) => void };

/** Runs the tasks an answer left, one after another; each one's failure is its own (they log their own). */
async function runTasks(tasks: Array<() => Promise<void>>): Promise<void> {
  for (const task of tasks) await task().catch(() => undefined);
}

/** What a rendering function makes of its dependencies: its handler. */
export type HandlerFactory<H> = (deps: RenderDeps) => H;

type Started = {
  /** The shared dependencies with the renderer, once loaded (the browser may still be starting). */
  deps: Promise<RenderDeps>;
  /** Settles once the browser is warm, or its warm-up has failed and been logged. */
  warmed: Promise<void>;
  /** The internal extension that runs the renderer's isolation work after each answer. */
  postResponse: Promise<PostResponse>;
};

/**
 * How long the renderer's work after an answer (closing the used session,
 * opening the next, replacing a worn browser) may hold the environment: it
 * takes about 0.1 s, a browser's replacement about 1 s; past the bound
 * Chromium is taken to hang and is killed (see `Renderer.afterAnswer`).
 */
const POST_RESPONSE_BOUND_MS = 5_000;

let started: Started | undefined;

/**
 * Builds a rendering function's handler during its initialisation (INIT),
 * with the browser warm for the first request. Chromium's launch comes
 * first: it needs only the config, the egress proxy and the renderer, while
 * most of a cold start is loading everything else (middleware, SDK clients,
 * schemas, logger). That loads while Chromium starts in its own process: the
 * shared dependencies (`app-deps.ts`) and the function's own module, which
 * `endpoint` imports dynamically for that reason (a static import would be
 * evaluated before any of this runs).
 */
export async function renderingHandler<H>(endpoint: () => Promise<HandlerFactory<H>>): Promise<H> {
  const { deps, warmed, postResponse } = start();
  const [app, makeHandler, after] = await Promise.all([deps, deps.then(endpoint).then(mark('endpoint-loaded')), postResponse]);
  await warmed;
  // The answer first; the next render's isolation after it, in the post-response phase.
  return after.wrap(makeHandler(app) as (event: unknown, context: { awsRequestId: string }) => Promise<unknown>) as H;
}

/**
 * Marks a step of INIT on the performance timeline (`docrender.<name>`, with
 * the CPU this process has used by then as its detail), from which the
 * cold-start bench reads its phases; passes `value` on.
 */
function mark(name: string): <T>(value: T) => T {
  return (value) => {
    const { user, system } = process.cpuUsage();
    performance.mark(`docrender.${name}`, { detail: { cpuMs: (user + system) / 1000 } });
    return value;
  };
}

/** The container's rendering dependencies, built once; the browser is launched at once (see `renderingHandler`). */
export function renderDeps(): Promise<RenderDeps> {
  return start().deps;
}

function start(): Started {
  if (started) return started;
  const config = loadConfig();
  // `inline`: no extension at all, as a process without the Extensions API (ISOLATION_PHASE in config.ts).
  const runtimeApi = config.isolationPhase === 'post-response' ? config.lambdaRuntimeApi : undefined;
  // The proxy Chromium is launched behind judges addresses by this policy: set before the launch.
  useEgressPolicy(createEgressPolicy({ allowPrivateHosts: config.allowPrivateHosts }));
  const spawned = nextChildProcess();
  // Loading modules is synchronous and would hold up the launch's own few steps (proxy, launcher,
  // spawn): the rest waits until Chromium's process exists, which then starts on its own meanwhile.
  // Work an answer leaves for the post-response phase (a render's quota confirmation), run before the isolation's.
  const afterAnswerTasks: Array<() => Promise<void>> = [];
  const afterAnswer = runtimeApi !== undefined ? { afterAnswer: (task: () => Promise<void>) => void afterAnswerTasks.push(task) } : {};
  const deps = spawned.started.then(async (): Promise<RenderDeps> => {
    const { appDeps } = await import('./app-deps.js');
    return mark('app-loaded')({ ...appDeps(), renderer, ...afterAnswer });
  });
  const printer = createRenderer({
    mode: config.chromiumMode,
    executablePath: config.chromiumPath,
    chromiumPackDir: config.chromiumPackDir,
    timeoutMs: config.renderTimeoutMs,
    // The layers' log lines (a page that did not settle) go through the one logger, with the Lambda context.
    log: (level, message, details) => void deps.then(({ logger }) => logger[level](message, details)),
    // Lambda (and the local runtime) serve the Extensions API there: isolation waits for the post-response
    // phase, unless the setting asks for it inline (the next session opens alongside the render).
    postResponse: runtimeApi !== undefined,
    // Every address a page was refused or could not reach is a log line (host and port, never the path):
    // a refusal is often someone probing the network. The logger may still be loading when the proxy starts.
    egress: () =>
      sharedEgressProxy({
        onEvent: ({ outcome, kind, host, port, reason, addressClass }) =>
          void deps.then(({ logger }) =>
            logger[outcome === 'refused' ? 'warn' : 'info'](`egress ${outcome}`, { egress: { kind, host, port, reason, addressClass } }),
          ),
      }),
  });

  // Watermarks, protection and signatures are applied to the printed PDF inside the same time budget (lib/finishing).
  const renderer = withFinishing(printer, config.renderTimeoutMs, lazySigners(config));
  const warming = renderer.warm().then(mark('browser-warm'));
  warming.then(spawned.stop, spawned.stop);
  // A failed warm-up is not fatal: the first render retries.
  const warmed = warming.catch(async (error: unknown) => {
    const app = await deps.catch(() => undefined);
    app?.logger.warn('browser warm-up failed; the first render will retry', { error: error as Error });
  });
  // Registered during INIT, as Lambda requires, before the runtime asks for its first event.
  const postResponse = startPostResponse({
    name: 'docrender-isolation',
    runtimeApi,
    // The compile cache after the first answer: INIT's modules and a first render's are compiled by then.
    work: (signal) =>
      runTasks(afterAnswerTasks.splice(0))
        .then(() => renderer.afterAnswer(signal))
        .finally(flushCompileCacheOnce),
    boundMs: POST_RESPONSE_BOUND_MS,
    onProblem: (message, error) => void deps.then(({ logger }) => logger.warn(message, error === undefined ? {} : { error: error as Error })),
  });
  started = { deps, warmed, postResponse };
  return started;
}

/**
 * The deployment's signers, their modules (the KMS and SSM clients, the CMS
 * library) loaded with the first render that signs: no cold start pays for them.
 */
function lazySigners(config: { region: string; signing: SigningConfig }): SignerRegistry {
  let loaded: Promise<SignerRegistry> | undefined;
  const registry = () =>
    (loaded ??= Promise.all([import('../signing/signers.js'), import('../aws/signing-clients.js')]).then(([{ signerRegistry }, { signingClients }]) =>
      signerRegistry(config.signing, signingClients(config)),
    ));
  return {
    signer: async (name) => (await registry()).signer(name),
    validationMaterial: async (chains) => (await registry()).validationMaterial(chains),
    ...(config.signing.timestampUrl
      ? {
          timestamp: async (data: Uint8Array) => {
            const { timestamp } = await registry();
            if (!timestamp) throw new Error('No timestamp authority');
            return timestamp(data);
          },
        }
      : {}),
  };
}

/**
 * `started` resolves once this process starts a child process (Chromium's
 * launch does; seen through Node's `child_process` diagnostics channel), or
 * when `stop` is called: the launch settled without one (it failed first).
 */
function nextChildProcess(): { started: Promise<void>; stop: () => void } {
  let stop: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    stop = () => {
      unsubscribe('child_process', stop);
      resolve();
    };
    subscribe('child_process', stop);
  });
  return { started, stop };
}
