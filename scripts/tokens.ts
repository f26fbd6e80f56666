/**
 * `npm run -s tokens -- <command>`: issue and (de)activate API tokens.
 * Talks to the running `npm start` when there is one and no AWS endpoint is
 * configured; otherwise to AWS (or LocalStack) with the usual credentials.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createAwsClients, endpointOverride } from '../lib/aws/clients.js';
import { createDynamoTokenStore } from '../lib/aws/dynamo-token-store.js';
import { ServiceError } from '../lib/errors.js';
import { readLiveDevStack } from '../lib/local/dev-stack.js';
import { emulatorEnvironment } from '../lib/local/local-endpoints.js';
import {
  createVariableResolver,
  parseServerlessYaml,
  PROJECT_SERVERLESS_FILE,
} from '../lib/local/serverless-config.js';
import { createToken, setTokenActive } from '../lib/tokens/tokens.js';

const USAGE = `Usage: npm run -s tokens -- <command> [options]

Commands:
  create [--limit N] [--rate N] [--inactive] [--json]
                      issue a token and print it alone on stdout
                      (--json: {"token","accountId","webhookSecret"})
                      --limit  monthly render quota (default: unlimited)
                      --rate   requests per second (default: 10)
  deactivate TOKEN    switch the token's subscription off (403)
  activate TOKEN      switch it back on

Where tokens live:
  - the running \`npm start\` (found through .local/dev-stack.json), when no
    AWS_ENDPOINT_URL* variable is set and neither --stage nor --region is given;
  - otherwise AWS with the usual credential chain (or the endpoint in
    AWS_ENDPOINT_URL*, e.g. LocalStack), in table TOKENS_TABLE, or the one
    serverless.yml names for --stage (default dev).

Options:
  --stage NAME        deployed stage whose tokens table to use
  --region NAME       AWS region (default: AWS_REGION, then serverless.yml)
  -h, --help          show this help
`;

/** Exit codes: 1 for a failed operation, 2 for a wrong command line. */
class UsageError extends Error {}

type Target = { region: string; table: string };

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: {
      limit: { type: 'string' },
      rate: { type: 'string' },
      inactive: { type: 'boolean' },
      json: { type: 'boolean' },
      stage: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }

  switch (command) {
    case 'create': {
      if (rest.length > 0) throw new UsageError(`create takes no arguments, got "${rest.join(' ')}"`);
      const limit = values.limit === undefined ? null : wholeNumber('--limit', values.limit);
      const rate = values.rate === undefined ? undefined : positiveNumber('--rate', values.rate);
      const store = tokenStore(values);
      const created = await createToken(store, { limit, rate, active: !values.inactive });
      process.stdout.write(values.json ? `${JSON.stringify(created)}\n` : `${created.token}\n`);
      return 0;
    }
    case 'activate':
    case 'deactivate': {
      const [token, ...extra] = rest;
      if (!token || extra.length > 0) throw new UsageError(`${command} takes exactly one TOKEN`);
      if (values.limit !== undefined || values.rate !== undefined || values.inactive || values.json) {
        throw new UsageError(`${command} takes no --limit, --rate, --inactive or --json`);
      }
      await setTokenActive(tokenStore(values), token, command === 'activate');
      process.stdout.write(`Token ${command}d\n`);
      return 0;
    }
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function tokenStore(values: { stage?: string; region?: string }) {
  const target = resolveTarget(values);
  const clients = createAwsClients({ region: target.region });
  return createDynamoTokenStore(clients.dynamo, target.table);
}

/**
 * The running `npm start` when nothing points elsewhere; else AWS or the
 * configured endpoint, with the table from TOKENS_TABLE or serverless.yml.
 */
function resolveTarget(values: { stage?: string; region?: string }): Target {
  const explicitAws = values.stage !== undefined || values.region !== undefined;
  const overridden = endpointOverride(process.env, 'DYNAMODB') !== undefined;
  if (!explicitAws && !overridden) {
    const stack = readLiveDevStack();
    if (stack) {
      Object.assign(process.env, emulatorEnvironment(stack.endpoints, stack.region));
      return { region: stack.region, table: stack.tables.tokens };
    }
  }
  if (overridden && !process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE) {
    // Emulators such as LocalStack accept any credentials but the SDK wants some.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  }
  const resolver = createVariableResolver(parseServerlessYaml(readFileSync(PROJECT_SERVERLESS_FILE, 'utf8')), {
    stage: values.stage,
    region: values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION,
  });
  const table = (values.stage === undefined ? process.env.TOKENS_TABLE : undefined) ?? tokensTableOf(resolver);
  return { region: resolver.region(), table };
}

/** The tokens table serverless.yml gives the functions, e.g. `docrender-prod-tokens`. */
function tokensTableOf(resolver: ReturnType<typeof createVariableResolver>): string {
  const value = resolver.resolvePath('provider.environment.TOKENS_TABLE');
  if (typeof value === 'string') return value;
  // `!Ref TokensTable`: the table's declared name.
  const logicalId = (value as { Ref?: unknown } | undefined)?.Ref;
  const name = typeof logicalId === 'string' ? resolver.resolvePath(`resources.Resources.${logicalId}.Properties.TableName`) : undefined;
  if (typeof name === 'string') return name;
  throw new Error('Cannot tell the tokens table from serverless.yml: set TOKENS_TABLE');
}

function wholeNumber(option: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${option} must be a whole number, got "${text}"`);
  return Number(text);
}

function positiveNumber(option: string, text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) throw new UsageError(`${option} must be a number above 0, got "${text}"`);
  return Number(text);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error instanceof ServiceError && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

try {
  process.exitCode = await main();
} catch (error) {
  const usage = error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`tokens: ${describe(error)}\n`);
  if (usage) process.stderr.write('Run `npm run -s tokens -- --help` for usage.\n');
  process.exitCode = usage ? 2 : 1;
}
