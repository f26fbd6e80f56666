import * as v from 'valibot';
import { MalformedMessageError } from './errors.js';
import type { JobMessage, WebhookMessage } from './job-queue.js';

const Key = { accountId: v.pipe(v.string(), v.nonEmpty()), jobId: v.pipe(v.string(), v.nonEmpty()) };
const JobMessageSchema = v.object(Key);
const WebhookMessageSchema = v.object({ ...Key, attempt: v.pipe(v.number(), v.integer(), v.minValue(1)) });

function parse<T>(schema: v.GenericSchema<unknown, T>, body: string): T {
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
  return parse(JobMessageSchema, body);
}

/** Reads a webhooks queue message body. */
export function parseWebhookMessage(body: string): WebhookMessage {
  return parse(WebhookMessageSchema, body);
}
