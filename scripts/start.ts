/**
 * `npm start`: the whole API on http://127.0.0.1:3000 (PORT overrides, 0 picks
 * a free port) on embedded AWS emulators, provisioned from serverless.yml.
 * Prints the base URL and a ready-to-use token (DEV_TOKEN registers its value).
 */
import { parseArgs } from 'node:util';
import { createAwsClients } from '../lib/aws/clients.js';
import { createDynamoTokenStore } from '../lib/aws/dynamo-token-store.js';
import { loadConfig } from '../lib/config.js';
import { removeDevStack, writeDevStack } from '../lib/local/dev-stack.js';
import { createHttpApi } from '../lib/local/http-api.js';
import { createLambdaRuntime, type LambdaRuntime } from '../lib/local/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../lib/local/local-aws.js';
import { startSchedules } from '../lib/local/schedules.js';
import { listFunctions, type LocalFunction } from '../lib/local/serverless-config.js';
import { startSqsPollers } from '../lib/local/sqs-poller.js';
import { createToken } from '../lib/tokens/tokens.js';

const USAGE = `Usage: npm start [-- --config serverless.yml] [--stage dev] [--region us-east-1] [--endpoint URL] [--no-warm]

Serves the API locally on embedded DynamoDB/S3/SQS emulators.
  --endpoint  use the AWS-compatible services at URL (LocalStack: http://localhost:4566) instead
  PORT        port on 127.0.0.1 (default 3000, 0 picks a free one)
  DEV_TOKEN   register this exact value as an active, unlimited token
  --no-warm   do not import the functions (and launch Chromium) right after start
`;

/** How long SIGINT/SIGTERM may take before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 10_000;

function parseOptions() {
  try {
    return parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        stage: { type: 'string' },
        region: { type: 'string' },
        endpoint: { type: 'string' },
        warm: { type: 'boolean', default: true },
        help: { type: 'boolean', short: 'h' },
      },
      allowNegative: true,
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const values = parseOptions();
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  // Undone in order on failure or on SIGINT/SIGTERM: last started, first stopped.
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    const port = parsePort(process.env.PORT);
    const local = await startLocalAws({
      serverlessFile: values.config,
      stage: values.stage,
      region: values.region,
      endpoint: values.endpoint,
    });
    cleanups.unshift(() => local.stop());
    reportSetup(local);

    const config = loadConfig();
    const clients = createAwsClients(config);
    const store = createDynamoTokenStore(clients.dynamo, config.tables.tokens);
    const devToken = process.env.DEV_TOKEN;
    const { token, webhookSecret } = await createToken(store, devToken ? { token: devToken } : {}).catch((error: Error) => {
      throw devToken ? new Error(`DEV_TOKEN cannot be used: ${error.message}`, { cause: error }) : error;
    });

    const { region } = local.serverless.config.provider;
    const functions = listFunctions(local.serverless);
    const runtime = createLambdaRuntime({ serviceDir: local.serverless.serviceDir, region, accountId: LOCAL_ACCOUNT_ID });
    cleanups.unshift(() => shutdownModules(runtime));
    const api = createHttpApi({ functions, runtime, region, accountId: LOCAL_ACCOUNT_ID, log: (line) => console.log(line) });
    const url = await api.listen(port);
    cleanups.unshift(() => api.close());
    const pollers = await startSqsPollers({
      functions,
      runtime,
      sqs: clients.sqs,
      region,
      resolveArn: (arn) => local.provisioned.resolve(arn, 'sqs event arn'),
    });
    cleanups.unshift(() => pollers.stop());
    const schedules = startSchedules({ functions, runtime, region, accountId: LOCAL_ACCOUNT_ID });
    cleanups.unshift(() => schedules.stop());

    writeDevStack({
      pid: process.pid,
      url,
      region,
      stage: local.serverless.config.provider.stage,
      endpoints: local.endpoints,
      tables: { tokens: config.tables.tokens },
      startedAt: new Date().toISOString(),
    });
    process.on('exit', () => removeDevStack(process.pid));

    // The first two lines are a stable interface: tests and scripts parse them.
    console.log(`DocRender API listening on ${url}`);
    console.log(`Token: ${token}`);
    console.log(`Webhook signing secret: ${webhookSecret}`);
    console.log(`Docs: ${url}/docs`);
    console.log(`Studio: ${url}/`);
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
      `Ready in ${Math.round(performance.now())} ms: ${functions.length} functions` +
        `${extras.length ? `, ${extras.join(', ')}` : ''}. Ctrl+C stops.`,
    );
    for (const skipped of schedules.skipped) console.error(`Schedule not run locally (invoke it by hand): ${skipped}`);

    if (values.warm) void warm(functions, runtime);
    handleSignals(cleanups);
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

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be 0 to 65535, got "${value}"`);
  return port;
}

function reportSetup(local: LocalAws): void {
  for (const { logicalId, type } of local.provisioned.skipped) console.error(`Not emulated locally: ${logicalId} (${type})`);
  for (const warning of local.provisioned.warnings) console.error(`Warning: ${warning}`);
  for (const name of local.overridden) console.error(`Using ${name} from your shell instead of serverless.yml`);
  for (const name of local.conflicts) {
    console.error(`Warning: functions set ${name} to different values; locally they share the last one`);
  }
}

/**
 * Imports every function module in the background (their cold start, e.g.
 * launching Chromium) and calls an exported `warm()`, one function at a time
 * so the first requests are not slowed by all of them at once.
 */
async function warm(functions: LocalFunction[], runtime: LambdaRuntime): Promise<void> {
  for (const fn of functions) {
    try {
      const module = await runtime.load(fn);
      if (typeof module.warm === 'function') await (module.warm as () => unknown)();
    } catch (error) {
      console.error(`[${fn.key}] warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Calls `shutdown()` on each loaded module that exports one (e.g. to close the browser). */
async function shutdownModules(runtime: LambdaRuntime): Promise<void> {
  for (const module of runtime.loadedModules()) {
    if (typeof module.shutdown !== 'function') continue;
    try {
      await (module.shutdown as () => unknown)();
    } catch (error) {
      console.error(`shutdown hook failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
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
  // A handler's stray rejection must not take the whole local API down.
  process.on('unhandledRejection', (reason) => {
    console.error(`Unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
}

await main();
