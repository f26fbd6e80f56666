import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import { createLambdaRuntime, type LambdaRuntime } from '../../../scripts/local-runtime/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID } from '../../../scripts/local-runtime/local-aws.js';
import { startSqsPollers, type RunningPollers } from '../../../scripts/local-runtime/sqs-poller.js';
import { FIXTURE_SERVERLESS_FILE, withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { recorded } from './fixtures/handlers/jobs.js';
import { fixedTempDir } from '../../helpers/temp-dir.js';

/** A fixed directory: FIXTURE_OUT is part of the resolved configuration, and a fixed value keeps osls' answer cached. */
const OUT = path.join(tmpdir(), 'docrender-fixture-sqs-poller');
const seen = () => recorded<SQSRecord>(OUT, 'jobs');

/** Polls `check` until it holds; fails the test with `what` after `limitMs`. */
async function eventually(what: string, check: () => Promise<boolean> | boolean, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('startSqsPollers', () => {
  let aws: LocalAwsForTests;
  let pollers: RunningPollers | undefined;
  let queueUrl: string;
  let dlqUrl: string;

  let runtime: LambdaRuntime | undefined;

  const start = async () => {
    const { service } = aws.local;
    runtime = createLambdaRuntime({
      serviceDir: service.serviceDir,
      region: service.region,
      accountId: LOCAL_ACCOUNT_ID,
      environmentOf: aws.local.environmentOf,
    });
    pollers = await startSqsPollers({
      functions: service.functions,
      runtime,
      sqs: aws.clients.sqs,
      region: aws.config.region,
      resolveArn: (arn) => aws.local.resources.physical(arn, 'test'),
      waitTimeSeconds: 1,
      log: () => undefined,
    });
  };
  const send = (body: string) => aws.clients.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const messagesLeft = async (url: string) => {
    const { Attributes = {} } = await aws.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible);
  };

  before(async () => {
    fixedTempDir(path.basename(OUT));
    aws = await withLocalAws({ file: FIXTURE_SERVERLESS_FILE, env: { ...process.env, FIXTURE_OUT: OUT } });
    queueUrl = aws.local.resources.created.JobsQueue?.ref as string;
    dlqUrl = aws.local.resources.created.JobsDeadLetterQueue?.ref as string;
  });
  beforeEach(async () => {
    rmSync(path.join(OUT, 'jobs.jsonl'), { force: true });
    await aws.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    await aws.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: dlqUrl }));
  });
  afterEach(async () => {
    await pollers?.stop();
    await runtime?.stop();
    pollers = undefined;
  });
  after(() => aws.stop());

  it('feeds the queue to its function as an SQSEvent', async () => {
    // Prepare
    await start();

    // Act
    const { MessageId } = await send('ok-shape');
    await eventually('the handler got the message', () => seen().length > 0);

    // Assess
    const record = seen()[0];
    assert.equal(record?.messageId, MessageId);
    assert.equal(record?.body, 'ok-shape');
    assert.equal(record?.eventSource, 'aws:sqs');
    assert.equal(record?.eventSourceARN, aws.local.resources.created.JobsQueue?.attributes.Arn);
    assert.equal(record?.awsRegion, aws.config.region);
    assert.equal(record?.attributes.ApproximateReceiveCount, '1');
    assert.ok(record?.receiptHandle);
  });

  it('deletes the messages that succeeded and leaves a reported failure on the queue', async () => {
    // Prepare
    await start();

    // Act
    await send('ok-1');
    await send('fail-1');
    await eventually('both messages were handled', () => seen().length >= 2);
    await eventually('the successful message was deleted', async () => (await messagesLeft(queueUrl)) === 1);
    await pollers?.stop();
    const left = [];
    // The failed message may have been received again meanwhile and redriven to the DLQ (maxReceiveCount 2).
    for (const url of [queueUrl, dlqUrl]) {
      const { Messages = [] } = await aws.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 2, MaxNumberOfMessages: 10 }),
      );
      left.push(...Messages.map((message) => message.Body));
    }

    // Assess
    assert.deepEqual(left, ['fail-1']);
  });

  it('moves a message that keeps failing to the dead-letter queue after maxReceiveCount', async () => {
    // Prepare
    await start();

    // Act
    await send('fail-always');
    await eventually('the message reached the dead-letter queue', async () => (await messagesLeft(dlqUrl)) === 1);

    // Assess
    assert.equal(seen().filter((record) => record.body === 'fail-always').length, 2, 'maxReceiveCount is 2');
    assert.equal(await messagesLeft(queueUrl), 0);
  });
});
