import { startEmulators, startEmulatorsApart } from './emulators.js';
import { LocalSetupError } from './errors.js';
import { layerChromiumEnvironment, layerFontEnvironment } from './layers.js';
import { emulatorEnvironment, type EmulatorEndpoints } from './local-endpoints.js';
import { createResources, type LocalResources } from './resources.js';
import { resolveService, type LocalFunction, type ResolvedService, type ServiceOptions } from './service-definition.js';

/** The account id the emulators use in ARNs and queue URLs. */
export const LOCAL_ACCOUNT_ID = '000000000000';

export type LocalAwsOptions = ServiceOptions & {
  /**
   * Use AWS-compatible services already running there (LocalStack's
   * `http://localhost:4566`) instead of starting the embedded emulators.
   */
  endpoint?: string;
  /** Run the embedded emulators in a child process of their own (LOCAL_EMULATORS_APART=1 under npm start); default in this one. */
  emulatorsApart?: boolean;
};

export type LocalAws = {
  service: ResolvedService;
  endpoints: EmulatorEndpoints;
  resources: LocalResources;
  /**
   * The whole environment of an instance of `fn`: its own variables with
   * local values, the emulators' endpoints, and its layers' fonts and Chromium pack.
   */
  environmentOf(fn: LocalFunction): Record<string, string>;
  stop(): Promise<void>;
};

/**
 * Brings up AWS locally for a service: asks osls what serverless.yml
 * resolves to, starts the emulators and creates every declared table, bucket
 * and queue on them.
 */
export async function startLocalAws(opts: LocalAwsOptions = {}): Promise<LocalAws> {
  const service = await resolveService(opts);
  const emulators = opts.endpoint
    ? { endpoints: { dynamodb: opts.endpoint, s3: opts.endpoint, sqs: opts.endpoint }, stop: async () => undefined }
    : await (opts.emulatorsApart ? startEmulatorsApart() : startEmulators());
  try {
    const resources = await createResources(service, emulators.endpoints, LOCAL_ACCOUNT_ID);
    const endpointVariables = emulatorEnvironment(emulators.endpoints, service.region);
    const environments = new Map<string, Record<string, string>>();
    for (const fn of service.functions) {
      const own: Record<string, string> = {};
      for (const [name, value] of Object.entries(fn.environment)) {
        own[name] = text(resources.physical(value, `functions.${fn.key}.environment.${name}`), `functions.${fn.key}.environment.${name}`);
      }
      environments.set(fn.key, { ...own, ...endpointVariables });
    }
    return {
      service,
      endpoints: emulators.endpoints,
      resources,
      // The layer fonts are looked for when an instance starts: provisioning alone does not need them.
      environmentOf: (fn) => ({
        ...(environments.get(fn.key) ?? endpointVariables),
        ...layerFontEnvironment(fn.layerDirs, service.serviceDir),
        ...layerChromiumEnvironment(fn.layerDirs),
      }),
      stop: () => emulators.stop(),
    };
  } catch (error) {
    await emulators.stop();
    throw error;
  }
}

function text(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new LocalSetupError(`${at}: an environment variable must resolve to text, got ${JSON.stringify(value)}`);
}
