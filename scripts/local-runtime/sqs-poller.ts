import {
  DeleteMessageBatchCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LocalSetupError } from './errors.js';
import type { Invocation, LambdaRuntime } from './lambda-runtime.js';
import type { LocalFunction, SqsEventSource } from './service-definition.js';

export type SqsPollerOptions = {
  functions: LocalFunction[];
  runtime: LambdaRuntime;
  sqs: SQSClient;
  region: string;
  /** Turns an event's `arn` (often `!GetAtt JobsQueue.Arn`) into the queue ARN. */
  resolveArn: (arn: unknown) => unknown;
  /** Long-poll wait; Lambda's pollers use 20 s. */
  waitTimeSeconds?: number;
  /** Pollers per event source when it sets no `maximumConcurrency`. */
  defaultConcurrency?: number;
  /** Pollers per event source at most: no more than the runtime runs instances of a function. */
  maxConcurrency?: number;
  log?: (line: string) => void;
};

export type RunningPollers = {
  /** One entry per polled queue: which function it feeds. */
  sources: { functionKey: string; queueArn: string; queueUrl: string }[];
  /** Stops polling and waits (briefly) for batches being processed. */
  stop(): Promise<void>;
};

/** How long `stop()` waits for batches in flight before giving up on them. */
const STOP_GRACE_MS = 5_000;

/**
 * Emulates Lambda's SQS event source mapping: long-polls each queue that feeds
 * a function, invokes the handler with an `SQSEvent` of up to `batchSize`
 * (at most 10) records, deletes what succeeded and leaves the rest to
 * reappear after the visibility timeout. With `ReportBatchItemFailures` only
 * the listed messages stay; a malformed response fails the whole batch.
 * Redrive to a dead-letter queue after `maxReceiveCount` is done by fauxqs
 * from the queue's RedrivePolicy, as SQS does.
 */
export async function startSqsPollers(opts: SqsPollerOptions): Promise<RunningPollers> {
  const controller = new AbortController();
  const loops: Promise<void>[] = [];
  const sources: RunningPollers['sources'] = [];
  const log = opts.log ?? ((line: string) => console.error(line));

  for (const fn of opts.functions) {
    for (const source of fn.sqsEvents) {
      if (!source.enabled) continue;
      const queueArn = await opts.resolveArn(source.arn);
      if (typeof queueArn !== 'string' || !queueArn.startsWith('arn:')) {
        throw new LocalSetupError(`functions.${fn.key}: sqs arn resolved to ${JSON.stringify(queueArn)}, not an ARN`);
      }
      const queueName = queueArn.split(':').pop() as string;
      const { QueueUrl: queueUrl } = await opts.sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      if (!queueUrl) throw new LocalSetupError(`functions.${fn.key}: queue ${queueName} not found`);
      sources.push({ functionKey: fn.key, queueArn, queueUrl });
      const concurrency = Math.min(source.maximumConcurrency ?? opts.defaultConcurrency ?? 2, opts.maxConcurrency ?? Infinity);
      for (let i = 0; i < concurrency; i += 1) {
        loops.push(poll({ ...opts, log }, fn, source, queueArn, queueUrl, controller.signal));
      }
    }
  }

  return {
    sources,
    async stop() {
      controller.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(loops),
        new Promise((resolve) => {
          timer = setTimeout(resolve, STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

async function poll(
  opts: SqsPollerOptions & { log: (line: string) => void },
  fn: LocalFunction,
  source: SqsEventSource,
  queueArn: string,
  queueUrl: string,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    let messages: Message[];
    try {
      const received = await opts.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(Math.max(source.batchSize, 1), 10),
          WaitTimeSeconds: opts.waitTimeSeconds ?? 20,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (signal.aborted) return;
      opts.log(`[${fn.key}] receiving from ${queueArn} failed: ${error instanceof Error ? error.message : String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (messages.length === 0) continue;
    const event: SQSEvent = { Records: messages.map((message) => sqsRecord(message, queueArn, opts.region)) };
    const outcome = await opts.runtime.invoke(fn, event);
    const failed = failedMessageIds(outcome, event, source.reportBatchItemFailures);
    const done = messages.filter((message) => !failed.has(message.MessageId as string));
    if (done.length === 0) continue;
    try {
      // Deleting must not be interrupted by stop(): the work is done.
      await opts.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    } catch (error) {
      opts.log(`[${fn.key}] deleting from ${queueArn} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * Which messages of a batch must stay on the queue. A failed invocation keeps
 * all; without ReportBatchItemFailures a success keeps none; with it, the
 * listed ids stay, and a response naming no message of the batch keeps all.
 */
export function failedMessageIds(outcome: Invocation, event: SQSEvent, reportBatchItemFailures: boolean): Set<string> {
  const all = new Set(event.Records.map((record) => record.messageId));
  if (!outcome.ok) return all;
  if (!reportBatchItemFailures) return new Set();
  const response = outcome.result as Partial<SQSBatchResponse> | null | undefined;
  const failures = response?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

/** A received message in the shape Lambda hands to the function. */
function sqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
    };
  }
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...attributes,
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}
