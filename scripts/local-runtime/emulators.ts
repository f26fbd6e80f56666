import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';
import { fileURLToPath } from 'node:url';
import type { EmulatorProcessMessage } from './emulator-process.js';
import type { EmulatorEndpoints } from './local-endpoints.js';

export type { EmulatorEndpoints };

export type RunningEmulators = {
  endpoints: EmulatorEndpoints;
  stop(): Promise<void>;
};

/** Where the emulators listen: loopback only, never the network. */
const HOST = '127.0.0.1';

/**
 * Starts the embedded AWS emulators on free loopback ports, all state in
 * memory: dynalite for DynamoDB (tables become ACTIVE at once) and fauxqs for
 * S3 and SQS on one endpoint. Nothing to install, no Docker.
 */
export async function startEmulators(): Promise<RunningEmulators> {
  const [dynamo, faux] = await Promise.all([startDynalite(), startFauxqs()]);
  let stopping: Promise<void> | undefined;
  return {
    endpoints: { dynamodb: dynamo.url, s3: faux.url, sqs: faux.url },
    stop: () => (stopping ??= Promise.all([dynamo.stop(), faux.stop()]).then(() => undefined)),
  };
}

const EMULATOR_ENTRY = fileURLToPath(new URL('./emulator-process.ts', import.meta.url));
/** How long the emulators' process may take to listen. */
const APART_START_LIMIT_MS = 30_000;

/**
 * The same emulators in a child process of their own (emulator-process.ts):
 * the objects, items and messages they keep in memory then weigh on that
 * process, not on the runtime's, so a measurement of the service (the soak)
 * can leave AWS's storage out. The child exits when this process goes.
 */
export async function startEmulatorsApart(): Promise<RunningEmulators> {
  const child = spawn(process.execPath, ['--import', 'tsx', EMULATOR_ENTRY], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit').then(() => undefined);
  const endpoints = await new Promise<EmulatorEndpoints>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulators took more than ${APART_START_LIMIT_MS} ms to start`)), APART_START_LIMIT_MS);
    child.once('message', (message: EmulatorProcessMessage) => {
      clearTimeout(timer);
      if (message.type === 'ready') resolve(message.endpoints);
      else reject(new Error(`the emulators did not start: ${message.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulators' process exited with code ${code} while starting`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  let stopping: Promise<void> | undefined;
  return {
    endpoints,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

async function startDynalite() {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(0, HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${HOST}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        // Keep-alive sockets from SDK clients would hold close() open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function startFauxqs() {
  // buildApp + listen rather than startFauxqs(), which binds every interface.
  const app = buildApp({ logger: false });
  const url = await app.listen({ port: 0, host: HOST });
  return { url, stop: () => app.close() };
}
