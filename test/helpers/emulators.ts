import { fileURLToPath } from 'node:url';
import { createAwsClients, type AwsClients } from '../../lib/aws/clients.js';
import { loadConfig, type Config } from '../../lib/config.js';
import { startLocalAws, type LocalAws, type LocalAwsOptions } from '../../scripts/local-runtime/local-aws.js';
import { deleteStageResources, externalAwsEndpoint, uniqueStage } from './external-aws.js';

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
 *
 * With TEST_AWS_ENDPOINT set (CI's LocalStack step) and no endpoint given, it
 * provisions there instead, under a stage of its own, and `stop()` deletes
 * what it created.
 */
export async function withLocalAws(opts: LocalAwsOptions = {}): Promise<LocalAwsForTests> {
  const external = opts.endpoint ? undefined : externalAwsEndpoint();
  const local = await startLocalAws(external ? { ...opts, endpoint: external, stage: opts.stage ?? uniqueStage() } : opts);
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
      if (external) await deleteStageResources(external, local.service.region, local.service.service, local.service.stage);
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    },
  };
}
