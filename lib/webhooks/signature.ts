import { createHmac } from 'node:crypto';
import { WebhookSecretError } from './errors.js';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key inside a `whsec_<base64>` secret. */
function signingKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new WebhookSecretError();
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new WebhookSecretError();
  return key;
}

/**
 * The Standard Webhooks signature of a payload: `v1,` and the base64
 * HMAC-SHA256, keyed with the secret's decoded key, of `id.timestamp.body`.
 */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one delivery attempt of `body`. */
export function webhookSignatureHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secret, id, timestampSeconds, body),
  };
}
