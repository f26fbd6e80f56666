import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LocalSetupError } from './errors.js';

/** The project's own serverless.yml. */
export const PROJECT_SERVERLESS_FILE = fileURLToPath(new URL('../../serverless.yml', import.meta.url));

/** Where resolved configurations are cached: osls takes seconds, a cached read takes none. */
const CACHE_DIR = fileURLToPath(new URL('../../.local/resolved/', import.meta.url));

const OSLS_BIN = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
const OSLS_VERSION = (createRequire(import.meta.url)('osls/package.json') as { version: string }).version;

/** What `serverless deploy` would be told on its command line. */
export type ServiceOptions = {
  /** serverless.yml to read; the project's by default. */
  file?: string;
  stage?: string;
  region?: string;
  /** `--param name=value` pairs. */
  params?: Record<string, string>;
  /** The environment `${env:…}` reads; process.env by default. */
  env?: NodeJS.ProcessEnv;
};

/** A CloudFormation resource as osls resolved it: intrinsics such as `Ref` are still objects. */
export type CfnResource = { Type: string; Properties?: Record<string, unknown>; Condition?: string; DependsOn?: unknown };

/** serverless.yml after osls resolved every variable (`serverless print`). */
export type ResolvedService = {
  file: string;
  /** Directory handler paths are relative to. */
  serviceDir: string;
  service: string;
  stage: string;
  region: string;
  functions: LocalFunction[];
  resources: Record<string, CfnResource>;
};

/** One route of an `httpApi` event; `method` is upper case or `ANY`, `$default` has no path. */
export type HttpRoute = { routeKey: string; method: string; path: string };

export type SqsEventSource = {
  /** The queue ARN as resolved: a string or `{"Fn::GetAtt": [queue, "Arn"]}`. */
  arn: unknown;
  batchSize: number;
  reportBatchItemFailures: boolean;
  maximumConcurrency: number | undefined;
  enabled: boolean;
};

export type ScheduleSource = { expression: string; input: unknown; enabled: boolean };

/** A function as Lambda would run it, with the framework's defaults applied. */
export type LocalFunction = {
  /** Its key under `functions:`. */
  key: string;
  /** The deployed name, `<service>-<stage>-<key>` unless `name:` is set. */
  name: string;
  handler: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** provider.environment with the function's own on top; values may be `Ref`/`GetAtt` of a resource. */
  environment: Record<string, unknown>;
  /** Local folders of the service's own layers the function uses (Lambda mounts them at /opt). */
  layerDirs: string[];
  /** `reservedConcurrency`, when set: no more instances than this at once. */
  reservedConcurrency: number | undefined;
  httpRoutes: HttpRoute[];
  sqsEvents: SqsEventSource[];
  schedules: ScheduleSource[];
};

/** The framework's defaults when neither the function nor the provider says. */
const DEFAULT_TIMEOUT_SECONDS = 6;
const DEFAULT_MEMORY_MB = 1024;

/**
 * Asks osls (the framework that deploys the service) what serverless.yml
 * resolves to for a stage, region and parameters: `serverless print`. The
 * answer is cached under .local/resolved/ keyed by the file, the options, the
 * osls version and the values of the environment variables the file reads,
 * so only the first start after a change pays osls' few seconds.
 */
export async function resolveService(opts: ServiceOptions = {}): Promise<ResolvedService> {
  const file = path.resolve(opts.file ?? PROJECT_SERVERLESS_FILE);
  const env = opts.env ?? process.env;
  const args = ['print', '--format', 'json', '--config', path.basename(file)];
  if (opts.stage) args.push('--stage', opts.stage);
  if (opts.region) args.push('--region', opts.region);
  for (const [name, value] of Object.entries(opts.params ?? {})) args.push('--param', `${name}=${value}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new LocalSetupError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  // The `${env:NAME}` the file reads are part of its meaning; the rest of the environment is not.
  const envNames = [...new Set([...text.matchAll(/env:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] as string))].sort();
  const key = createHash('sha256')
    .update(JSON.stringify([file, text, args, OSLS_VERSION, envNames.map((name) => [name, env[name] ?? null])]))
    .digest('hex')
    .slice(0, 32);
  const cached = path.join(CACHE_DIR, `${key}.json`);
  let printed: Record<string, unknown>;
  try {
    printed = JSON.parse(await readFile(cached, 'utf8')) as Record<string, unknown>;
  } catch {
    printed = await oslsPrint(file, args, env);
    await mkdir(CACHE_DIR, { recursive: true });
    const temporary = `${cached}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(printed));
    await rename(temporary, cached);
  }
  return describeService(file, printed);
}

async function oslsPrint(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [OSLS_BIN, ...args], {
      cwd: path.dirname(file),
      // print asks AWS nothing; should it ever, it reaches a closed local port with dummy credentials, never an account.
      env: {
        ...env,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_SESSION_TOKEN: '',
        AWS_PROFILE: '',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_CONFIG_FILE: '/dev/null',
        SLS_TELEMETRY_DISABLED: '1',
        SLS_NOTIFICATIONS_MODE: 'off',
      },
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>;
  } catch (error) {
    const detail = (error as { stderr?: string; stdout?: string }).stderr || (error as Error).message;
    throw new LocalSetupError(`serverless print failed for ${file}:\n${detail}`, { cause: error });
  }
}

/** The functions and resources of a printed configuration, events normalised, defaults applied. */
export function describeService(file: string, printed: Record<string, unknown>): ResolvedService {
  const provider = record(printed.provider);
  const service = String(printed.service);
  const stage = String(provider.stage ?? 'dev');
  const providerEnvironment = record(provider.environment);
  const serviceDir = path.dirname(file);
  // The framework names a layer's resource <Name>LambdaLayer; functions refer to it with Ref.
  const layerDirByRef = new Map(
    Object.entries(record(printed.layers)).map(([name, layer]) => [
      `${normalizedName(name)}LambdaLayer`,
      path.resolve(serviceDir, String(record(layer).path ?? '')),
    ]),
  );
  const functions = Object.entries(record(printed.functions)).map(([key, value]): LocalFunction => {
    const fn = record(value);
    if (typeof fn.handler !== 'string') throw new LocalSetupError(`functions.${key}.handler must be a string`);
    const events = Array.isArray(fn.events) ? (fn.events as Record<string, unknown>[]) : [];
    return {
      key,
      name: typeof fn.name === 'string' ? fn.name : `${service}-${stage}-${key}`,
      handler: fn.handler,
      timeoutSeconds: Number(fn.timeout ?? provider.timeout ?? DEFAULT_TIMEOUT_SECONDS),
      memoryMb: Number(fn.memorySize ?? provider.memorySize ?? DEFAULT_MEMORY_MB),
      environment: { ...providerEnvironment, ...record(fn.environment) },
      layerDirs: (Array.isArray(fn.layers) ? fn.layers : []).flatMap((layer: unknown) => {
        const dir = layerDirByRef.get(String(record(layer).Ref));
        // A layer published elsewhere (an ARN) has no local folder: its packages come from node_modules.
        return dir ? [dir] : [];
      }),
      reservedConcurrency: fn.reservedConcurrency === undefined ? undefined : Number(fn.reservedConcurrency),
      httpRoutes: events.flatMap((event) => ('httpApi' in event ? [httpRoute(event.httpApi, key)] : [])),
      sqsEvents: events.flatMap((event) => ('sqs' in event ? [sqsSource(event.sqs, key)] : [])),
      schedules: events.flatMap((event) => ('schedule' in event ? scheduleSources(event.schedule, key) : [])),
    };
  });
  return {
    file,
    serviceDir,
    service,
    stage,
    region: String(provider.region ?? 'us-east-1'),
    functions,
    resources: record(record(printed.resources).Resources) as Record<string, CfnResource>,
  };
}

/** The framework's normalisation of a name into a logical id: `chromium` → `Chromium`, `my-layer` → `MyDashlayer`. */
function normalizedName(name: string): string {
  const replaced = name.replaceAll('-', 'Dash').replaceAll('_', 'Underscore');
  return replaced.charAt(0).toUpperCase() + replaced.slice(1);
}

function httpRoute(event: unknown, key: string): HttpRoute {
  let method: string | undefined;
  let routePath: string | undefined;
  if (event === '*') return { routeKey: '$default', method: 'ANY', path: '' };
  if (typeof event === 'string') [method, routePath] = event.trim().split(/\s+/);
  else if (isRecord(event)) [method, routePath] = [String(event.method ?? ''), String(event.path ?? '')];
  if (!method || !routePath || !routePath.startsWith('/')) {
    throw new LocalSetupError(`functions.${key}: httpApi event must be '*', 'METHOD /path' or { method, path }`);
  }
  const upper = method === '*' ? 'ANY' : method.toUpperCase();
  return { routeKey: `${upper} ${routePath}`, method: upper, path: routePath };
}

function sqsSource(event: unknown, key: string): SqsEventSource {
  if (typeof event === 'string') {
    return { arn: event, batchSize: 10, reportBatchItemFailures: false, maximumConcurrency: undefined, enabled: true };
  }
  if (!isRecord(event) || event.arn === undefined) throw new LocalSetupError(`functions.${key}: sqs event needs an arn`);
  return {
    arn: event.arn,
    batchSize: Number(event.batchSize ?? 10),
    reportBatchItemFailures: event.functionResponseType === 'ReportBatchItemFailures',
    maximumConcurrency: event.maximumConcurrency === undefined ? undefined : Number(event.maximumConcurrency),
    enabled: event.enabled !== false,
  };
}

function scheduleSources(event: unknown, key: string): ScheduleSource[] {
  if (typeof event === 'string') return [{ expression: event, input: undefined, enabled: true }];
  if (!isRecord(event)) throw new LocalSetupError(`functions.${key}: schedule event must be a string or a mapping`);
  const rates = Array.isArray(event.rate) ? event.rate : [event.rate];
  return rates.map((rate) => ({ expression: String(rate), input: event.input, enabled: event.enabled !== false }));
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
