import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type CreateTableCommandInput,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  PutBucketLifecycleConfigurationCommand,
  type BucketLocationConstraint,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { createAwsClients } from '../aws/clients.js';
import { awsErrorName } from '../aws/errors.js';
import { LocalSetupError } from './errors.js';
import type { CfnResource, LoadedServerless } from './serverless-config.js';

/** A resource as created locally: what `!Ref` and `!GetAtt` return for it. */
export type ProvisionedResource = {
  logicalId: string;
  type: string;
  /** The value of `!Ref`: table name, bucket name, queue URL. */
  ref: string;
  /** The values of `!GetAtt`, e.g. `Arn`, `QueueName`. */
  attributes: Record<string, string>;
};

export type Provisioned = {
  resources: Record<string, ProvisionedResource>;
  /** Declared resources that have no local counterpart (IAM, alarms…), left out whole, properties unresolved. */
  skipped: { logicalId: string; type: string }[];
  /** Properties the emulators could not apply; the resource exists without them. */
  warnings: string[];
  /** Resolves CloudFormation intrinsics against the provisioned resources. */
  resolve(value: unknown, at?: string): Promise<unknown>;
};

export type ProvisionContext = {
  /** What `AWS::AccountId` and ARNs hold locally. */
  accountId: string;
};

/** Marks `!Ref AWS::NoValue`: the property it stands in is removed. */
const NO_VALUE = Symbol('AWS::NoValue');

/**
 * Creates the DynamoDB tables, S3 buckets and SQS queues that serverless.yml's
 * `resources.Resources` declares, with their keys, indexes, lifecycle rules,
 * queue attributes and redrive policies, in dependency order. Idempotent:
 * existing tables and buckets are kept, existing queues get their attributes
 * set again. TTL and point-in-time recovery have no local counterpart.
 */
export async function provisionResources(loaded: LoadedServerless, ctx: ProvisionContext): Promise<Provisioned> {
  const { config } = loaded;
  const region = config.provider.region;
  const stackName = `${config.service}-${config.provider.stage}`;
  const declared = config.resources.Resources;
  const clients = createAwsClients({ region });
  const dynamodb = new DynamoDBClient({ region });
  const created = new Map<string, Promise<ProvisionedResource | undefined>>();
  const provisioned: Provisioned = {
    resources: {},
    skipped: [],
    warnings: [],
    resolve: (value, at = '(value)') => resolveIntrinsics(value, at, []),
  };

  const ensure = (logicalId: string, chain: string[]): Promise<ProvisionedResource | undefined> => {
    if (chain.includes(logicalId)) {
      throw new LocalSetupError(`resources: circular dependency ${[...chain, logicalId].join(' → ')}`);
    }
    let pending = created.get(logicalId);
    if (!pending) {
      pending = create(logicalId, [...chain, logicalId]);
      created.set(logicalId, pending);
    }
    return pending;
  };

  const create = async (logicalId: string, chain: string[]): Promise<ProvisionedResource | undefined> => {
    const resource = declared[logicalId] as CfnResource;
    if (!hasLocalCounterpart(resource.Type)) {
      provisioned.skipped.push({ logicalId, type: resource.Type });
      return undefined;
    }
    if (resource.Condition !== undefined && !(await condition(resource.Condition, chain))) return undefined;
    const at = `resources.Resources.${logicalId}.Properties`;
    const props = (await resolveIntrinsics(resource.Properties ?? {}, at, chain)) as Record<string, unknown>;
    const generatedName = `${stackName}-${logicalId}`;
    let result: ProvisionedResource | undefined;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
        result = await createTable(logicalId, props, generatedName);
        break;
      case 'AWS::S3::Bucket':
        result = await createBucket(logicalId, props, generatedName.toLowerCase().slice(0, 63));
        break;
      case 'AWS::SQS::Queue':
        result = await createQueue(logicalId, props, generatedName);
        break;
      default:
        throw new LocalSetupError(`${logicalId}: ${resource.Type} is in EMULATED_TYPES but has no creator`);
    }
    provisioned.resources[logicalId] = result;
    return result;
  };

  const createTable = async (logicalId: string, props: Record<string, unknown>, generatedName: string) => {
    const input = tableInput(props, generatedName);
    let table: TableDescription | undefined;
    try {
      table = (await dynamodb.send(new CreateTableCommand(input))).TableDescription;
    } catch (error) {
      if (awsErrorName(error) !== 'ResourceInUseException') throw setupError(`creating table ${input.TableName}`, error);
      table = (await dynamodb.send(new DescribeTableCommand({ TableName: input.TableName }))).Table;
    }
    const name = input.TableName as string;
    const attributes: Record<string, string> = {
      Arn: table?.TableArn ?? `arn:aws:dynamodb:${region}:${ctx.accountId}:table/${name}`,
    };
    if (table?.LatestStreamArn) attributes.StreamArn = table.LatestStreamArn;
    return { logicalId, type: 'AWS::DynamoDB::Table', ref: name, attributes };
  };

  const createBucket = async (logicalId: string, props: Record<string, unknown>, generatedName: string) => {
    const name = typeof props.BucketName === 'string' ? props.BucketName : generatedName;
    try {
      await clients.s3.send(
        new CreateBucketCommand({
          Bucket: name,
          ...(region === 'us-east-1'
            ? {}
            : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      const code = awsErrorName(error);
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') {
        throw setupError(`creating bucket ${name}`, error);
      }
    }
    const rules = lifecycleRules(props.LifecycleConfiguration);
    if (rules.length > 0) {
      try {
        await clients.s3.send(
          new PutBucketLifecycleConfigurationCommand({ Bucket: name, LifecycleConfiguration: { Rules: rules } }),
        );
      } catch (error) {
        provisioned.warnings.push(`${logicalId}: lifecycle rules not applied locally (${awsErrorName(error)})`);
      }
    }
    return {
      logicalId,
      type: 'AWS::S3::Bucket',
      ref: name,
      attributes: {
        Arn: `arn:aws:s3:::${name}`,
        DomainName: `${name}.s3.amazonaws.com`,
        RegionalDomainName: `${name}.s3.${region}.amazonaws.com`,
      },
    };
  };

  const createQueue = async (logicalId: string, props: Record<string, unknown>, generatedName: string) => {
    const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
    const name = typeof props.QueueName === 'string' ? props.QueueName : fifo ? `${generatedName}.fifo` : generatedName;
    const attributes = queueAttributes(props);
    let url: string | undefined;
    try {
      url = (await clients.sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    } catch (error) {
      if (!/NonExistentQueue|QueueDoesNotExist/.test(awsErrorName(error) ?? '')) {
        throw setupError(`looking up queue ${name}`, error);
      }
    }
    try {
      if (url) {
        // FifoQueue can only be given at creation.
        const { FifoQueue: _fifo, ...settable } = attributes;
        await clients.sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: settable }));
      } else {
        url = (await clients.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl;
      }
    } catch (error) {
      throw setupError(`creating queue ${name}`, error);
    }
    if (!url) throw new LocalSetupError(`creating queue ${name}: no queue URL returned`);
    const described = await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    return {
      logicalId,
      type: 'AWS::SQS::Queue',
      ref: url,
      attributes: {
        Arn: described.Attributes?.QueueArn ?? `arn:aws:sqs:${region}:${ctx.accountId}:${name}`,
        QueueName: name,
        QueueUrl: url,
      },
    };
  };

  const pseudoParameter = (name: string): unknown => {
    switch (name) {
      case 'AWS::Region':
        return region;
      case 'AWS::AccountId':
        return ctx.accountId;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stackName;
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${region}:${ctx.accountId}:stack/${stackName}/local`;
      case 'AWS::NotificationARNs':
        return [];
      case 'AWS::NoValue':
        return NO_VALUE;
      default:
        return undefined;
    }
  };

  const requireResource = async (logicalId: string, at: string, chain: string[]) => {
    if (!(logicalId in declared)) {
      throw new LocalSetupError(`${at}: ${logicalId} is not declared under resources.Resources (not available locally)`);
    }
    const resource = await ensure(logicalId, chain);
    if (!resource) {
      const type = declared[logicalId]?.Type;
      throw new LocalSetupError(`${at}: ${logicalId} (${type}) has no local counterpart or its condition is false`);
    }
    return resource;
  };

  const ref = async (name: string, at: string, chain: string[]): Promise<unknown> => {
    const pseudo = pseudoParameter(name);
    if (pseudo !== undefined) return pseudo;
    return (await requireResource(name, at, chain)).ref;
  };

  const getAtt = async (logicalId: string, attribute: string, at: string, chain: string[]): Promise<string> => {
    const resource = await requireResource(logicalId, at, chain);
    const value = resource.attributes[attribute];
    if (value === undefined) throw new LocalSetupError(`${at}: !GetAtt ${logicalId}.${attribute} is not available locally`);
    return value;
  };

  const substitute = async (template: string, variables: Record<string, unknown>, at: string, chain: string[]) => {
    let out = '';
    let i = 0;
    while (i < template.length) {
      const start = template.indexOf('${', i);
      if (start < 0) break;
      const end = template.indexOf('}', start);
      if (end < 0) break;
      out += template.slice(i, start);
      const name = template.slice(start + 2, end).trim();
      if (name.startsWith('!')) {
        out += `\${${name.slice(1)}}`;
      } else if (name in variables) {
        out += String(await resolveIntrinsics(variables[name], at, chain));
      } else if (name.includes('.') && !name.startsWith('AWS::')) {
        const dot = name.indexOf('.');
        out += await getAtt(name.slice(0, dot), name.slice(dot + 1), at, chain);
      } else {
        out += String(await ref(name, at, chain));
      }
      i = end + 1;
    }
    return out + template.slice(i);
  };

  const condition = async (name: string, chain: string[]): Promise<boolean> => {
    const definition = config.resources.Conditions?.[name];
    if (definition === undefined) throw new LocalSetupError(`resources.Conditions.${name} is not declared`);
    return Boolean(await resolveIntrinsics(definition, `resources.Conditions.${name}`, chain));
  };

  const resolveIntrinsics = async (value: unknown, at: string, chain: string[]): Promise<unknown> => {
    if (Array.isArray(value)) {
      const items = await Promise.all(value.map((item, index) => resolveIntrinsics(item, `${at}.${index}`, chain)));
      return items.filter((item) => item !== NO_VALUE);
    }
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [fn, arg] = entries[0] ?? [];
    if (entries.length === 1 && fn !== undefined && (fn === 'Ref' || fn === 'Condition' || fn.startsWith('Fn::'))) {
      return intrinsic(fn, arg, at, chain);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries) {
      const resolved = await resolveIntrinsics(item, `${at}.${key}`, chain);
      if (resolved !== NO_VALUE) out[key] = resolved;
    }
    return out;
  };

  const intrinsic = async (fn: string, arg: unknown, at: string, chain: string[]): Promise<unknown> => {
    const args = async () => (await resolveIntrinsics(arg, at, chain)) as unknown[];
    switch (fn) {
      case 'Ref':
        return ref(String(arg), at, chain);
      case 'Condition':
        return condition(String(arg), chain);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = (Array.isArray(arg) ? arg : String(arg).split('.')) as string[];
        return getAtt(String(logicalId), String(attribute), at, chain);
      }
      case 'Fn::Sub': {
        if (typeof arg === 'string') return substitute(arg, {}, at, chain);
        const [template, variables] = arg as [string, Record<string, unknown>];
        return substitute(template, variables ?? {}, at, chain);
      }
      case 'Fn::Join': {
        const [separator, items] = await args();
        return (items as unknown[]).map(String).join(String(separator));
      }
      case 'Fn::Select': {
        const [index, items] = await args();
        return (items as unknown[])[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, text] = await args();
        return String(text).split(String(separator));
      }
      case 'Fn::If': {
        const [name, whenTrue, whenFalse] = arg as [string, unknown, unknown];
        return resolveIntrinsics((await condition(name, chain)) ? whenTrue : whenFalse, at, chain);
      }
      case 'Fn::Equals': {
        const [a, b] = await args();
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Not':
        return !(await args())[0];
      case 'Fn::And':
        return (await args()).every(Boolean);
      case 'Fn::Or':
        return (await args()).some(Boolean);
      case 'Fn::Base64':
        return Buffer.from(String(await resolveIntrinsics(arg, at, chain))).toString('base64');
      case 'Fn::GetAZs':
        return ['a', 'b', 'c'].map((zone) => `${region}${zone}`);
      case 'Fn::FindInMap': {
        const [map, top, second] = (await args()).map(String) as [string, string, string];
        const value = (config.resources.Mappings?.[map] as Record<string, Record<string, unknown>> | undefined)?.[top]?.[
          second
        ];
        if (value === undefined) throw new LocalSetupError(`${at}: Fn::FindInMap ${map}.${top}.${second} not found`);
        return value;
      }
      default:
        throw new LocalSetupError(`${at}: ${fn} is not supported locally`);
    }
  };

  for (const logicalId of Object.keys(declared)) await ensure(logicalId, []);
  return provisioned;
}

/** The resource types `npm start` creates on its emulators. */
const EMULATED_TYPES = new Set(['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SQS::Queue']);

/**
 * Whether a resource type is created locally. Any other resource is skipped
 * whole, before its condition or properties are resolved: they may name what
 * only the deployed stack has (the `HttpApi` serverless generates, an SNS
 * topic), and resolving them would stop `npm start` over a resource it never
 * creates. It is still listed in `skipped`, whatever its condition says.
 */
function hasLocalCounterpart(type: string): boolean {
  return EMULATED_TYPES.has(type);
}

function tableInput(props: Record<string, unknown>, generatedName: string): CreateTableCommandInput {
  const stream = props.StreamSpecification as { StreamViewType?: string } | undefined;
  return {
    TableName: typeof props.TableName === 'string' ? props.TableName : generatedName,
    AttributeDefinitions: props.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
    KeySchema: props.KeySchema as CreateTableCommandInput['KeySchema'],
    BillingMode: props.BillingMode as CreateTableCommandInput['BillingMode'],
    ProvisionedThroughput: numbersIn(props.ProvisionedThroughput) as CreateTableCommandInput['ProvisionedThroughput'],
    GlobalSecondaryIndexes: numbersIn(props.GlobalSecondaryIndexes) as CreateTableCommandInput['GlobalSecondaryIndexes'],
    LocalSecondaryIndexes: props.LocalSecondaryIndexes as CreateTableCommandInput['LocalSecondaryIndexes'],
    StreamSpecification: stream?.StreamViewType
      ? { StreamEnabled: true, StreamViewType: stream.StreamViewType as 'NEW_AND_OLD_IMAGES' }
      : undefined,
  };
}

/** CloudFormation accepts "5" where the API wants 5 (capacity units). */
function numbersIn(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(numbersIn);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      /CapacityUnits$/.test(key) && typeof item === 'string' ? Number(item) : numbersIn(item),
    ]),
  );
}

type CfnLifecycleRule = {
  Id?: string;
  Status?: string;
  Prefix?: string;
  ExpirationInDays?: number | string;
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation?: number | string };
  NoncurrentVersionExpirationInDays?: number | string;
};

/** CloudFormation's lifecycle rule shape, rewritten in the S3 API's. */
function lifecycleRules(configuration: unknown): LifecycleRule[] {
  const rules = (configuration as { Rules?: CfnLifecycleRule[] } | undefined)?.Rules ?? [];
  return rules.map((rule) => ({
    ID: rule.Id,
    Status: rule.Status === 'Disabled' ? 'Disabled' : 'Enabled',
    Filter: { Prefix: rule.Prefix ?? '' },
    ...(rule.ExpirationInDays === undefined ? {} : { Expiration: { Days: Number(rule.ExpirationInDays) } }),
    ...(rule.AbortIncompleteMultipartUpload?.DaysAfterInitiation === undefined
      ? {}
      : {
          AbortIncompleteMultipartUpload: {
            DaysAfterInitiation: Number(rule.AbortIncompleteMultipartUpload.DaysAfterInitiation),
          },
        }),
    ...(rule.NoncurrentVersionExpirationInDays === undefined
      ? {}
      : { NoncurrentVersionExpiration: { NoncurrentDays: Number(rule.NoncurrentVersionExpirationInDays) } }),
  }));
}

/** Queue properties that are SQS attributes, as the API wants them (strings, JSON policies). */
const QUEUE_ATTRIBUTES = [
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'DelaySeconds',
  'FifoQueue',
  'FifoThroughputLimit',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'RedriveAllowPolicy',
  'RedrivePolicy',
  'VisibilityTimeout',
];

function queueAttributes(props: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const name of QUEUE_ATTRIBUTES) {
    const value = props[name];
    if (value === undefined) continue;
    attributes[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return attributes;
}

function setupError(action: string, error: unknown): LocalSetupError {
  return new LocalSetupError(`${action} failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

/** Environment variables of the functions, as Lambda would set them. */
export type FunctionEnvironment = {
  /** provider.environment and every function's own environment, merged. */
  merged: Record<string, string>;
  /** Variables set to different values for different functions: one process holds only one. */
  conflicts: string[];
};

/**
 * Resolves provider.environment and functions.*.environment into plain
 * strings, with `!Ref Table` → table name, `!Ref Queue` → queue URL,
 * `!GetAtt X.Arn`, `!Sub`… replaced by local values. All functions share one
 * process locally, so their environments are merged.
 */
export async function resolveFunctionEnvironment(
  loaded: LoadedServerless,
  provisioned: Provisioned,
): Promise<FunctionEnvironment> {
  const { config } = loaded;
  const asStrings = async (environment: Record<string, unknown> | undefined, at: string) => {
    const resolved = (await provisioned.resolve(environment ?? {}, at)) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(resolved).map(([key, value]) => [key, stringValue(value, `${at}.${key}`)]));
  };
  const merged = await asStrings(config.provider.environment, 'provider.environment');
  const conflicts = new Set<string>();
  for (const [key, fn] of Object.entries(config.functions)) {
    const own = await asStrings(fn.environment, `functions.${key}.environment`);
    for (const [name, value] of Object.entries(own)) {
      if (merged[name] !== undefined && merged[name] !== value) conflicts.add(name);
      merged[name] = value;
    }
  }
  return { merged, conflicts: [...conflicts] };
}

function stringValue(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new LocalSetupError(`${at}: an environment variable must resolve to text, got ${JSON.stringify(value)}`);
}

/**
 * Copies variables into `target` (process.env by default) unless already set
 * there: a variable exported in the shell wins over serverless.yml's value,
 * e.g. `ALLOW_PRIVATE_HOSTS`. Returns the names the shell overrode.
 */
export function applyEnvironment(
  environment: Record<string, string>,
  target: NodeJS.ProcessEnv = process.env,
): string[] {
  const overridden: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (target[name] !== undefined) {
      if (target[name] !== value) overridden.push(name);
      continue;
    }
    target[name] = value;
  }
  return overridden;
}
