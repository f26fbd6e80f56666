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
  S3Client,
  type BucketLocationConstraint,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsErrorName } from '../../lib/aws/errors.js';
import { LocalSetupError } from './errors.js';
import type { EmulatorEndpoints } from './local-endpoints.js';
import type { CfnResource, ResolvedService } from './service-definition.js';

/** A resource the runner created: what `Ref` and `GetAtt` of it stand for. */
export type CreatedResource = {
  logicalId: string;
  type: string;
  /** The value of `Ref`: table name, bucket name, queue URL. */
  ref: string;
  /** The values of `GetAtt`, e.g. `Arn`, `QueueName`. */
  attributes: Record<string, string>;
};

export type LocalResources = {
  created: Record<string, CreatedResource>;
  /** Declared resources with no emulator (IAM, alarms, SNS…): not created, their properties never read. */
  skipped: { logicalId: string; type: string }[];
  /** Properties the emulators could not apply; the resource exists without them. */
  warnings: string[];
  /**
   * The physical value of a resolved setting: text as it is, `Ref`/`GetAtt`
   * of a created resource as the name, URL or ARN the runner gave it. Any
   * other intrinsic is refused: serverless.yml should say it so osls resolves it.
   */
  physical(value: unknown, at: string): unknown;
};

/** The resource types the runner creates on its emulators. */
const EMULATED_TYPES = new Set(['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SQS::Queue']);

/**
 * Creates the DynamoDB tables, S3 buckets and SQS queues the service
 * declares, with their keys, indexes, lifecycle rules, queue attributes and
 * redrive policies, a referenced resource before the one referring to it.
 * Names not given get CloudFormation's pattern `<service>-<stage>-<LogicalId>`.
 */
export async function createResources(
  service: ResolvedService,
  endpoints: EmulatorEndpoints,
  accountId: string,
): Promise<LocalResources> {
  const { region } = service;
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const dynamodb = new DynamoDBClient({ region, endpoint: endpoints.dynamodb, credentials });
  const s3 = new S3Client({ region, endpoint: endpoints.s3, credentials, forcePathStyle: true });
  const sqs = new SQSClient({ region, endpoint: endpoints.sqs, credentials });
  const stackName = `${service.service}-${service.stage}`;
  const declared = service.resources;
  const pending = new Map<string, Promise<void>>();
  const result: LocalResources = { created: {}, skipped: [], warnings: [], physical: (value, at) => physical(value, at) };

  const physical = (value: unknown, at: string): unknown => {
    if (Array.isArray(value)) return value.map((item, index) => physical(item, `${at}.${index}`));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [name, arg] = entries[0] ?? [];
    if (entries.length === 1 && name === 'Ref') return createdOrFail(String(arg), at).ref;
    if (entries.length === 1 && name === 'Fn::GetAtt') {
      const [logicalId, attribute] = (Array.isArray(arg) ? arg : String(arg).split('.')).map(String) as [string, string];
      const found = createdOrFail(logicalId, at).attributes[attribute];
      if (found === undefined) throw new LocalSetupError(`${at}: GetAtt ${logicalId}.${attribute} has no local value`);
      return found;
    }
    if (entries.length === 1 && name !== undefined && (name.startsWith('Fn::') || name === 'Condition')) {
      throw new LocalSetupError(
        `${at}: ${name} is not run locally; give the value so that osls resolves it (a \${…} variable), or Ref/GetAtt a resource`,
      );
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, physical(item, `${at}.${key}`)]));
  };

  const createdOrFail = (logicalId: string, at: string): CreatedResource => {
    const found = result.created[logicalId];
    if (!found) {
      const type = declared[logicalId]?.Type;
      throw new LocalSetupError(`${at}: ${logicalId} ${type ? `(${type}) has no local emulator` : 'is not declared under resources'}`);
    }
    return found;
  };

  const ensure = (logicalId: string, chain: string[]): Promise<void> => {
    if (chain.includes(logicalId)) throw new LocalSetupError(`resources: circular reference ${[...chain, logicalId].join(' → ')}`);
    let done = pending.get(logicalId);
    if (!done) {
      done = create(logicalId, [...chain, logicalId]);
      pending.set(logicalId, done);
    }
    return done;
  };

  const create = async (logicalId: string, chain: string[]): Promise<void> => {
    const resource = declared[logicalId] as CfnResource;
    if (!EMULATED_TYPES.has(resource.Type)) {
      result.skipped.push({ logicalId, type: resource.Type });
      return;
    }
    for (const dependency of referencedResources(resource.Properties)) {
      if (dependency in declared) await ensure(dependency, chain);
    }
    const at = `resources.Resources.${logicalId}.Properties`;
    const props = physical(resource.Properties ?? {}, at) as Record<string, unknown>;
    const generatedName = `${stackName}-${logicalId}`;
    if (resource.Type === 'AWS::DynamoDB::Table') result.created[logicalId] = await createTable(logicalId, props, generatedName);
    else if (resource.Type === 'AWS::S3::Bucket') result.created[logicalId] = await createBucket(logicalId, props, generatedName.toLowerCase().slice(0, 63));
    else result.created[logicalId] = await createQueue(logicalId, props, generatedName);
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
    return {
      logicalId,
      type: 'AWS::DynamoDB::Table',
      ref: name,
      attributes: { Arn: table?.TableArn ?? `arn:aws:dynamodb:${region}:${accountId}:table/${name}` },
    };
  };

  const createBucket = async (logicalId: string, props: Record<string, unknown>, generatedName: string) => {
    const name = typeof props.BucketName === 'string' ? props.BucketName : generatedName;
    try {
      await s3.send(
        new CreateBucketCommand({
          Bucket: name,
          ...(region === 'us-east-1' ? {} : { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      const code = awsErrorName(error);
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw setupError(`creating bucket ${name}`, error);
    }
    const rules = lifecycleRules(props.LifecycleConfiguration);
    if (rules.length > 0) {
      try {
        await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: name, LifecycleConfiguration: { Rules: rules } }));
      } catch (error) {
        result.warnings.push(`${logicalId}: lifecycle rules not applied locally (${awsErrorName(error)})`);
      }
    }
    return {
      logicalId,
      type: 'AWS::S3::Bucket',
      ref: name,
      attributes: { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` },
    };
  };

  const createQueue = async (logicalId: string, props: Record<string, unknown>, generatedName: string) => {
    const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
    const name = typeof props.QueueName === 'string' ? props.QueueName : fifo ? `${generatedName}.fifo` : generatedName;
    let url: string | undefined;
    try {
      // CreateQueue with the same attributes returns the existing queue (a second start on LocalStack).
      url = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: queueAttributes(props) }))).QueueUrl;
    } catch (error) {
      throw setupError(`creating queue ${name}`, error);
    }
    if (!url) throw new LocalSetupError(`creating queue ${name}: no queue URL returned`);
    const described = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    return {
      logicalId,
      type: 'AWS::SQS::Queue',
      ref: url,
      attributes: { Arn: described.Attributes?.QueueArn ?? `arn:aws:sqs:${region}:${accountId}:${name}`, QueueName: name, QueueUrl: url },
    };
  };

  try {
    for (const logicalId of Object.keys(declared)) await ensure(logicalId, []);
  } finally {
    dynamodb.destroy();
    s3.destroy();
    sqs.destroy();
  }
  return result;
}

/** Logical ids a value refers to through `Ref` or `GetAtt`. */
function referencedResources(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedResources);
  if (typeof value !== 'object' || value === null) return [];
  const entries = Object.entries(value);
  const [name, arg] = entries[0] ?? [];
  if (entries.length === 1 && name === 'Ref') return [String(arg)];
  if (entries.length === 1 && name === 'Fn::GetAtt') return [String(Array.isArray(arg) ? arg[0] : String(arg).split('.')[0])];
  return entries.flatMap(([, item]) => referencedResources(item));
}

function tableInput(props: Record<string, unknown>, generatedName: string): CreateTableCommandInput {
  const stream = props.StreamSpecification as { StreamViewType?: string } | undefined;
  return {
    TableName: typeof props.TableName === 'string' ? props.TableName : generatedName,
    AttributeDefinitions: props.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
    KeySchema: props.KeySchema as CreateTableCommandInput['KeySchema'],
    BillingMode: props.BillingMode as CreateTableCommandInput['BillingMode'],
    ProvisionedThroughput: props.ProvisionedThroughput as CreateTableCommandInput['ProvisionedThroughput'],
    GlobalSecondaryIndexes: props.GlobalSecondaryIndexes as CreateTableCommandInput['GlobalSecondaryIndexes'],
    LocalSecondaryIndexes: props.LocalSecondaryIndexes as CreateTableCommandInput['LocalSecondaryIndexes'],
    StreamSpecification: stream?.StreamViewType
      ? { StreamEnabled: true, StreamViewType: stream.StreamViewType as 'NEW_AND_OLD_IMAGES' }
      : undefined,
  };
}

type CfnLifecycleRule = {
  Id?: string;
  Status?: string;
  Prefix?: string;
  ExpirationInDays?: number;
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation?: number };
};

/** CloudFormation's lifecycle rule shape, in the S3 API's. */
function lifecycleRules(configuration: unknown): LifecycleRule[] {
  const rules = (configuration as { Rules?: CfnLifecycleRule[] } | undefined)?.Rules ?? [];
  return rules.map((rule) => ({
    ID: rule.Id,
    Status: rule.Status === 'Disabled' ? 'Disabled' : 'Enabled',
    Filter: { Prefix: rule.Prefix ?? '' },
    ...(rule.ExpirationInDays === undefined ? {} : { Expiration: { Days: Number(rule.ExpirationInDays) } }),
    ...(rule.AbortIncompleteMultipartUpload?.DaysAfterInitiation === undefined
      ? {}
      : { AbortIncompleteMultipartUpload: { DaysAfterInitiation: Number(rule.AbortIncompleteMultipartUpload.DaysAfterInitiation) } }),
  }));
}

/** Queue properties that are SQS attributes, as the API wants them (strings, JSON policies). */
const QUEUE_ATTRIBUTES = [
  'ContentBasedDeduplication',
  'DelaySeconds',
  'FifoQueue',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'RedrivePolicy',
  'VisibilityTimeout',
];

function queueAttributes(props: Record<string, unknown>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const name of QUEUE_ATTRIBUTES) {
    const value = props[name];
    if (value !== undefined) attributes[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return attributes;
}

function setupError(action: string, error: unknown): LocalSetupError {
  return new LocalSetupError(`${action} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
