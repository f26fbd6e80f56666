import * as v from 'valibot';
import { MalformedMessageError } from './errors.js';
import type { JobMessage, WebhookMessage } from './job-queue.js';

const Key = { accountId: v.pipe(v.string(), v.nonEmpty()), jobId: v.pipe(v.string(), v.nonEmpty()) };
const JobMessageSchema = v.object(Key);
const WebhookMessageSchema = v.object({ ...Key, attempt: v.pipe(v.number(), v.integer(), v.minValue(1)) });

/** Reads a queue message body against its schema; MalformedMessageError when it is not JSON or does not fit. */
export function parseMessage<T>(schema: v.GenericSchema<unknown, T>, body: string): T {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new MalformedMessageError({ cause: error });
  }
  const parsed = v.safeParse(schema, json);
  if (!parsed.success) throw new MalformedMessageError({ cause: new v.ValiError(parsed.issues) });
  return parsed.output;
}

/** Reads a jobs queue message body. */
export function parseJobMessage(body: string): JobMessage {
  return parseMessage(JobMessageSchema, body);
}

/** Reads a webhooks queue message body. */
export function parseWebhookMessage(body: string): WebhookMessage {
  return parseMessage(WebhookMessageSchema, body);
}
