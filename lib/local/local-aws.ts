import { startEmulators } from './emulators.js';
import { emulatorEnvironment, type EmulatorEndpoints } from './local-endpoints.js';
import { applyEnvironment, provisionResources, resolveFunctionEnvironment, type Provisioned } from './provision.js';
import { loadServerlessConfig, PROJECT_SERVERLESS_FILE, type LoadedServerless } from './serverless-config.js';

/** The account id the emulators use in ARNs and queue URLs, and `${aws:accountId}` locally. */
export const LOCAL_ACCOUNT_ID = '000000000000';

export type LocalAwsOptions = {
  /** Defaults to the project's serverless.yml. */
  serverlessFile?: string;
  stage?: string;
  region?: string;
  /**
   * Use AWS-compatible services already running there (LocalStack's
   * `http://localhost:4566`) instead of starting the embedded emulators.
   */
  endpoint?: string;
};

export type LocalAws = {
  serverless: LoadedServerless;
  endpoints: EmulatorEndpoints;
  provisioned: Provisioned;
  /** Function environment names whose value came from the shell instead of serverless.yml. */
  overridden: string[];
  /** Function environment names that differ between functions (one process holds one value). */
  conflicts: string[];
  /** Stops the emulators and puts process.env back as it was. */
  stop(): Promise<void>;
};

/**
 * Brings up AWS locally for serverless.yml: starts the emulators, points the
 * SDK at them through process.env, creates every declared table, bucket and
 * queue, and sets the functions' resolved environment into process.env, so
 * that handler modules imported afterwards find everything configured.
 */
export async function startLocalAws(opts: LocalAwsOptions = {}): Promise<LocalAws> {
  const serverless = await loadServerlessConfig(opts.serverlessFile ?? PROJECT_SERVERLESS_FILE, {
    stage: opts.stage,
    region: opts.region,
    accountId: LOCAL_ACCOUNT_ID,
  });
  const emulators = opts.endpoint
    ? { endpoints: { dynamodb: opts.endpoint, s3: opts.endpoint, sqs: opts.endpoint }, stop: async () => undefined }
    : await startEmulators();
  const saved = { ...process.env };
  const restore = () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  };
  try {
    Object.assign(process.env, emulatorEnvironment(emulators.endpoints, serverless.config.provider.region));
    const provisioned = await provisionResources(serverless, { accountId: LOCAL_ACCOUNT_ID });
    const { merged, conflicts } = await resolveFunctionEnvironment(serverless, provisioned);
    const overridden = applyEnvironment(merged);
    return {
      serverless,
      endpoints: emulators.endpoints,
      provisioned,
      overridden,
      conflicts,
      async stop() {
        await emulators.stop();
        restore();
      },
    };
  } catch (error) {
    await emulators.stop();
    restore();
    throw error;
  }
}
