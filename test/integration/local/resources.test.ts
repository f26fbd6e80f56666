import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import {
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { GetBucketLifecycleConfigurationCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../../../scripts/local-runtime/local-aws.js';
import { createResources } from '../../../scripts/local-runtime/resources.js';
import { PROJECT_SERVERLESS_FILE, type CfnResource, type ResolvedService } from '../../../scripts/local-runtime/service-definition.js';
import { FIXTURE_SERVERLESS_FILE, withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

type Props = Record<string, unknown>;
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
type CfnIndex = { IndexName: string; KeySchema: KeySchemaElement[]; Projection: { ProjectionType: string } };

const keys = (schema: KeySchemaElement[] | undefined) => (schema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`);

for (const [label, file] of [
  ['the project serverless.yml', PROJECT_SERVERLESS_FILE],
  ['the fixture serverless.yml', FIXTURE_SERVERLESS_FILE],
] as const) {
  describe(`createResources with ${label}`, () => {
    let aws: LocalAwsForTests;
    let declared: [string, CfnResource][];
    const ofType = (type: string) => declared.filter(([, resource]) => resource.Type === type);

    before(async () => {
      aws = await withLocalAws({ file });
      declared = Object.entries(aws.local.service.resources);
    });
    after(() => aws.stop());

    it('creates every declared table with its keys and indexes', async () => {
      // Prepare
      const dynamodb = new DynamoDBClient({ region: aws.config.region });
      const { TableNames = [] } = await dynamodb.send(new ListTablesCommand({}));

      // Act & Assess
      for (const [logicalId, resource] of ofType('AWS::DynamoDB::Table')) {
        const props = resource.Properties as Props;
        const name = aws.local.resources.created[logicalId]?.ref as string;
        if (props.TableName) assert.equal(name, props.TableName);
        assert.ok(TableNames.includes(name), `${logicalId} (${name}) is listed`);
        const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
        assert.deepEqual(keys(Table?.KeySchema), keys(props.KeySchema as KeySchemaElement[]), `${logicalId} key`);
        for (const [kind, actual] of [
          ['GlobalSecondaryIndexes', Table?.GlobalSecondaryIndexes],
          ['LocalSecondaryIndexes', Table?.LocalSecondaryIndexes],
        ] as const) {
          const expected = (props[kind] as CfnIndex[] | undefined) ?? [];
          assert.deepEqual(
            (actual ?? []).map((index) => [index.IndexName, keys(index.KeySchema), index.Projection?.ProjectionType]),
            expected.map((index) => [index.IndexName, keys(index.KeySchema), index.Projection.ProjectionType]),
            `${logicalId} ${kind}`,
          );
        }
      }
      dynamodb.destroy();
    });

    it('creates every declared bucket with its lifecycle rules', async () => {
      for (const [logicalId, resource] of ofType('AWS::S3::Bucket')) {
        // Prepare
        const props = resource.Properties as Props;
        const name = aws.local.resources.created[logicalId]?.ref as string;
        if (props.BucketName) assert.equal(name, props.BucketName);

        // Act
        await aws.clients.s3.send(new HeadBucketCommand({ Bucket: name }));
        const declaredRules = (props.LifecycleConfiguration as { Rules?: Props[] } | undefined)?.Rules ?? [];
        if (declaredRules.length === 0) continue;
        const { Rules = [] } = await aws.clients.s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }));

        // Assess
        assert.deepEqual(
          Rules.map((rule) => [rule.ID, rule.Expiration?.Days]),
          declaredRules.map((rule) => [rule.Id, rule.ExpirationInDays]),
        );
      }
    });

    it('creates every declared queue with its attributes and redrive policy', async () => {
      for (const [logicalId, resource] of ofType('AWS::SQS::Queue')) {
        // Prepare
        const props = resource.Properties as Props;
        const provisioned = aws.local.resources.created[logicalId];
        const name = provisioned?.attributes.QueueName as string;
        if (props.QueueName) assert.equal(name, props.QueueName);

        // Act
        const { QueueUrl } = await aws.clients.sqs.send(new GetQueueUrlCommand({ QueueName: name }));
        const { Attributes = {} } = await aws.clients.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }),
        );

        // Assess
        for (const attribute of ['VisibilityTimeout', 'MessageRetentionPeriod', 'DelaySeconds'] as const) {
          if (props[attribute] !== undefined) assert.equal(Attributes[attribute], String(props[attribute]), attribute);
        }
        const redrive = props.RedrivePolicy as { deadLetterTargetArn: { 'Fn::GetAtt': [string, string] }; maxReceiveCount: number } | undefined;
        if (redrive) {
          const policy = JSON.parse(Attributes.RedrivePolicy ?? '{}');
          const dlqName = aws.local.resources.created[redrive.deadLetterTargetArn['Fn::GetAtt'][0]]?.attributes.QueueName;
          assert.equal(policy.deadLetterTargetArn, `arn:aws:sqs:${aws.config.region}:${LOCAL_ACCOUNT_ID}:${dlqName}`);
          assert.equal(Number(policy.maxReceiveCount), redrive.maxReceiveCount);
        }
      }
    });

    it('leaves out resource types that have no local emulator, and says so', () => {
      // Act
      const skipped = aws.local.resources.skipped.map((resource) => resource.logicalId).sort();

      // Assess
      const expected = declared
        .filter(([, resource]) => !['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SQS::Queue'].includes(resource.Type))
        .map(([logicalId]) => logicalId)
        .sort();
      assert.deepEqual(skipped, expected);
    });

    it('can run again over existing resources without losing their data', async () => {
      // Prepare
      const table = aws.config.tables.tokens;
      await aws.clients.dynamo.send(new PutCommand({ TableName: table, Item: { tokenHash: 'kept' } }));

      // Act
      const again = await createResources(aws.local.service, aws.local.endpoints, LOCAL_ACCOUNT_ID);

      // Assess
      assert.deepEqual(again.created, aws.local.resources.created);
      const { Item } = await aws.clients.dynamo.send(new GetCommand({ TableName: table, Key: { tokenHash: 'kept' } }));
      assert.deepEqual(Item, { tokenHash: 'kept' });
    });
  });
}

describe('createResources with resources that have no emulator and refer to what only AWS has', () => {
  const file = fileURLToPath(new URL('fixtures/skipped-resources.yml', import.meta.url));
  let local: LocalAws;

  before(async () => {
    // Act: what `npm start` does; resolving the alarm's or the subscription's properties would throw here
    local = await startLocalAws({ file });
  });
  after(() => local?.stop());

  it('skips them whole, condition and properties unresolved, and lists them', () => {
    // Assess
    assert.deepEqual(local.resources.skipped, [
      { logicalId: 'AlarmTopic', type: 'AWS::SNS::Topic' },
      { logicalId: 'EmailSubscription', type: 'AWS::SNS::Subscription' },
      { logicalId: 'Api5xxAlarm', type: 'AWS::CloudWatch::Alarm' },
    ]);
    assert.deepEqual(local.resources.warnings, []);
  });

  it('still creates the resources it has an emulator for, and sets the environment that uses them', async () => {
    // Prepare
    const sqs = new SQSClient({ region: local.service.region, endpoint: local.endpoints.sqs, credentials: LOCAL_CREDENTIALS });

    // Act
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'skipped-test-alarms' }));
    sqs.destroy();

    // Assess
    assert.deepEqual(Object.keys(local.resources.created), ['AlarmsQueue']);
    assert.equal(local.resources.created.AlarmsQueue?.ref, QueueUrl);
    assert.equal(local.environmentOf(local.service.functions[0] as ResolvedService['functions'][number]).ALARMS_QUEUE_URL, QueueUrl);
  });
});

describe('startLocalAws environment', () => {
  let local: LocalAws;
  const outer = { ...process.env };
  const fn = (key: string) => local.service.functions.find((candidate) => candidate.key === key) as ResolvedService['functions'][number];

  before(async () => {
    // Act: a value from the shell, read by serverless.yml's ${env:…} and resolved by osls
    local = await startLocalAws({ file: FIXTURE_SERVERLESS_FILE, env: { ...process.env, FIXTURE_GREETING_DEFAULT: 'from the shell' } });
  });
  after(() => local?.stop());

  it('sets Ref and GetAtt of a resource in a function environment to what the runner created', async () => {
    // Prepare
    const { created } = local.resources;
    const env = local.environmentOf(fn('echo'));
    const sqs = new SQSClient({ region: local.service.region, endpoint: local.endpoints.sqs, credentials: LOCAL_CREDENTIALS });

    // Act
    const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: env.JOBS_QUEUE_URL, AttributeNames: ['QueueArn'] }));
    sqs.destroy();

    // Assess
    assert.equal(env.JOBS_QUEUE_URL, created.JobsQueue?.ref);
    assert.equal(env.JOBS_QUEUE_ARN, Attributes.QueueArn);
    assert.equal(env.JOBS_TABLE, created.JobsTable?.ref);
    assert.equal(env.JOBS_DLQ_NAME, created.JobsDeadLetterQueue?.attributes.QueueName);
    assert.equal(env.TOKENS_TABLE, 'fixture-test-tokens');
    assert.equal(env.AWS_ENDPOINT_URL_DYNAMODB, local.endpoints.dynamodb);
  });

  it('gives each function the provider environment and its own, not another function\'s', () => {
    // Act
    const echo = local.environmentOf(fn('echo'));
    const lifecycle = local.environmentOf(fn('lifecycle'));

    // Assess
    assert.equal(echo.ONLY_ECHO, "echo's own");
    assert.equal(echo.ONLY_LIFECYCLE, undefined);
    assert.equal(lifecycle.ONLY_LIFECYCLE, "lifecycle's own");
    assert.equal(lifecycle.ONLY_ECHO, undefined);
    assert.equal(echo.FIXTURE_GREETING, 'from the shell');
    assert.equal(lifecycle.FIXTURE_GREETING, 'from the shell');
  });

  it('leaves this process\' environment alone', () => {
    // Assess
    assert.deepEqual({ ...process.env }, outer);
  });

  it('refuses an intrinsic other than Ref or GetAtt of a resource, naming the place, rather than evaluating it', async () => {
    // Prepare
    const [echo] = local.service.functions;
    const service: ResolvedService = {
      ...local.service,
      functions: [{ ...(echo as ResolvedService['functions'][number]), environment: { ARN: { 'Fn::Sub': 'arn:aws:s3:::${FilesBucket}/*' } } }],
    };
    const resources = await createResources(service, local.endpoints, LOCAL_ACCOUNT_ID);

    // Act & Assess
    assert.throws(() => resources.physical(service.functions[0]?.environment.ARN, 'functions.echo.environment.ARN'), /functions\.echo\.environment\.ARN: Fn::Sub is not run locally/);
  });
});
