import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { recordQueueAge } from '../observability/metrics.js';
import { JobBusyError, MalformedMessageError } from './errors.js';

/** What a message handler knows of its invocation's time. */
export type ConsumerClock = {
  /** Milliseconds the invocation has left (Lambda's `getRemainingTimeInMillis`): how long a lease or claim lasts. */
  timeLeftMs: () => number;
  now?: () => number;
};

/** Time kept back from an outbound call (upload, webhook) so that recording its outcome still fits in the invocation. */
export const RECORD_MARGIN_MS = 3_000;

export type QueueConsumerSpec<M> = {
  /** Name used in logs, e.g. `jobs-consume`. */
  name: string;
  /** Reads a message body; throws MalformedMessageError for one that can never be handled. */
  parse: (body: string) => M;
  /** Handles one message; a throw leaves it on the queue to be offered again. */
  handle: (message: M, clock: ConsumerClock, record: SQSRecord) => Promise<void>;
  logger: Logger;
};

/**
 * An SQS-triggered Lambda handler that reports partial batch failures
 * (`functionResponseType: ReportBatchItemFailures`) through Powertools'
 * `processPartialResponse`: the records of a batch are handled in parallel,
 * and only those that failed stay on the queue. A malformed message is
 * logged and dropped, since retrying it could only fill the dead-letter queue.
 */
export function queueConsumer<M>(spec: QueueConsumerSpec<M>) {
  // One per container, as Powertools intends: an instance runs one invocation at a time.
  const processor = new BatchProcessor(EventType.SQS);
  const handleRecord = async (record: SQSRecord, context: Context) => {
    recordQueueAge(spec.name, Date.now() - Number(record.attributes.SentTimestamp));
    let message: M;
    try {
      message = spec.parse(record.body);
    } catch (error) {
      if (!(error instanceof MalformedMessageError)) throw error;
      spec.logger.error('malformed message dropped', { consumer: spec.name, messageId: record.messageId, error });
      return;
    }
    try {
      await spec.handle(message, { timeLeftMs: () => context.getRemainingTimeInMillis() }, record);
    } catch (error) {
      const details = { consumer: spec.name, messageId: record.messageId, receiveCount: record.attributes.ApproximateReceiveCount };
      if (error instanceof JobBusyError) spec.logger.info(error.message, details);
      else spec.logger.error('message failed; it will be offered again', { ...details, error: error as Error });
      throw error;
    }
  };

  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    spec.logger.addContext(context);
    return processPartialResponse(event, (record: SQSRecord) => handleRecord(record, context), processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };
}
