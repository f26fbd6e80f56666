import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';
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
