import { fileURLToPath } from 'node:url';
import { createAwsClients, type AwsClients } from '../../lib/aws/clients.js';
import { loadConfig, type Config } from '../../lib/config.js';
import { startLocalAws, type LocalAws, type LocalAwsOptions } from '../../lib/local/local-aws.js';

/** The fixture service of the local-stack tests: routes, queues, a schedule. */
export const FIXTURE_SERVERLESS_FILE = fileURLToPath(
  new URL('../integration/local/fixtures/serverless.yml', import.meta.url),
);

export type LocalAwsForTests = {
  /** Config as a function would load it, pointing at the provisioned resources. */
  config: Config;
  clients: AwsClients;
  local: LocalAws;
  /** Stops the emulators and restores process.env. */
  stop(): Promise<void>;
};

/**
 * Starts the embedded emulators, creates what serverless.yml (the project's
 * unless told otherwise) declares, and puts a function's environment (the
 * first without layers) into this process' environment, as an instance of it
 * would have. Call `stop()` in `after`.
 */
export async function withLocalAws(opts: LocalAwsOptions = {}): Promise<LocalAwsForTests> {
  const local = await startLocalAws(opts);
  const saved = { ...process.env };
  // One without layers: its environment needs no built layer (a fresh clone has none).
  const first = local.service.functions.find((fn) => fn.layerDirs.length === 0);
  Object.assign(process.env, first ? local.environmentOf(first) : {});
  const config = loadConfig();
  const clients = createAwsClients(config);
  return {
    config,
    clients,
    local,
    async stop() {
      clients.dynamo.destroy();
      clients.s3.destroy();
      clients.sqs.destroy();
      await local.stop();
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    },
  };
}
