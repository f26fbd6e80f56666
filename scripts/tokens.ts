/**
 * `npm run -s tokens -- <command>`: issue and (de)activate API tokens, change
 * their plan, quota and rate, and show their usage.
 * Talks to the running `npm start` when there is one and no AWS endpoint is
 * configured; otherwise to AWS (or LocalStack) with the usual credentials.
 */
import { parseArgs } from 'node:util';
import { createAwsClients } from '../lib/aws/clients.js';
import { endpointOverride } from '../lib/aws/endpoint-override.js';
import { createDynamoTokenStore } from '../lib/aws/dynamo-token-store.js';
import { createDynamoUsageStore } from '../lib/aws/dynamo-usage-store.js';
import { ServiceError } from '../lib/errors.js';
import { liveDevStacks, type DevStack } from './local-runtime/dev-stack.js';
import { emulatorEnvironment } from './local-runtime/local-endpoints.js';
import { resolveService } from './local-runtime/service-definition.js';
import { usageReport, type UsageReport } from '../lib/quota/usage-report.js';
import { DEFAULT_PLAN, isPlanName, planOf, PLANS, type PlanName } from '../lib/tokens/plans.js';
import type { TokenRecord } from '../lib/tokens/token-store.js';
import { createToken, hashToken, setTokenActive, setTokenTerms } from '../lib/tokens/tokens.js';

const USAGE = `Usage: npm run -s tokens -- <command> [options]

Commands:
  create [--plan NAME] [--limit N | --unlimited] [--rate N] [--signers A,B] [--inactive] [--json]
                      issue a token and print it alone on stdout
                      (--json: {"token","accountId","webhookSecret"})
                      --plan       start from a plan's quota and rate (default: ${DEFAULT_PLAN})
                      --limit      monthly render quota instead of the plan's
                      --unlimited  no monthly quota
                      --rate       requests per second instead of the plan's
                      --signers    signers (the deployment's SIGNERS) the token may
                                   name in pdf.signature.signer; default none
  set [--plan NAME] [--limit N | --unlimited] [--rate N] [--signers A,B] [--json] TOKEN
                      change a token's plan, quota, rate and/or signers (next
                      request on); renders already counted this month stay counted;
                      --signers replaces the signers granted (--signers "" grants none)
  usage [--json] TOKEN
                      the token's plan, quota, renders used this month and rate
                      (--json: the same object as GET /v1/usage, plus "active")
  show [--json] TOKEN the token's account id, plan, state and webhook signing secret
                      (--json: {"accountId","plan","active","monthlyLimit",
                      "ratePerSecond","webhookSecret","createdAt","signers"})
  deactivate TOKEN    switch the token's subscription off (403)
  activate TOKEN      switch it back on

Plans (renders per month, requests per second):
${planTable()}
  custom              any other combination

Where tokens live:
  - the running \`npm start\` (each records itself in .local/stacks/), when no
    AWS_ENDPOINT_URL* variable is set and neither --stage nor --region is given;
    with several running, the one on PORT (the same environment as its npm start);
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

type Target = { region: string; tables: { tokens: string; usage: string } };

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    options: {
      plan: { type: 'string' },
      limit: { type: 'string' },
      unlimited: { type: 'boolean' },
      rate: { type: 'string' },
      inactive: { type: 'boolean' },
      signers: { type: 'string' },
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
      const store = (await stores(values)).tokens;
      const signers = signerList(values.signers);
      const created = await createToken(store, { ...termOptions(values), active: !values.inactive, ...(signers ? { signers } : {}) });
      process.stdout.write(values.json ? `${JSON.stringify(created)}\n` : `${created.token}\n`);
      return 0;
    }
    case 'set': {
      const token = onlyToken(command, rest);
      if (values.inactive) throw new UsageError('set takes no --inactive: use deactivate');
      const signers = signerList(values.signers);
      const change = { ...termOptions(values), ...(signers ? { signers } : {}) };
      if (Object.keys(change).length === 0) throw new UsageError('set needs --plan, --limit, --unlimited, --rate or --signers');
      const { tokens, usage } = await stores(values);
      const record = await setTokenTerms(tokens, token, change);
      const report = await usageReport(usage, record);
      process.stdout.write(values.json ? `${JSON.stringify({ ...report, active: record.active })}\n` : describeUsage(report, record.active));
      return 0;
    }
    case 'usage': {
      const token = onlyToken(command, rest);
      if (values.plan !== undefined || values.limit !== undefined || values.unlimited || values.rate !== undefined || values.inactive) {
        throw new UsageError('usage takes no --plan, --limit, --unlimited, --rate or --inactive');
      }
      const { tokens, usage } = await stores(values);
      const record = await tokens.findByHash(hashToken(token));
      if (!record) throw new Error('Unknown token');
      const report = await usageReport(usage, record);
      process.stdout.write(values.json ? `${JSON.stringify({ ...report, active: record.active })}\n` : describeUsage(report, record.active));
      return 0;
    }
    case 'show': {
      const token = onlyToken(command, rest);
      if (values.plan !== undefined || values.limit !== undefined || values.unlimited || values.rate !== undefined || values.inactive) {
        throw new UsageError('show takes no --plan, --limit, --unlimited, --rate or --inactive');
      }
      const record = await (await stores(values)).tokens.findByHash(hashToken(token));
      if (!record) throw new Error('Unknown token');
      process.stdout.write(values.json ? `${JSON.stringify(showToken(record))}\n` : describeToken(record));
      return 0;
    }
    case 'activate':
    case 'deactivate': {
      const token = onlyToken(command, rest);
      if (values.plan !== undefined || values.limit !== undefined || values.unlimited || values.rate !== undefined || values.inactive || values.json) {
        throw new UsageError(`${command} takes no --plan, --limit, --unlimited, --rate, --inactive or --json`);
      }
      await setTokenActive((await stores(values)).tokens, token, command === 'activate');
      process.stdout.write(`Token ${command}d\n`);
      return 0;
    }
    case undefined:
      throw new UsageError('missing command');
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function stores(values: { stage?: string; region?: string }) {
  const target = await resolveTarget(values);
  const clients = createAwsClients({ region: target.region });
  return {
    tokens: createDynamoTokenStore(clients.dynamo, target.tables.tokens),
    usage: createDynamoUsageStore(clients.dynamo, { tokens: target.tables.tokens, usage: target.tables.usage }),
  };
}

/** `--plan`, `--limit`, `--unlimited` and `--rate` as the options of createToken / setTokenTerms. */
function termOptions(values: { plan?: string; limit?: string; unlimited?: boolean; rate?: string }) {
  if (values.limit !== undefined && values.unlimited) throw new UsageError('give either --limit or --unlimited, not both');
  if (values.plan !== undefined && !isPlanName(values.plan)) {
    throw new UsageError(`--plan must be one of ${Object.keys(PLANS).join(', ')}, got "${values.plan}"`);
  }
  return {
    ...(values.plan !== undefined ? { plan: values.plan as PlanName } : {}),
    ...(values.limit !== undefined ? { limit: wholeNumber('--limit', values.limit) } : {}),
    ...(values.unlimited ? { limit: null } : {}),
    ...(values.rate !== undefined ? { rate: positiveNumber('--rate', values.rate) } : {}),
  };
}

/** `--signers A,B` as names ("" is none); undefined when not given. */
function signerList(value: string | undefined): string[] | undefined {
  return value?.split(',').map((name) => name.trim()).filter(Boolean);
}

function onlyToken(command: string, rest: string[]): string {
  const [token, ...extra] = rest;
  if (!token || extra.length > 0) throw new UsageError(`${command} takes exactly one TOKEN`);
  return token;
}

/** The usage report for a person at a terminal. */
function describeUsage(report: UsageReport, active: boolean): string {
  const { quota } = report;
  const month = quota.period.start.slice(0, 7);
  const spent =
    quota.limit === null
      ? `${quota.used} renders this month (${month}), no monthly quota`
      : `${quota.used} of ${quota.limit} renders used this month (${month}), ${quota.remaining} left; renews ${quota.period.end}`;
  return [
    `Plan:    ${report.plan}`,
    `Active:  ${active ? 'yes' : 'no (requests answer 403)'}`,
    `Quota:   ${spent}`,
    `Rate:    ${report.rate.perSecond} requests per second`,
    '',
  ].join('\n');
}

/** What `show` tells about a token: never its hash, which is a stand-in for the token itself. */
function showToken(record: TokenRecord) {
  return {
    accountId: record.accountId,
    plan: planOf({ monthlyLimit: record.monthlyLimit, ratePerSecond: record.ratePerSecond }),
    active: record.active,
    monthlyLimit: record.monthlyLimit,
    ratePerSecond: record.ratePerSecond,
    webhookSecret: record.webhookSecret,
    createdAt: record.createdAt,
    signers: record.signers ?? [],
  };
}

/** `show` for a person at a terminal. */
function describeToken(record: TokenRecord): string {
  const shown = showToken(record);
  return [
    `Account:                ${shown.accountId}`,
    `Plan:                   ${shown.plan} (${shown.monthlyLimit ?? 'unlimited'} renders per month, ${shown.ratePerSecond}/s)`,
    `Active:                 ${shown.active ? 'yes' : 'no (requests answer 403)'}`,
    `Webhook signing secret: ${shown.webhookSecret}`,
    `Created:                ${shown.createdAt}`,
    `Signers:                ${shown.signers.length > 0 ? shown.signers.join(', ') : 'none'}`,
    '',
  ].join('\n');
}

function planTable(): string {
  return Object.entries(PLANS)
    .map(([name, terms]) => `  ${name.padEnd(20)}${String(terms.monthlyLimit ?? 'unlimited').padEnd(12)}${terms.ratePerSecond}/s`)
    .join('\n');
}

/**
 * The running `npm start` when nothing points elsewhere; else AWS or the
 * configured endpoint, with the table from TOKENS_TABLE or serverless.yml.
 */
async function resolveTarget(values: { stage?: string; region?: string }): Promise<Target> {
  const explicitAws = values.stage !== undefined || values.region !== undefined;
  const overridden = endpointOverride(process.env, 'DYNAMODB') !== undefined;
  if (!explicitAws && !overridden) {
    const stack = pickStack(liveDevStacks());
    if (stack) {
      Object.assign(process.env, emulatorEnvironment(stack.endpoints, stack.region));
      return { region: stack.region, tables: stack.tables };
    }
  }
  if (overridden && !process.env.AWS_ACCESS_KEY_ID && !process.env.AWS_PROFILE) {
    // Emulators such as LocalStack accept any credentials but the SDK wants some.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  }
  // The shell's table names count only for the default stage: --stage names another deployment.
  const fromShell = (name: string) => (values.stage === undefined ? process.env[name] : undefined);
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (fromShell('TOKENS_TABLE') && fromShell('USAGE_TABLE') && region) {
    return { region, tables: { tokens: fromShell('TOKENS_TABLE') as string, usage: fromShell('USAGE_TABLE') as string } };
  }
  // What osls resolves serverless.yml to for that stage: the table names the deployed functions use.
  const service = await resolveService({ stage: values.stage, region });
  const environment = service.functions.find((fn) => fn.environment.TOKENS_TABLE !== undefined)?.environment ?? {};
  return {
    region: service.region,
    tables: {
      tokens: fromShell('TOKENS_TABLE') ?? tableOf(service.resources, environment.TOKENS_TABLE, 'TOKENS_TABLE'),
      usage: fromShell('USAGE_TABLE') ?? tableOf(service.resources, environment.USAGE_TABLE, 'USAGE_TABLE'),
    },
  };
}

/**
 * The running npm start to talk to: the only one, or the one on PORT. With
 * several and no PORT, none is guessed: the message lists them.
 */
function pickStack(stacks: DevStack[]): DevStack | undefined {
  if (stacks.length <= 1) return stacks[0];
  const port = process.env.PORT;
  const chosen = port ? stacks.find((stack) => String(stack.port) === port) : undefined;
  if (chosen) return chosen;
  const list = stacks.map((stack) => `  PORT=${stack.port}  ${stack.url}  (pid ${stack.pid}, since ${stack.startedAt})`).join('\n');
  throw new Error(`${stacks.length} npm start are running; say which with PORT=<port> npm run -s tokens -- …:\n${list}`);
}

/** The table a function's variable names: text, or `Ref` of a table with a declared name. */
function tableOf(resources: Record<string, { Properties?: Record<string, unknown> }>, value: unknown, variable: string): string {
  if (typeof value === 'string' && value !== '') return value;
  const logicalId = (value as { Ref?: unknown } | undefined)?.Ref;
  const name = typeof logicalId === 'string' ? resources[logicalId]?.Properties?.TableName : undefined;
  if (typeof name === 'string') return name;
  throw new Error(`Cannot tell ${variable} from serverless.yml: set ${variable}`);
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
