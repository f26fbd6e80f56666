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
import { GetQueueAttributesCommand, GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { createAwsClients } from '../../../lib/aws/clients.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../../../lib/local/local-aws.js';
import { provisionResources } from '../../../lib/local/provision.js';
import { PROJECT_SERVERLESS_FILE, type CfnResource } from '../../../lib/local/serverless-config.js';
import { FIXTURE_SERVERLESS_FILE, withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

type Props = Record<string, unknown>;
type CfnIndex = { IndexName: string; KeySchema: KeySchemaElement[]; Projection: { ProjectionType: string } };

const keys = (schema: KeySchemaElement[] | undefined) => (schema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`);

for (const [label, file] of [
  ['the project serverless.yml', PROJECT_SERVERLESS_FILE],
  ['the fixture serverless.yml', FIXTURE_SERVERLESS_FILE],
] as const) {
  describe(`provisionResources with ${label}`, () => {
    let aws: LocalAwsForTests;
    let declared: [string, CfnResource][];
    const ofType = (type: string) => declared.filter(([, resource]) => resource.Type === type);

    before(async () => {
      aws = await withLocalAws({ serverlessFile: file });
      declared = Object.entries(aws.local.serverless.config.resources.Resources);
    });
    after(() => aws.stop());

    it('creates every declared table with its keys and indexes', async () => {
      // Prepare
      const dynamodb = new DynamoDBClient({ region: aws.config.region });
      const { TableNames = [] } = await dynamodb.send(new ListTablesCommand({}));

      // Act & Assess
      for (const [logicalId, resource] of ofType('AWS::DynamoDB::Table')) {
        const props = resource.Properties as Props;
        const name = aws.local.provisioned.resources[logicalId]?.ref as string;
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
        const name = aws.local.provisioned.resources[logicalId]?.ref as string;
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
        const provisioned = aws.local.provisioned.resources[logicalId];
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
          const dlqName = aws.local.provisioned.resources[redrive.deadLetterTargetArn['Fn::GetAtt'][0]]?.attributes.QueueName;
          assert.equal(policy.deadLetterTargetArn, `arn:aws:sqs:${aws.config.region}:${LOCAL_ACCOUNT_ID}:${dlqName}`);
          assert.equal(Number(policy.maxReceiveCount), redrive.maxReceiveCount);
        }
      }
    });

    it('leaves out resource types that have no local emulator, and says so', () => {
      // Act
      const skipped = aws.local.provisioned.skipped.map((resource) => resource.logicalId).sort();

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
      const again = await provisionResources(aws.local.serverless, { accountId: LOCAL_ACCOUNT_ID });

      // Assess
      assert.deepEqual(again.resources, aws.local.provisioned.resources);
      const { Item } = await aws.clients.dynamo.send(new GetCommand({ TableName: table, Key: { tokenHash: 'kept' } }));
      assert.deepEqual(Item, { tokenHash: 'kept' });
    });
  });
}

describe('provisionResources with resources that have no emulator and refer to what only AWS has', () => {
  const serverlessFile = fileURLToPath(new URL('fixtures/skipped-resources.yml', import.meta.url));
  let local: LocalAws;

  before(async () => {
    // Act: what `npm start` does; resolving the alarm's or the subscription's properties would throw here
    local = await startLocalAws({ serverlessFile });
  });
  after(() => local?.stop());

  it('skips them whole, condition and properties unresolved, and lists them', () => {
    // Assess
    assert.deepEqual(local.provisioned.skipped, [
      { logicalId: 'AlarmTopic', type: 'AWS::SNS::Topic' },
      { logicalId: 'EmailSubscription', type: 'AWS::SNS::Subscription' },
      { logicalId: 'Api5xxAlarm', type: 'AWS::CloudWatch::Alarm' },
    ]);
    assert.deepEqual(local.provisioned.warnings, []);
  });

  it('still creates the resources it has an emulator for, and sets the environment that uses them', async () => {
    // Prepare
    const { sqs } = createAwsClients({ region: local.serverless.config.provider.region });

    // Act
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'skipped-test-alarms' }));
    sqs.destroy();

    // Assess
    assert.deepEqual(Object.keys(local.provisioned.resources), ['AlarmsQueue']);
    assert.equal(local.provisioned.resources.AlarmsQueue?.ref, QueueUrl);
    assert.equal(process.env.ALARMS_QUEUE_URL, QueueUrl);
  });
});

describe('startLocalAws environment', () => {
  let aws: LocalAwsForTests;
  const original = { ...process.env };

  before(async () => {
    process.env.FIXTURE_GREETING = 'from the shell';
    aws = await withLocalAws({ serverlessFile: FIXTURE_SERVERLESS_FILE });
  });
  after(async () => {
    await aws.stop();
    delete process.env.FIXTURE_GREETING;
  });

  it('sets !Ref, !GetAtt and !Sub in the function environment to the local resources', async () => {
    // Prepare
    const { resources } = aws.local.provisioned;
    const queueUrl = process.env.JOBS_QUEUE_URL as string;

    // Act
    const { Attributes = {} } = await aws.clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    );

    // Assess
    assert.equal(process.env.JOBS_QUEUE_ARN, Attributes.QueueArn);
    assert.equal(process.env.JOBS_TABLE, resources.JobsTable?.ref);
    assert.equal(process.env.JOBS_DLQ_NAME, resources.JobsDeadLetterQueue?.attributes.QueueName);
    assert.equal(process.env.FILES_OBJECTS_ARN, `arn:aws:s3:::${resources.FilesBucket?.ref}/*`);
    assert.equal(process.env.TOKENS_TABLE, 'fixture-test-tokens');
  });

  it('keeps a variable already set in the shell and reports it', () => {
    // Assess
    assert.equal(process.env.FIXTURE_GREETING, 'from the shell');
    assert.deepEqual(aws.local.overridden, ['FIXTURE_GREETING']);
  });

  it('puts process.env back as it was once stopped', async () => {
    // Prepare
    const outer = { ...process.env };
    const inner = await withLocalAws({ serverlessFile: FIXTURE_SERVERLESS_FILE });
    const innerEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;

    // Act
    await inner.stop();

    // Assess
    assert.notEqual(innerEndpoint, outer.AWS_ENDPOINT_URL_DYNAMODB);
    assert.deepEqual({ ...process.env }, outer);
    assert.equal(original.JOBS_QUEUE_URL, undefined);
  });
});
