import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { packageOffline, pinnedAwsEnvironment, SERVERLESS_CLI, type PackageResult } from '../../scripts/package.js';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createDynamoTokenStore } from '../../lib/aws/dynamo-token-store.js';
import { createToken } from '../../lib/tokens/tokens.js';
import { withLocalAws } from '../helpers/emulators.js';
import { extractZip, listZip, readZipEntry } from './zip-archive.js';
import { lintTemplate } from './cfn-lint.js';
import { LAYER_EMOJI, LAYER_FONTS, layerFileName } from '../../lib/fonts/layer-fonts.js';
import { layerFontsCacheKey } from '../../scripts/layer-fontconfig.js';

/**
 * `npm run package -- --stage prod`, run once with no AWS credentials and no
 * network, then the CloudFormation template and the zips it produced are
 * checked for what a deployment must hold. Packaging runs in a copy of the
 * service in a temporary folder, so it never races a developer's own
 * `.serverless/`, `.esbuild/` or layer build in the work tree.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const MB = 1024 * 1024;
/** Lambda: function code plus all its layers, unzipped. */
const UNZIPPED_LIMIT_BYTES = 250 * MB;
/** Lambda: a zip uploaded directly (serverless uploads through S3, but a function zip this size is a smell). */
const DIRECT_UPLOAD_LIMIT_BYTES = 50 * MB;
/** API Gateway HTTP APIs give up on an integration after 30 s. */
const API_GATEWAY_LIMIT_SECONDS = 30;
/** RENDER_TIMEOUT_MS's default (lib/config.ts): the render budget a rendering HTTP function must fit. */
const RENDER_BUDGET_SECONDS = 25;

/**
 * Each function's code, unzipped and zipped, at most: its own import closure
 * only (scripts/serverless-import-closure.cjs). Before, every zip held every
 * chunk of every function and its source map: 41–46 MB unzipped, 12–15 MB zipped.
 */
const CODE_BOUNDS = {
  // Puppeteer, the PDF library, Handlebars, the finishing stages and the ad-block engines (3 MB): 6.0 MB / 4.2 MB today.
  renderer: { unzipped: 8 * MB, zipped: 5 * MB },
  // openapi serves Scalar's bundle, studio its built page: 4.6 MB / 1.5 MB at most today.
  'file server': { unzipped: 6 * MB, zipped: 2 * MB },
  // Everything else: the middy stack, valibot, the AWS SDK clients it calls: 1.6 MB / 0.6 MB at most today.
  api: { unzipped: 2 * MB, zipped: 1 * MB },
};
const FILE_SERVERS = ['openapi', 'studio'];
/**
 * The async submitters share lib/api/render-endpoints.ts with the renderers; a merge part
 * that is a PDF is read at the edge (lib/plan/merge-input.ts), so the PDF library is a
 * chunk of theirs, loaded on demand by pdf-merge-async only.
 */
const PDF_AT_THE_EDGE = ['pdf-async', 'screenshot-async', 'template-render-async', 'pdf-merge-async', 'pdf-process-async', 'batch-create'];
/** Functions that read PDFs without rendering: a batch's outputs step writes its merged PDF; the batch items' dead-letter consumer closes a batch whose last item it gives up. */
const PDF_READERS = ['batch-items-dead-letter', 'batch-outputs-build'];

const RENDERERS = [
  'pdf',
  'screenshot',
  'template-render',
  'pdf-sync',
  'screenshot-sync',
  'template-render-sync',
  'pdf-merge',
  'pdf-merge-sync',
  'pdf-process',
  'pdf-process-sync',
  'jobs-consume',
  'batch-items-consume',
];

const ROUTES: Record<string, string> = {
  'POST /v1/pdf': 'pdf',
  'POST /v1/pdf/sync': 'pdf-sync',
  'POST /v1/pdf/async': 'pdf-async',
  'POST /v1/screenshot': 'screenshot',
  'POST /v1/screenshot/sync': 'screenshot-sync',
  'POST /v1/screenshot/async': 'screenshot-async',
  'POST /v1/template/{id}': 'template-render',
  'POST /v1/template/{id}/sync': 'template-render-sync',
  'POST /v1/template/{id}/async': 'template-render-async',
  'POST /v1/pdf/merge': 'pdf-merge',
  'POST /v1/pdf/merge/sync': 'pdf-merge-sync',
  'POST /v1/pdf/merge/async': 'pdf-merge-async',
  'POST /v1/pdf/process': 'pdf-process',
  'POST /v1/pdf/process/sync': 'pdf-process-sync',
  'POST /v1/pdf/process/async': 'pdf-process-async',
  'POST /v1/templates': 'template-create',
  'GET /v1/templates': 'template-list',
  'GET /v1/templates/{id}': 'template-get',
  'PUT /v1/templates/{id}': 'template-update',
  'POST /v1/templates/{id}': 'template-update',
  'DELETE /v1/templates/{id}': 'template-delete',
  'GET /v1/jobs/{id}': 'job-get',
  'POST /v1/batches': 'batch-create',
  'GET /v1/batches/{id}': 'batch-get',
  'DELETE /v1/batches/{id}': 'batch-cancel',
  'POST /v1/fonts': 'fonts-create',
  'GET /v1/fonts': 'fonts-list',
  'GET /v1/fonts/{id}': 'fonts-get',
  'DELETE /v1/fonts/{id}': 'fonts-delete',
  'GET /v1/devices': 'devices',
  'GET /v1/usage': 'usage',
  'GET /v1/openapi.json': 'openapi',
  'GET /docs': 'openapi',
  'GET /docs/api-reference.js': 'openapi',
  'GET /': 'studio',
  'GET /studio/{file}': 'studio',
};

/** Admission: one conditional write to the token's item (auth, rate, quota), a read to say why on a refusal. */
const AUTH = ['dynamodb:GetItem TokensTable', 'dynamodb:UpdateItem TokensTable'];
/** A render's unit given back: marked once in the usage table, then returned on the token's item. */
const REFUND = ['dynamodb:UpdateItem UsageTable'];
/** Carry-over: the month's count the usage table kept before the counters moved onto the token item, read once per token and month. */
const CARRY_OVER = ['dynamodb:GetItem UsageTable'];
/** What a render adds to the admission: its units given back, the month's count carried over. */
const SPEND = [...AUTH, ...REFUND, ...CARRY_OVER];
const STORE_FILES = ['s3:PutObject FilesBucket/files/*', 's3:GetObject FilesBucket/files/*'];
/** A render uses its account's fonts (issue 46): their records listed, the files it has not cached read. */
const USE_FONTS = ['dynamodb:Query FontsTable', 's3:GetObject FilesBucket/fonts/*'];
const READ_TEMPLATE = ['dynamodb:GetItem TemplatesTable', 's3:GetObject FilesBucket/templates/*'];
const SUBMIT_JOB = [
  'dynamodb:PutItem JobsTable',
  'dynamodb:DeleteItem JobsTable',
  's3:PutObject FilesBucket/job-inputs/*',
  's3:DeleteObject FilesBucket/job-inputs/*',
  'sqs:SendMessage JobsQueue',
];
/**
 * Signing (issue 31): kms:Sign on exactly the keys of the signingKeyArns param, reads of exactly the chains of
 * signingChainParameterArns / signingChainObjectArns and the PKCS#12 secrets of signingSecretArns. Packaged without them, each names a resource of account
 * 000000000000 that cannot exist: nothing is granted.
 */
const SIGN = [
  'kms:Sign arn:aws:kms:us-east-1:000000000000:key/none-configured',
  'ssm:GetParameter arn:aws:ssm:us-east-1:000000000000:parameter/docrender/none-configured',
  's3:GetObject arn:aws:s3:::docrender-none-configured/none',
  'secretsmanager:GetSecretValue arn:aws:secretsmanager:us-east-1:000000000000:secret:docrender-none-configured',
];
const RECEIVE = (queue: string) => [`sqs:ReceiveMessage ${queue}`, `sqs:DeleteMessage ${queue}`, `sqs:GetQueueAttributes ${queue}`];

/** What ends a batch item (both batch consumers): the item and its batch updated, the items read to close it, the manifest stored, the webhook or a retry queued, a unit given back. */
const BATCH_ITEM_END = [
  'dynamodb:GetItem JobsTable',
  'dynamodb:UpdateItem JobsTable',
  'dynamodb:Query JobsTable',
  's3:DeleteObject FilesBucket/job-inputs/*',
  ...STORE_FILES,
  'sqs:SendMessage WebhooksQueue',
  'sqs:SendMessage BatchItemsQueue',
  'sqs:SendMessage BatchOutputsQueue',
  ...REFUND,
  'dynamodb:UpdateItem TokensTable',
];
/**
 * Every AWS action each function may take, on what (logs aside). This is the
 * least-privilege contract: a change here must follow a change in what the
 * code calls, checked against lib/aws/.
 */
const PERMISSIONS: Record<string, string[]> = {
  pdf: [...SPEND, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  screenshot: [...SPEND, ...STORE_FILES, ...USE_FONTS],
  'pdf-sync': [...SPEND, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'screenshot-sync': [...SPEND, ...STORE_FILES, ...USE_FONTS],
  'template-render': [...SPEND, ...READ_TEMPLATE, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'template-render-sync': [...SPEND, ...READ_TEMPLATE, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'pdf-async': [...SPEND, ...SUBMIT_JOB],
  'screenshot-async': [...SPEND, ...SUBMIT_JOB],
  'template-render-async': [...SPEND, ...READ_TEMPLATE, ...SUBMIT_JOB],
  // A merge's template parts are read before anything renders or is queued.
  'pdf-merge': [...SPEND, ...READ_TEMPLATE, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'pdf-merge-sync': [...SPEND, ...READ_TEMPLATE, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'pdf-merge-async': [...SPEND, ...READ_TEMPLATE, ...SUBMIT_JOB],
  'pdf-process': [...SPEND, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'pdf-process-sync': [...SPEND, ...STORE_FILES, ...USE_FONTS, ...SIGN],
  'pdf-process-async': [...SPEND, ...SUBMIT_JOB],
  'job-get': [...AUTH, 'dynamodb:GetItem JobsTable', 's3:GetObject FilesBucket/files/*'],
  'template-create': [...AUTH, 'dynamodb:PutItem TemplatesTable', 's3:PutObject FilesBucket/templates/*'],
  'template-list': [...AUTH, 'dynamodb:Query TemplatesTable/index/byAccount'],
  'template-get': [...AUTH, ...READ_TEMPLATE],
  'template-update': [
    ...AUTH,
    ...READ_TEMPLATE,
    'dynamodb:PutItem TemplatesTable',
    's3:PutObject FilesBucket/templates/*',
    's3:DeleteObject FilesBucket/templates/*',
  ],
  'template-delete': [...AUTH, 'dynamodb:DeleteItem TemplatesTable', 's3:DeleteObject FilesBucket/templates/*'],
  // User fonts (issue 46): a fileUrl is read only from the caller's uploads/, the count read before a font is kept.
  'fonts-create': [...AUTH, 'dynamodb:Query FontsTable', 'dynamodb:PutItem FontsTable', 's3:PutObject FilesBucket/fonts/*', 's3:GetObject FilesBucket/uploads/*', 's3:ListBucket FilesBucket'],
  'fonts-list': [...AUTH, 'dynamodb:Query FontsTable'],
  'fonts-get': [...AUTH, 'dynamodb:GetItem FontsTable'],
  'fonts-delete': [...AUTH, 'dynamodb:DeleteItem FontsTable', 's3:DeleteObject FilesBucket/fonts/*'],
  devices: [...AUTH],
  usage: [...AUTH, ...CARRY_OVER],
  'jobs-consume': [
    ...RECEIVE('JobsQueue'),
    'dynamodb:GetItem JobsTable',
    'dynamodb:UpdateItem JobsTable',
    's3:GetObject FilesBucket/job-inputs/*',
    's3:DeleteObject FilesBucket/job-inputs/*',
    ...STORE_FILES,
    ...USE_FONTS,
    'sqs:SendMessage WebhooksQueue',
    ...REFUND,
    'dynamodb:UpdateItem TokensTable',
    ...SIGN,
  ],
  'jobs-dead-letter': [
    ...RECEIVE('JobsDeadLetterQueue'),
    'dynamodb:GetItem JobsTable',
    'dynamodb:UpdateItem JobsTable',
    's3:DeleteObject FilesBucket/job-inputs/*',
    'sqs:SendMessage WebhooksQueue',
    ...REFUND,
    'dynamodb:UpdateItem TokensTable',
  ],
  'webhooks-deliver': [
    ...RECEIVE('WebhooksQueue'),
    'dynamodb:GetItem JobsTable',
    'dynamodb:UpdateItem JobsTable',
    'dynamodb:GetItem TokensTable',
    's3:GetObject FilesBucket/files/*',
    's3:ListBucket FilesBucket',
    'sqs:SendMessage WebhooksQueue',
  ],
  'files-sweep': ['s3:ListBucket FilesBucket', 's3:DeleteObject FilesBucket/files/*'],
  // Batches (issue 36): items are jobs of the jobs table (`<batchId>.<index>`) on a queue of their own; a batch's record sits beside them.
  'batch-create': [
    ...SPEND,
    ...READ_TEMPLATE,
    ...SUBMIT_JOB.filter((grant) => !grant.startsWith('sqs:')),
    'dynamodb:GetItem JobsTable',
    'dynamodb:UpdateItem JobsTable',
    'sqs:SendMessage BatchItemsQueue',
    's3:GetObject FilesBucket/uploads/*',
    's3:ListBucket FilesBucket',
  ],
  'batch-get': [...AUTH, 'dynamodb:GetItem JobsTable', 's3:GetObject FilesBucket/files/*'],
  'batch-cancel': [...AUTH, 'dynamodb:GetItem JobsTable', 'dynamodb:UpdateItem JobsTable', 's3:GetObject FilesBucket/files/*'],
  // It also runs a batch's fan-out steps: the items recorded as jobs (PutItem, their large inputs to job-inputs/).
  'batch-items-consume': [
    ...RECEIVE('BatchItemsQueue'),
    ...BATCH_ITEM_END,
    ...USE_FONTS,
    's3:GetObject FilesBucket/job-inputs/*',
    'dynamodb:PutItem JobsTable',
    's3:PutObject FilesBucket/job-inputs/*',
    ...SIGN,
  ],
  'batch-items-dead-letter': [...RECEIVE('BatchItemsDeadLetterQueue'), ...BATCH_ITEM_END],
  // A finished batch's archive and merged PDF, then its close: the batch's items read, files stored, its webhook queued.
  'batch-outputs-build': [
    ...RECEIVE('BatchOutputsQueue'),
    'dynamodb:GetItem JobsTable',
    'dynamodb:UpdateItem JobsTable',
    'dynamodb:Query JobsTable',
    ...STORE_FILES,
    'sqs:SendMessage WebhooksQueue',
  ],
  openapi: [],
  studio: [],
};

type Resource = { Type: string; Properties: Record<string, any>; Condition?: string; DependsOn?: unknown };
type Template = {
  Resources: Record<string, Resource>;
  Outputs: Record<string, any>;
  Conditions?: Record<string, unknown>;
  Parameters?: Record<string, { Type: string; Default?: string }>;
};
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

/** Evaluates a template condition built from Fn::Equals, Fn::Not, Fn::And, Fn::Or and Condition over plain values and parameters' defaults. */
function conditionHolds(template: Pick<Template, 'Conditions' | 'Parameters'>, name: string): boolean {
  const evaluate = (value: any): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if ('Condition' in value) return conditionHolds(template, String(value.Condition));
    if ('Ref' in value && template.Parameters?.[value.Ref]) return template.Parameters[value.Ref]?.Default;
    if ('Fn::Equals' in value) return JSON.stringify(evaluate(value['Fn::Equals'][0])) === JSON.stringify(evaluate(value['Fn::Equals'][1]));
    if ('Fn::Not' in value) return !evaluate(value['Fn::Not'][0]);
    if ('Fn::And' in value) return (value['Fn::And'] as unknown[]).every((item) => evaluate(item));
    if ('Fn::Or' in value) return (value['Fn::Or'] as unknown[]).some((item) => evaluate(item));
    throw new Error(`condition ${name}: cannot evaluate ${JSON.stringify(value)} offline`);
  };
  const definition = template.Conditions?.[name];
  assert.ok(definition !== undefined, `condition ${name} is declared`);
  return Boolean(evaluate(definition));
}

/** A statement's resource in words: `TokensTable`, `FilesBucket/files/*`, `logs:/aws/lambda/…`, or `*`. */
function describeResource(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  const value = resource as Record<string, any>;
  if (value['Fn::GetAtt']) return String(value['Fn::GetAtt'][0]);
  if (value.Ref) return String(value.Ref);
  if (value['Fn::Join']) {
    const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
    return parts.map(describeResource).join(separator);
  }
  if (value['Fn::Sub']) return `sub:${String(value['Fn::Sub'])}`;
  // A list given as a param (the signing keys and chains): each ARN in it.
  if (value['Fn::Split']) return String((value['Fn::Split'] as [string, string])[1]);
  return JSON.stringify(resource);
}

/**
 * Imports a function's handler (`HANDLER`) in a fresh process and calls it
 * with each event of the JSON file `EVENTS_FILE` in turn, as API Gateway would with `TOKEN`; prints
 * the answers to `ANSWERS_FILE`. The handler's lazy chunks load from its unpacked zip only.
 */
const INVOKE_PROBE = `
  const { handler } = await import(process.env.HANDLER);
  const answers = [];
  const { readFileSync, writeFileSync } = await import('node:fs');
  for (const { method, path, routeKey, params, body } of JSON.parse(readFileSync(process.env.EVENTS_FILE, 'utf8'))) {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const now = new Date();
    const event = {
      version: '2.0', routeKey, rawPath: path, rawQueryString: '',
      headers: { authorization: 'Bearer ' + process.env.TOKEN, ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}) },
      requestContext: { accountId: '000000000000', apiId: 'deploy-test', domainName: 'deploy.test', domainPrefix: 'deploy', http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'deploy-test' }, requestId: 'r-' + answers.length, routeKey, stage: '$default', time: now.toISOString(), timeEpoch: now.getTime() },
      ...(params ? { pathParameters: params } : {}),
      ...(text ? { body: text } : {}),
      isBase64Encoded: false,
    };
    const deadline = Date.now() + 30000;
    const context = { callbackWaitsForEmptyEventLoop: true, functionName: 'deploy-test', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:deploy-test', memoryLimitInMB: '512', awsRequestId: 'r-' + answers.length, logGroupName: '/aws/lambda/deploy-test', logStreamName: 'deploy-test', getRemainingTimeInMillis: () => deadline - Date.now(), done() {}, fail() {}, succeed() {} };
    const answer = await handler(event, context);
    answers.push({ statusCode: answer.statusCode, body: answer.body });
  }
  // A file, not stdout: exiting does not wait for a pipe to take half a megabyte.
  writeFileSync(process.env.ANSWERS_FILE, JSON.stringify(answers));
  process.exit(0);`;

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

describe('npm run package (offline, stage prod)', () => {
  let work: string;
  let out: string;
  let result: PackageResult;
  let template: Template;
  let functions: Record<string, { logicalId: string; resource: Resource }>;

  const statementsOf = (key: string): Statement[] => {
    const roleId = functions[key]?.resource.Properties.Role['Fn::GetAtt'][0] as string;
    const role = template.Resources[roleId] as Resource;
    return role.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement as Statement[]);
  };
  const grantsOf = (key: string): string[] =>
    statementsOf(key)
      .filter((statement) => !asList(statement.Action).every((action) => action.startsWith('logs:')))
      .flatMap((statement) =>
        asList(statement.Action).flatMap((action) => asList(statement.Resource).map((res) => `${action} ${describeResource(res)}`)),
      );
  const resourcesOfType = (type: string) => Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

  before(async () => {
    // Prepare: a copy of the service (the sources, not node_modules) and a place for the package
    work = mkdtempSync(join(tmpdir(), 'docrender-package-'));
    const service = join(work, 'service');
    mkdirSync(service);
    // studio/ holds studio/dist, which `npm ci` built (prepare) and the studio function packages.
    for (const entry of ['serverless.yml', 'package.json', 'tsconfig.json', 'functions', 'lib', 'layers', 'studio', 'scripts/esbuild-plugins.cjs', 'scripts/serverless-import-closure.cjs']) {
      cpSync(join(root, entry), join(service, entry), {
        recursive: true,
        filter: (source) => !['nodejs', 'fonts', 'fontconfig', '.fonts-stamp'].some((built) => source.startsWith(join(root, 'layers', 'chromium', built))),
      });
    }
    symlinkSync(join(root, 'node_modules'), join(service, 'node_modules'), 'dir');
    out = join(work, 'package');
    // Act: no credentials at all in the environment it inherits
    const saved = { ...process.env };
    for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
    try {
      result = await packageOffline({ serviceDir: service, args: ['--stage', 'prod', '--package', out], onOutput: () => undefined });
    } finally {
      Object.assign(process.env, saved);
    }
    assert.equal(result.exitCode, 0, `serverless package failed:\n${result.output}`);
    template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
    functions = Object.fromEntries(
      resourcesOfType('AWS::Lambda::Function').map(([logicalId, resource]) => [
        String(resource.Properties.FunctionName).replace(/^docrender-prod-/, ''),
        { logicalId, resource },
      ]),
    );
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packages without AWS: the only question asked is answered offline', () => {
    // Assess
    assert.deepEqual([...new Set(result.awsCalls)], ['DescribeStacks']);
    assert.ok(existsSync(join(out, 'chromium.zip')), 'the layer zip is there');
    assert.deepEqual(Object.keys(functions).sort(), Object.keys(PERMISSIONS).sort());
  });

  it('routes every endpoint of the API to its function', () => {
    // Prepare
    const integrations = Object.fromEntries(
      resourcesOfType('AWS::ApiGatewayV2::Integration').map(([id, res]) => [id, res.Properties.IntegrationUri['Fn::GetAtt'][0] as string]),
    );
    // Act
    const routes = Object.fromEntries(
      resourcesOfType('AWS::ApiGatewayV2::Route').map(([, res]) => {
        const integration = res.Properties.Target['Fn::Join'][1][1].Ref as string;
        const fn = Object.entries(functions).find(([, f]) => f.logicalId === integrations[integration])?.[0];
        return [res.Properties.RouteKey as string, fn];
      }),
    );
    // Assess
    assert.deepEqual(routes, ROUTES);
  });

  it('answers HTTP requests inside API Gateway’s 30 s, with room for the render budget', () => {
    for (const [route, key] of Object.entries(ROUTES)) {
      const timeout = Number(functions[key]?.resource.Properties.Timeout);
      assert.ok(timeout < API_GATEWAY_LIMIT_SECONDS, `${route}: ${key} times out after ${timeout} s`);
      if (RENDERERS.includes(key)) assert.ok(timeout >= RENDER_BUDGET_SECONDS + 3, `${key}: ${timeout} s leaves no room after a 25 s render`);
    }
    for (const [, integration] of resourcesOfType('AWS::ApiGatewayV2::Integration')) {
      assert.ok(Number(integration.Properties.TimeoutInMillis) <= API_GATEWAY_LIMIT_SECONDS * 1000);
    }
  });

  it('attaches the Chromium layer to the functions that render and to no other', () => {
    // Act
    const withLayer = Object.entries(functions)
      .filter(([, f]) => JSON.stringify(f.resource.Properties.Layers ?? []).includes('ChromiumLambdaLayer'))
      .map(([key]) => key);
    // Assess
    assert.deepEqual(withLayer.sort(), [...RENDERERS].sort());
    for (const key of RENDERERS) {
      assert.ok(Number(functions[key]?.resource.Properties.EphemeralStorage?.Size) >= 1024, `${key}: /tmp too small for the unpacked browser`);
    }
  });

  it('gives every function its own role holding only the actions it calls, on its own resources', () => {
    for (const key of Object.keys(PERMISSIONS)) {
      // Act
      const grants = grantsOf(key);
      // Assess
      assert.deepEqual([...grants].sort(), [...(PERMISSIONS[key] ?? [])].sort(), `permissions of ${key}`);
      const roleIds = Object.values(functions).map((f) => f.resource.Properties.Role['Fn::GetAtt'][0]);
      assert.equal(roleIds.filter((id) => id === functions[key]?.resource.Properties.Role['Fn::GetAtt'][0]).length, 1, `${key} shares its role`);
    }
  });

  it('grants no "*" resource or action, and logs only to the function’s own log group', () => {
    for (const [, role] of resourcesOfType('AWS::IAM::Role')) {
      const statements = role.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement as Statement[]);
      for (const statement of statements) {
        for (const action of asList(statement.Action)) assert.ok(!action.includes('*'), `action ${action} in ${role.Properties.RoleName}`);
        for (const resource of asList(statement.Resource)) {
          const described = describeResource(resource);
          assert.notEqual(described, '*');
          if (described.startsWith('sub:')) assert.match(described, /log-group:\/aws\/lambda\/docrender-prod[-\w*]*:\*/);
        }
      }
    }
  });

  it('lets no function create or delete tokens, and the renderers reach no table beyond admission, refunds, the carry-over read, templates and the account’s fonts', () => {
    // The admission counts on the token's item (UpdateItem); issuing and removing tokens is the admin CLI's alone.
    for (const key of Object.keys(PERMISSIONS)) {
      const onTokens = grantsOf(key).filter((grant) => grant.endsWith(' TokensTable'));
      assert.ok(onTokens.every((grant) => ['dynamodb:GetItem TokensTable', 'dynamodb:UpdateItem TokensTable'].includes(grant)), `${key}: ${onTokens.join(', ')}`);
    }
    const allowed = new Set([
      'dynamodb:GetItem TokensTable',
      'dynamodb:UpdateItem TokensTable',
      'dynamodb:UpdateItem UsageTable',
      // The carry-over: the month's count the usage table kept before the upgrade, read once per token and month.
      'dynamodb:GetItem UsageTable',
      'dynamodb:GetItem TemplatesTable',
      // The account's fonts, listed for each render (issue 46).
      'dynamodb:Query FontsTable',
    ]);
    for (const key of RENDERERS.filter((name) => name !== 'jobs-consume' && name !== 'batch-items-consume')) {
      const tables = grantsOf(key).filter((grant) => grant.startsWith('dynamodb:') && !allowed.has(grant));
      assert.deepEqual(tables, [], `${key} reaches ${tables.join(', ')}`);
    }
  });

  it('gives the job consumer a visibility timeout at least 6 times its timeout, and every queue a dead-letter queue', () => {
    // Prepare
    const consumerTimeout = Number(functions['jobs-consume']?.resource.Properties.Timeout);
    const queues = template.Resources;
    // Assess
    assert.ok(Number(queues.JobsQueue?.Properties.VisibilityTimeout) >= 6 * consumerTimeout);
    assert.ok(Number(queues.WebhooksQueue?.Properties.VisibilityTimeout) >= 6 * Number(functions['webhooks-deliver']?.resource.Properties.Timeout));
    assert.ok(Number(queues.JobsDeadLetterQueue?.Properties.VisibilityTimeout) >= 6 * Number(functions['jobs-dead-letter']?.resource.Properties.Timeout));
    assert.deepEqual(queues.JobsQueue?.Properties.RedrivePolicy.deadLetterTargetArn, { 'Fn::GetAtt': ['JobsDeadLetterQueue', 'Arn'] });
    assert.ok(Number(queues.JobsQueue?.Properties.RedrivePolicy.maxReceiveCount) >= 2);
    assert.deepEqual(queues.WebhooksQueue?.Properties.RedrivePolicy.deadLetterTargetArn, { 'Fn::GetAtt': ['WebhooksDeadLetterQueue', 'Arn'] });
    assert.ok(Number(queues.BatchItemsQueue?.Properties.VisibilityTimeout) >= 6 * Number(functions['batch-items-consume']?.resource.Properties.Timeout));
    assert.ok(Number(queues.BatchItemsDeadLetterQueue?.Properties.VisibilityTimeout) >= 6 * Number(functions['batch-items-dead-letter']?.resource.Properties.Timeout));
    assert.ok(Number(queues.BatchOutputsQueue?.Properties.VisibilityTimeout) >= 6 * Number(functions['batch-outputs-build']?.resource.Properties.Timeout));
    assert.deepEqual(queues.BatchOutputsQueue?.Properties.RedrivePolicy.deadLetterTargetArn, { 'Fn::GetAtt': ['BatchItemsDeadLetterQueue', 'Arn'] });
    assert.deepEqual(queues.BatchItemsQueue?.Properties.RedrivePolicy.deadLetterTargetArn, { 'Fn::GetAtt': ['BatchItemsDeadLetterQueue', 'Arn'] });
    for (const dlq of ['JobsDeadLetterQueue', 'WebhooksDeadLetterQueue', 'BatchItemsDeadLetterQueue']) {
      assert.equal(Number(queues[dlq]?.Properties.MessageRetentionPeriod), 1_209_600, `${dlq} keeps messages 14 days`);
    }
  });

  it('reports partial batch failures on every queue consumer', () => {
    // Act
    const mappings = resourcesOfType('AWS::Lambda::EventSourceMapping');
    // Assess
    assert.equal(mappings.length, 6);
    for (const [id, mapping] of mappings) {
      assert.deepEqual(mapping.Properties.FunctionResponseTypes, ['ReportBatchItemFailures'], id);
    }
  });

  it('keeps the files bucket private, encrypted, TLS-only, with the 1-day expiry', () => {
    // Prepare
    const bucket = template.Resources.FilesBucket?.Properties ?? {};
    const policy = resourcesOfType('AWS::S3::BucketPolicy').find(([, res]) => res.Properties.Bucket.Ref === 'FilesBucket')?.[1];
    // Assess
    assert.deepEqual(bucket.PublicAccessBlockConfiguration, {
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    assert.ok(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm);
    const tlsOnly = policy?.Properties.PolicyDocument.Statement.find((s: Statement) => s.Effect === 'Deny');
    assert.deepEqual(tlsOnly?.Condition, { Bool: { 'aws:SecureTransport': 'false' } });
    assert.equal(tlsOnly?.Action, 's3:*');
    const rules = bucket.LifecycleConfiguration.Rules as { Prefix?: string; ExpirationInDays?: number; Status: string }[];
    assert.ok(rules.some((rule) => rule.Prefix === 'files/' && rule.ExpirationInDays === 1 && rule.Status === 'Enabled'));
  });

  it('recovers customer tables to a point in time and expires records that expire', () => {
    // Prepare
    const table = (id: string) => template.Resources[id]?.Properties ?? {};
    // Assess
    for (const id of ['TokensTable', 'TemplatesTable', 'UsageTable']) {
      assert.equal(table(id).PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled, true, `${id} PITR`);
      assert.equal(table(id).DeletionProtectionEnabled, true, `${id} deletion protection in prod`);
    }
    for (const id of ['UsageTable', 'JobsTable']) {
      assert.deepEqual(table(id).TimeToLiveSpecification, { AttributeName: 'expiresAt', Enabled: true }, `${id} TTL`);
    }
    for (const [id, res] of resourcesOfType('AWS::DynamoDB::Table')) assert.equal(res.Properties.BillingMode, 'PAY_PER_REQUEST', id);
  });

  it('alarms when jobs reach the dead-letter queue and when the API answers 5xx, and runs the sweeper on a schedule', () => {
    // Prepare
    const alarms = resourcesOfType('AWS::CloudWatch::Alarm').map(([, res]) => res.Properties);
    const watches = (queue: string) =>
      alarms.filter((alarm) => (alarm.Dimensions ?? []).some((d: any) => d.Value?.['Fn::GetAtt']?.[0] === queue));
    const apiMetric = (name: string) =>
      alarms
        .flatMap((alarm) => (alarm.Metrics ?? []).map((query: any) => query.MetricStat?.Metric))
        .find((metric) => metric?.Namespace === 'AWS/ApiGateway' && metric.MetricName === name);
    const apiStage = resourcesOfType('AWS::ApiGatewayV2::Stage').find(([, res]) => res.Properties.ApiId?.Ref === 'HttpApi')?.[1];
    // Assess
    assert.ok(watches('JobsDeadLetterQueue').length >= 1);
    assert.ok(watches('WebhooksDeadLetterQueue').length >= 1);
    assert.equal(template.Resources.HttpApi?.Type, 'AWS::ApiGatewayV2::Api');
    for (const name of ['5xx', 'Count']) {
      assert.deepEqual(
        apiMetric(name)?.Dimensions,
        [{ Name: 'ApiId', Value: { Ref: 'HttpApi' } }, { Name: 'Stage', Value: apiStage?.Properties.StageName }],
        `API Gateway ${name} of the HTTP API's stage`,
      );
    }
    assert.equal(apiStage?.Properties.StageName, '$default');
    const topic = `arn:\${AWS::Partition}:sns:\${AWS::Region}:\${AWS::AccountId}:${template.Resources.AlarmTopic?.Properties.TopicName}`;
    for (const alarm of alarms) assert.deepEqual(alarm.AlarmActions, [{ 'Fn::Sub': topic }]);
    const sweep = resourcesOfType('AWS::Events::Rule').find(([, res]) => JSON.stringify(res.Properties.Targets).includes(functions['files-sweep']?.logicalId ?? '?'));
    assert.equal(sweep?.[1].Properties.ScheduleExpression, 'rate(15 minutes)');
  });

  it('subscribes the alarm e-mail address to the alarm topic only when --param alarmEmail is given', async () => {
    // Prepare
    const subscription = template.Resources.AlarmEmailSubscription;
    const env = pinnedAwsEnvironment('http://127.0.0.1:9', { id: 'AKIAOFFLINEPRINT', secret: 'offline-print-not-a-secret' });
    // Act: the same service resolved with the address given (print asks AWS nothing; any call would fail)
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [SERVERLESS_CLI, 'print', '--stage', 'prod', '--param', 'alarmEmail=ops@example.com', '--path', 'resources', '--format', 'json'],
      { cwd: join(work, 'service'), env, maxBuffer: 16 * MB },
    );
    const given = JSON.parse(stdout.slice(stdout.indexOf('{'))) as Template;
    // Assess: declared, on the alarm topic, but left out of the stack without an address
    assert.equal(subscription?.Type, 'AWS::SNS::Subscription');
    assert.equal(subscription?.Condition, 'AlarmEmailGiven');
    assert.deepEqual(subscription?.Properties.TopicArn, { Ref: 'AlarmTopic' });
    assert.equal(subscription?.Properties.Protocol, 'email');
    assert.equal(conditionHolds(template, 'AlarmEmailGiven'), false);
    // Assess: with the address, the condition holds and the subscription mails it
    assert.equal(conditionHolds(given, 'AlarmEmailGiven'), true);
    assert.deepEqual(given.Resources.AlarmEmailSubscription?.Properties.Endpoint, { Ref: 'AlarmEmail' });
    assert.equal(given.Parameters?.AlarmEmail?.Default, 'ops@example.com');
  });

  it('outputs the API URL', () => {
    assert.deepEqual(template.Outputs.ApiUrl?.Value, { 'Fn::GetAtt': ['HttpApi', 'ApiEndpoint'] });
  });

  it('stays inside Lambda’s size limits: 250 MB unzipped with layers, 50 MB zipped', () => {
    // Prepare
    const layer = listZip(join(out, 'chromium.zip')).entries;
    const layerBytes = layer.reduce((sum, entry) => sum + entry.size, 0);
    for (const key of Object.keys(functions)) {
      // Act
      const zip = join(out, `${key}.zip`);
      const code = listZip(zip).entries.reduce((sum, entry) => sum + entry.size, 0);
      const total = code + (RENDERERS.includes(key) ? layerBytes : 0);
      // Assess
      assert.ok(total <= UNZIPPED_LIMIT_BYTES, `${key}: ${(total / MB).toFixed(1)} MB unzipped`);
      assert.ok(readFileSync(zip).length <= DIRECT_UPLOAD_LIMIT_BYTES, `${key}: zip over 50 MB`);
    }
    // Assess: what the layer must hold, and that the bundles do not hold Chromium themselves
    const names = new Set(layer.map((entry) => entry.name));
    for (const name of [
      'chromium/chromium.zst',
      'chromium/fonts.tar.br',
      'chromium/swiftshader.tar.br',
      'chromium/al2023.tar.br',
      'nodejs/node_modules/@sparticuz/chromium/build/index.js',
      'nodejs/node_modules/@duckduckgo/autoconsent/dist/autoconsent.playwright.js',
      'nodejs/node_modules/@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm',
      'nodejs/node_modules/@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm',
      'nodejs/node_modules/pdfjs-dist/build/pdf.min.mjs',
      'nodejs/node_modules/pdfjs-dist/build/pdf.worker.min.mjs',
      'nodejs/node_modules/pdfjs-dist/standard_fonts/FoxitFixed.pfb',
      // Every face of the catalogue, the colour emoji, and fontconfig's configuration and prebuilt cache of /opt/fonts.
      ...LAYER_FONTS.flatMap((font) => [font.files.regular, font.files.bold]).filter((file) => file !== undefined).map((file) => `fonts/${layerFileName(file)}`),
      `fonts/${LAYER_EMOJI.name}`,
      'fontconfig/fonts.conf',
    ]) {
      assert.ok(names.has(name), `layer lacks ${name}`);
    }
    assert.ok([...names].some((name) => name.startsWith(`fontconfig/cache/${layerFontsCacheKey()}-`)), 'the layer lacks fontconfig\'s cache of /opt/fonts');
    // PDF.js is read as files and runs in Chromium: its optional native canvas for Node stays out.
    assert.ok(![...names].some((name) => name.includes('@napi-rs/canvas')), 'layer holds @napi-rs/canvas');
    // The binary travels once, as chromium.zst: the package's brotli copy would add 67 MB for nothing.
    assert.ok(![...names].some((name) => name.endsWith('chromium.br')), 'the layer still holds chromium.br');
    for (const key of RENDERERS) {
      assert.ok(!listZip(join(out, `${key}.zip`)).entries.some((entry) => /chromium\.(br|zst)$/.test(entry.name)), `${key} bundles Chromium`);
    }
  });

  it('passes cfn-lint with no error or warning, ignoring only rules on resources the framework generates', async () => {
    // Prepare: the resources serverless.yml declares itself (the framework generates the others)
    const templateFile = join(out, 'cloudformation-template-update-stack.json');
    const declared = new Set(Object.keys((parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'error' }) as { resources: Template }).resources.Resources));
    // Act: with the project's configuration (.cfnlintrc.yaml), and with none
    const findings = await lintTemplate(templateFile);
    const unfiltered = await lintTemplate(templateFile, '/dev/null');
    // Assess
    assert.deepEqual(findings.map((match) => `${match.Rule.Id} ${match.Location.Path.join('/')}: ${match.Message}`), []);
    const ignored = unfiltered.filter((match) => !findings.some((kept) => kept.Rule.Id === match.Rule.Id && kept.Location.Path.join('/') === match.Location.Path.join('/')));
    const onOurs = ignored.filter((match) => match.Location.Path[0] !== 'Resources' || declared.has(String(match.Location.Path[1])));
    assert.deepEqual(onOurs.map((match) => `${match.Rule.Id} ${match.Location.Path.join('/')}: ${match.Message}`), []);
  });

  it('zips each function with its own import closure only: no other function’s code, no source maps, within its kind’s size', () => {
    const kindOf = (key: string) => (RENDERERS.includes(key) ? 'renderer' : FILE_SERVERS.includes(key) ? 'file server' : 'api');
    // Markers of Puppeteer's browser code and of the PDF library (keepNames keeps class names in the bundles).
    const PUPPETEER = 'CdpBrowser';
    const PDF_LIBRARY = 'PDFDocument';
    // Markers of what Puppeteer imports but a pipe launch never runs (scripts/esbuild-plugins.cjs, pipe-launch-only):
    // ws (its WebSocket transport) and the command line of @puppeteer/browsers (yargs).
    const LEFT_OUT = { ws: 'Sec-WebSocket-Accept', yargs: 'Not enough non-option arguments' };
    for (const key of Object.keys(functions)) {
      // Prepare
      const zip = join(out, `${key}.zip`);
      const { entries, bytes } = listZip(zip);
      // The bundles: the handler and its chunks beside it (the studio's page and Scalar's bundle are files they serve).
      const handlerFile = String(functions[key]?.resource.Properties.Handler).replace(/\.handler$/, '.mjs');
      const folder = handlerFile.slice(0, handlerFile.lastIndexOf('/') + 1);
      const bundles = entries.filter((entry) => entry.name.startsWith(folder) && entry.name.endsWith('.mjs'));
      const modules = new Map(bundles.map((entry) => [entry.name, readZipEntry(bytes, entry).toString('utf8')]));
      // Act: the modules the handler reaches through its static and dynamic imports (`./name.mjs`)
      const reached = new Set([handlerFile]);
      for (const file of reached) {
        for (const [, name] of (modules.get(file) ?? '').matchAll(/(?:from|import)\s*\(?\s*"\.\/([\w.~-]+\.mjs)"/g)) {
          reached.add(`${folder}${name}`);
        }
      }
      const code = entries.reduce((sum, entry) => sum + entry.size, 0);
      const bound = CODE_BOUNDS[kindOf(key)];
      // Assess: nothing the handler cannot import, no maps or build metadata
      assert.deepEqual([...modules.keys()].filter((name) => !reached.has(name)), [], `${key}: modules its handler never imports`);
      assert.deepEqual([...reached].filter((name) => !modules.has(name)), [], `${key}: modules its handler imports but the zip lacks`);
      assert.deepEqual(entries.filter((entry) => /\.map$|-meta\.json$/.test(entry.name)).map((entry) => entry.name), [], `${key}: source maps or metafiles`);
      assert.ok(code <= bound.unzipped, `${key} (${kindOf(key)}): ${(code / MB).toFixed(2)} MB unzipped, over ${bound.unzipped / MB} MB`);
      assert.ok(bytes.length <= bound.zipped, `${key} (${kindOf(key)}): ${(bytes.length / MB).toFixed(2)} MB zipped, over ${bound.zipped / MB} MB`);
      // Assess: Puppeteer only where it renders, the PDF library only where it renders or reads a PDF
      const holding = (marker: string) => [...modules].filter(([, text]) => text.includes(marker)).map(([name]) => name);
      for (const [name, marker] of Object.entries(LEFT_OUT)) assert.deepEqual(holding(marker), [], `${key} holds ${name}`);
      if (RENDERERS.includes(key)) {
        assert.ok(holding(PUPPETEER).length > 0 && holding(PDF_LIBRARY).length > 0, `${key}: the markers no longer find Puppeteer or the PDF library`);
      } else {
        assert.deepEqual(holding(PUPPETEER), [], `${key} holds Puppeteer's browser`);
        if (!PDF_AT_THE_EDGE.includes(key) && !PDF_READERS.includes(key)) assert.deepEqual(holding(PDF_LIBRARY), [], `${key} holds the PDF library`);
      }
    }
  });

  it('loads every function from its zip alone, or its zip and the layer for those that render (without undici)', async () => {
    // Prepare: /var/task and /opt as Lambda lays them out; packages in /opt/nodejs/node_modules
    // resolve from the code as on Lambda through a node_modules beside /var/task.
    const lambda = join(work, 'lambda');
    extractZip(join(out, 'chromium.zip'), join(lambda, 'opt'));
    assert.ok(!existsSync(join(tmpdir(), 'node_modules')), 'a node_modules in the temporary folder would hide missing packages');
    const tasks: Record<string, string> = {};
    for (const key of Object.keys(functions)) {
      const base = RENDERERS.includes(key) ? join(lambda, 'with-layer') : join(lambda, 'alone');
      extractZip(join(out, `${key}.zip`), join(base, key));
      tasks[key] = join(base, key, String(functions[key]?.resource.Properties.Handler).replace(/\.handler$/, '.mjs'));
    }
    symlinkSync(join(lambda, 'opt', 'nodejs', 'node_modules'), join(lambda, 'with-layer', 'node_modules'), 'dir');
    const probe = `
      import { createRequire } from 'node:module';
      const results = {};
      for (const [key, file] of Object.entries(JSON.parse(process.env.TASKS))) {
        try {
          const mod = await import(file);
          results[key] = typeof mod.handler;
          if (process.env.LAYER) createRequire(file).resolve('@duckduckgo/autoconsent/rules/compact-rules.json');
          if (process.env.LAYER) createRequire(file).resolve('@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm');
          if (process.env.LAYER) createRequire(file).resolve('pdfjs-dist/build/pdf.worker.min.mjs');
        } catch (error) {
          results[key] = String(error && error.message || error).split('\\n')[0];
        }
      }
      // Node's ES-module facade of node:http loads undici (scripts/esbuild-plugins.cjs): no INIT may pay for it.
      if (process.env.LAYER) results.undiciLoaded = process.moduleLoadList.some((name) => name.includes('undici'));
      process.stdout.write('RESULTS' + JSON.stringify(results) + '\\n');
      process.exit(0);`;
    const run = async (keys: string[], withLayer: boolean) => {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TASKS: JSON.stringify(Object.fromEntries(keys.map((key) => [key, tasks[key]]))),
        // Warm-up may fail fast: it is logged and retried at the first render.
        CHROMIUM_PATH: '/nonexistent/chromium',
        ...(withLayer ? { LAYER: '1' } : {}),
      };
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
        cwd: lambda,
        env,
        maxBuffer: 16 * MB,
      });
      return JSON.parse(stdout.slice(stdout.indexOf('RESULTS') + 'RESULTS'.length).split('\n')[0] ?? '{}') as Record<string, string | boolean>;
    };
    const others = Object.keys(functions).filter((key) => !RENDERERS.includes(key));
    // Act
    const [alone, layered] = await Promise.all([run(others, false), run(RENDERERS, true)]);
    // Assess
    assert.deepEqual(alone, Object.fromEntries(others.map((key) => [key, 'function'])));
    assert.deepEqual(layered, { ...Object.fromEntries(RENDERERS.map((key) => [key, 'function'])), undiciLoaded: false });
    assert.equal(readdirSync(join(lambda, 'alone')).length, others.length);
  });

  it('runs the bundled S3 and SQS paths from the zips against the emulators (their chunks load at the first call)', async () => {
    // Prepare: the embedded emulators with every table, bucket and queue of serverless.yml, a token,
    // and the zips of the functions whose S3/SQS stores load on first use, unpacked as on Lambda.
    const aws = await withLocalAws();
    try {
      const { token, accountId } = await createToken(createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens), { limit: 100, rate: 100 });
      const task = (key: string) => {
        const dir = join(work, 'aws-paths', key);
        extractZip(join(out, `${key}.zip`), dir);
        return join(dir, String(functions[key]?.resource.Properties.Handler).replace(/\.handler$/, '.mjs'));
      };
      // One cold process per function, as Lambda runs each in its own environment: its handler takes the events in turn.
      const invoke = async (key: string, events: Array<{ method: string; path: string; routeKey: string; params?: Record<string, string>; body?: unknown }>) => {
        const fn = aws.local.service.functions.find((candidate) => candidate.key === key);
        assert.ok(fn, `${key} is a function of serverless.yml`);
        // A file, not a variable: an environment variable holds at most 128 KB.
        const eventsFile = join(work, 'aws-paths', `${key}.events.json`);
        mkdirSync(join(work, 'aws-paths'), { recursive: true });
        writeFileSync(eventsFile, JSON.stringify(events));
        const answersFile = join(work, 'aws-paths', `${key}.answers.json`);
        await promisify(execFile)(process.execPath, ['--input-type=module', '-e', INVOKE_PROBE], {
          cwd: work,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, ...aws.local.environmentOf(fn), HANDLER: task(key), TOKEN: token, EVENTS_FILE: eventsFile, ANSWERS_FILE: answersFile },
          maxBuffer: 16 * MB,
        });
        return JSON.parse(readFileSync(answersFile, 'utf8')) as Array<{ statusCode: number; body: string }>;
      };
      // Over 300 KB each: a job input and template variables that large are kept in S3, not in the DynamoDB item.
      const bigHtml = Buffer.from(`<!doctype html><p>${'x'.repeat(400 * 1024)}</p>`).toString('base64');

      // Act: queue a job (S3 PUT of its input, SQS SendMessage), save a template and read it back (S3 PUT, then GET)
      const [queued] = await invoke('pdf-async', [
        { method: 'POST', path: '/v1/pdf/async', routeKey: 'POST /v1/pdf/async', body: { page: { html: bigHtml }, webhook: { url: 'https://example.com/hook' } } },
      ]);
      const [created] = await invoke('template-create', [
        { method: 'POST', path: '/v1/templates', routeKey: 'POST /v1/templates', body: { name: 'big', output: 'PDF', variables: { page: { html: bigHtml } } } },
      ]);
      const templateId = String(JSON.parse(created?.body ?? '{}').id);
      const [read] = await invoke('template-get', [
        { method: 'GET', path: `/v1/templates/${templateId}`, routeKey: 'GET /v1/templates/{id}', params: { id: templateId } },
      ]);

      // Assess: each answer, and what landed in SQS and S3
      assert.equal(queued?.statusCode, 201, queued?.body);
      const jobId = String(JSON.parse(queued?.body ?? '{}').id);
      const received = await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.config.jobsQueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
      assert.deepEqual((received.Messages ?? []).map((message) => JSON.parse(message.Body ?? '{}')), [{ accountId, jobId }]);
      const inputs = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: `job-inputs/${accountId}/` }));
      assert.deepEqual((inputs.Contents ?? []).map((object) => object.Key), [`job-inputs/${accountId}/${jobId}.json`]);
      assert.equal(created?.statusCode, 201, created?.body);
      const variables = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: `templates/${accountId}/` }));
      assert.equal(variables.Contents?.length, 1, 'the variables are stored in S3');
      assert.equal(read?.statusCode, 200, read?.body);
      assert.equal(JSON.parse(read?.body ?? '{}').variables?.page?.html, bigHtml, 'the variables come back from S3 whole');
    } finally {
      await aws.stop();
    }
  });

  it('serves the OpenAPI document, the /docs page and its script from the openapi zip alone', async () => {
    // Prepare: the zip unpacked where nothing else can supply the Scalar bundle
    const task = join(work, 'openapi-alone');
    extractZip(join(out, 'openapi.zip'), task);
    assert.ok(
      listZip(join(out, 'openapi.zip')).entries.some((entry) => entry.name === 'node_modules/@scalar/api-reference/dist/browser/standalone.js'),
      'the Scalar bundle is packaged with the function',
    );
    const probe = `
      import { gunzipSync } from 'node:zlib';
      const { handler } = await import(process.env.HANDLER);
      const call = (rawPath) => handler({ rawPath, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      const doc = await call('/v1/openapi.json');
      const page = await call('/docs');
      const script = await call('/docs/api-reference.js');
      const bundle = gunzipSync(Buffer.from(script.body, 'base64')).toString('utf8');
      process.stdout.write('RESULTS' + JSON.stringify({
        doc: [doc.statusCode, JSON.parse(doc.body).openapi],
        page: [page.statusCode, page.headers['content-type'], page.body.includes('docs/api-reference.js')],
        script: [script.statusCode, script.headers['content-encoding'], bundle.includes('createApiReference')],
      }) + '\\n');`;
    // Act
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: task,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HANDLER: join(task, 'functions', 'openapi.mjs') },
      maxBuffer: 16 * MB,
    });
    // Assess
    assert.deepEqual(JSON.parse(stdout.slice(stdout.indexOf('RESULTS') + 'RESULTS'.length).split('\n')[0] ?? '{}'), {
      doc: [200, '3.1.0'],
      page: [200, 'text/html; charset=utf-8', true],
      script: [200, 'gzip', true],
    });
  });

  it('serves the template studio, its script, styles and pdf.js worker from the studio zip alone', async () => {
    // Prepare: the zip unpacked where no source tree can supply or rebuild the studio
    const task = join(work, 'studio-alone');
    extractZip(join(out, 'studio.zip'), task);
    const names = listZip(join(out, 'studio.zip')).entries.map((entry) => entry.name);
    for (const file of ['index.html', 'studio.js', 'studio.css', 'pdf.worker.mjs']) {
      assert.ok(names.includes(`studio/dist/${file}`), `studio/dist/${file} is packaged with the function`);
    }
    assert.ok(!names.some((name) => name.startsWith('studio/src/') || name.startsWith('node_modules/')), 'only the build, no sources or packages');
    const probe = `
      import { gunzipSync } from 'node:zlib';
      const { handler } = await import(process.env.HANDLER);
      const call = (rawPath) => handler({ rawPath, headers: { 'accept-encoding': 'gzip' } });
      const text = (answer) => answer.isBase64Encoded ? gunzipSync(Buffer.from(answer.body, 'base64')).toString('utf8') : answer.body;
      const page = await call('/');
      const script = await call('/studio/studio.js');
      const worker = await call('/studio/pdf.worker.mjs');
      const missing = await call('/studio/../serverless.yml');
      process.stdout.write('RESULTS' + JSON.stringify({
        page: [page.statusCode, page.headers['content-type'], /<script type="module" src="studio\\/studio\\.js">/.test(text(page)), /script-src 'self';/.test(page.headers['content-security-policy'])],
        script: [script.statusCode, script.headers['content-encoding'], text(script).length > 100000],
        worker: [worker.statusCode, worker.headers['content-type']],
        missing: missing.statusCode,
      }) + '\\n');`;
    // Act
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: task,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, HANDLER: join(task, 'functions', 'studio.mjs') },
      maxBuffer: 16 * MB,
    });
    // Assess
    assert.deepEqual(JSON.parse(stdout.slice(stdout.indexOf('RESULTS') + 'RESULTS'.length).split('\n')[0] ?? '{}'), {
      page: [200, 'text/html; charset=utf-8', true, true],
      script: [200, 'gzip', true],
      worker: [200, 'text/javascript; charset=utf-8'],
      missing: 404,
    });
  });
});
