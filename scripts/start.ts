/**
 * `npm start`: the whole API on http://127.0.0.1:3000 (PORT overrides, 0 picks
 * a free port) on embedded AWS emulators, provisioned from serverless.yml.
 * Prints the base URL and a ready-to-use token (DEV_TOKEN registers its value).
 */
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDynamoTokenStore } from '../lib/aws/dynamo-token-store.js';
import { createAwsClients } from '../lib/aws/clients.js';
import { DEV_SIGNER, startDevSigning } from './local-runtime/dev-signing.js';
import { devStackFile, removeDevStack, writeDevStack } from './local-runtime/dev-stack.js';
import { createHttpApi } from './local-runtime/http-api.js';
import { createLambdaRuntime } from './local-runtime/lambda-runtime.js';
import { acquireFileLock } from './local-runtime/file-lock.js';
import { emulatorEnvironment } from './local-runtime/local-endpoints.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from './local-runtime/local-aws.js';
import { watchLaunchers } from './local-runtime/parent-watch.js';
import { signalAll } from './local-runtime/process-tree.js';
import { startSchedules } from './local-runtime/schedules.js';
import { startSqsPollers } from './local-runtime/sqs-poller.js';
import { createToken } from '../lib/tokens/tokens.js';
import { CHROMIUM_LAYER_DIR, layerFontsCurrent, layerFontsDigest, layerFontsStamp, writeLayerFontconfig, writeLayerFonts } from './build-layer.js';

const USAGE = `Usage: npm start [-- --config serverless.yml] [--stage dev] [--region us-east-1] [--param name=value]
                 [--endpoint URL] [--instances N] [--idle-seconds N]

Serves the API locally on embedded DynamoDB/S3/SQS emulators, running each
function as Lambda does: what osls resolves serverless.yml to, one invocation
at a time per instance, instances frozen between invocations.
  --endpoint      use the AWS-compatible services at URL (LocalStack: http://localhost:4566) instead
  --instances     instances per function at most (default 4; reservedConcurrency lowers it)
  --idle-seconds  stop an instance idle this long (default 300)
  PORT            port on 127.0.0.1 (default 3000, 0 picks a free one)
  DEV_TOKEN       register this exact value as an active, unlimited token
  DEV_SIGNING_DIR keep the development signer (an untrusted CA) there instead of .local/signing/
`;

/** How long SIGINT/SIGTERM may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 10_000;
/** How often npm start checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1_000;

function parseOptions() {
  try {
    return parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        stage: { type: 'string' },
        region: { type: 'string' },
        param: { type: 'string', multiple: true },
        endpoint: { type: 'string' },
        instances: { type: 'string', default: '4' },
        'idle-seconds': { type: 'string', default: '300' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

/**
 * The `--param` pairs given, plus `allowPrivateHosts` from this shell's
 * ALLOW_PRIVATE_HOSTS unless a param names it: serverless.yml reads that
 * setting from a param only, so that a deploy never takes it from the
 * environment, while `npm start` keeps the documented variable.
 */
function runnerParams(pairs: string[]): Record<string, string> {
  const params = Object.fromEntries(pairs.map((pair) => [pair.split('=')[0] as string, pair.split('=').slice(1).join('=')]));
  const allow = process.env.ALLOW_PRIVATE_HOSTS;
  if (allow && params.allowPrivateHosts === undefined) params.allowPrivateHosts = allow;
  return params;
}

async function main(): Promise<void> {
  const values = parseOptions();
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  // Undone in order on failure or on SIGINT/SIGTERM: last started, first stopped.
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  // Before anything starts: a Ctrl+C (or a script's SIGTERM the moment it reads the banner) while npm start
  // is still starting stops what has started so far instead of killing the process and leaving it running.
  handleSignals(cleanups);
  try {
    const port = parsePort(process.env.PORT);
    const maxInstances = positive('--instances', values.instances);
    const idleSeconds = positive('--idle-seconds', values['idle-seconds']);
    await ensureLayerFonts();
    await ensureChromiumUnpacked();
    // The development signer and its timestamp authority, unless --param names signers of its own.
    const params = runnerParams(values.param ?? []);
    const signing = params.signers === undefined ? await startDevSigning() : undefined;
    if (signing) {
      cleanups.unshift(() => signing.stop());
      // What --param gives (another timestampUrl) wins over the development set-up.
      Object.assign(params, { ...signing.params, ...params });
    }
    const local = await startLocalAws({
      file: values.config,
      stage: values.stage,
      region: values.region,
      params,
      endpoint: values.endpoint,
      // The soak's setting: AWS's storage measured apart from the service.
      emulatorsApart: process.env.LOCAL_EMULATORS_APART === '1',
    });
    cleanups.unshift(() => local.stop());
    reportSetup(local);

    const { service } = local;
    const tables = tableNames(local);
    // The runner's own clients (tokens, queue pollers); the functions get their environment from environmentOf.
    Object.assign(process.env, emulatorEnvironment(local.endpoints, service.region));
    const clients = createAwsClients({ region: service.region });
    cleanups.unshift(() => clients.dynamo.destroy());
    const store = createDynamoTokenStore(clients.dynamo, tables.tokens);
    const devToken = process.env.DEV_TOKEN;
    const grants = signing ? { signers: [DEV_SIGNER] } : {};
    const { token, webhookSecret } = await createToken(store, devToken ? { token: devToken, ...grants } : grants).catch((error: Error) => {
      throw devToken ? new Error(`DEV_TOKEN cannot be used: ${error.message}`, { cause: error }) : error;
    });

    const runtime = createLambdaRuntime({
      serviceDir: service.serviceDir,
      region: service.region,
      accountId: LOCAL_ACCOUNT_ID,
      environmentOf: local.environmentOf,
      maxInstances,
      idleMs: idleSeconds * 1000,
      // Lambda's REPORT line per invocation: what it is billed, its post-response phase included.
      logReport: (line) => console.log(line),
    });
    cleanups.unshift(() => runtime.stop());
    // A last resort if the process ends without the cleanups (an uncaught error): no instance, no Chromium outlives it.
    process.on('exit', () => signalAll(runtime.processes(), 'SIGKILL'));
    const { functions, region } = service;
    const api = createHttpApi({ functions, runtime, region, accountId: LOCAL_ACCOUNT_ID, log: (line) => console.log(line) });
    const url = await api.listen(port);
    cleanups.unshift(() => api.close());
    const pollers = await startSqsPollers({
      functions,
      runtime,
      sqs: clients.sqs,
      region,
      maxConcurrency: maxInstances,
      resolveArn: (arn) => local.resources.physical(arn, 'sqs event arn'),
    });
    cleanups.unshift(() => pollers.stop());
    const schedules = startSchedules({ functions, runtime, region, accountId: LOCAL_ACCOUNT_ID });
    cleanups.unshift(() => schedules.stop());

    const stackFile = devStackFile();
    writeDevStack(
      {
        pid: process.pid,
        url,
        port: Number(new URL(url).port),
        region,
        stage: service.stage,
        endpoints: local.endpoints,
        tables,
        startedAt: new Date().toISOString(),
      },
      stackFile,
    );
    process.on('exit', () => removeDevStack(process.pid, stackFile));

    // The first two lines are a stable interface: tests and scripts parse them.
    console.log(`DocRender API listening on ${url}`);
    console.log(`Token: ${token}`);
    console.log(`Webhook signing secret: ${webhookSecret}`);
    console.log(`Docs: ${url}/docs`);
    console.log(`Studio: ${url}/`);
    if (signing) {
      console.log(
        `Signer "${DEV_SIGNER}" (pdf.signature, B-B to B-LTA): a development CA ${signing.created ? 'made now' : 'kept'} in ${signing.folder}, ` +
          `NOT TRUSTED by anyone (a validator must be given its ca.cert.pem); its CRL served at ${signing.crlUrl}`,
      );
    }
    console.log('');
    console.log('Try it:');
    console.log(
      `  curl -X POST ${url}/v1/pdf -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' ` +
        `-d '{"page":{"url":"https://example.com"}}' -o example.pdf`,
    );
    const extras = [
      pollers.sources.length ? `${pollers.sources.length} queue consumer(s)` : '',
      functions.some((fn) => fn.schedules.length) ? `invoke scheduled functions with POST ${url}/__local/invoke/<function>` : '',
    ].filter(Boolean);
    console.log(
      `Ready in ${Math.round(performance.now())} ms: ${functions.length} functions (each started on its first invocation)` +
        `${extras.length ? `, ${extras.join(', ')}` : ''}. Ctrl+C stops.`,
    );
    for (const skipped of schedules.skipped) console.error(`Schedule not run locally (invoke it by hand): ${skipped}`);
  } catch (error) {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch {
        // Already failing: the first error is the one worth reporting.
      }
    }
    process.exitCode = 1;
  }
}

/**
 * The Chromium layer's fonts and fontconfig folder, written by the same code
 * as the deployed layer when missing (a fresh clone) or made from another
 * catalogue or other font packages than the ones installed (a clone that
 * pulled new faces): the rendering functions see exactly the layer's fonts,
 * as on Lambda. One npm start builds them at a time (a lock file naming its
 * pid; another waits for it, or takes over from one that died), built aside
 * and renamed into place, the stamp written last.
 */
async function ensureLayerFonts(): Promise<void> {
  const digest = layerFontsDigest();
  const current = () => layerFontsCurrent(CHROMIUM_LAYER_DIR, digest);
  if (current()) return;
  const release = await acquireFileLock(join(CHROMIUM_LAYER_DIR, '.fonts-lock'), {
    waiting: (owner) => console.error(`Waiting for another npm start (pid ${owner}) to build the Chromium layer fonts…`),
  });
  try {
    if (current()) return;
    console.error('Building the Chromium layer fonts (npm run build:layer does the whole layer)…');
    const temporary = mkdtempSync(join(CHROMIUM_LAYER_DIR, '.fonts-'));
    try {
      await writeLayerFonts(join(temporary, 'fonts'));
      await writeLayerFontconfig(join(temporary, 'fontconfig'), join(temporary, 'fonts'));
      rmSync(layerFontsStamp(CHROMIUM_LAYER_DIR), { force: true });
      for (const name of ['fonts', 'fontconfig']) {
        rmSync(join(CHROMIUM_LAYER_DIR, name), { recursive: true, force: true });
        renameSync(join(temporary, name), join(CHROMIUM_LAYER_DIR, name));
      }
      writeFileSync(layerFontsStamp(CHROMIUM_LAYER_DIR), digest);
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  } finally {
    release();
  }
}

/**
 * Unpacks the bundled Chromium into the temporary directory the instances
 * share, once, before any of them starts: on Lambda every instance has a
 * /tmp of its own, here they share one, and two instances cold-starting at
 * once (a first /v1/pdf and /v1/screenshot together) would both unpack into
 * it and one would fail to launch a half-written binary.
 */
async function ensureChromiumUnpacked(): Promise<void> {
  if (process.env.CHROMIUM_PATH) return;
  const { default: chromium } = await import('@sparticuz/chromium');
  await chromium.executablePath();
}

/** The tables the token CLI needs, as the functions see them. */
function tableNames(local: LocalAws): { tokens: string; usage: string } {
  const fn = local.service.functions.find((candidate) => candidate.environment.TOKENS_TABLE !== undefined);
  const environment = fn ? local.environmentOf(fn) : {};
  if (!environment.TOKENS_TABLE) throw new Error('no function has TOKENS_TABLE in its environment');
  return { tokens: environment.TOKENS_TABLE, usage: environment.USAGE_TABLE ?? '' };
}

function positive(option: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`${option} must be a whole number of at least 1, got "${value}"`);
  return number;
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0 to 65535, got "${value}"`);
  return port;
}

function reportSetup(local: LocalAws): void {
  for (const { logicalId, type } of local.resources.skipped) console.error(`Not emulated locally: ${logicalId} (${type})`);
  for (const warning of local.resources.warnings) console.error(`Warning: ${warning}`);
}

function handleSignals(cleanups: (() => Promise<unknown> | unknown)[]): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS).unref();
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`while stopping: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGHUP', () => void stop());
  // Whoever started npm start is gone (a closed terminal, a killed test runner, npm itself killed outright):
  // stop too, taking every instance along.
  watchLaunchers(() => void stop(), PARENT_CHECK_MS);
  process.on('unhandledRejection', (reason) => {
    console.error(`Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
}

await main();
