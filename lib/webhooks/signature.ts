import { createHmac } from 'node:crypto';
import { VENDOR_SIGNATURE_HEADER } from '../schemas/webhook-signature-headers.js';
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

/**
 * The vendor-style signature: lowercase hex HMAC-SHA256 of the raw body,
 * keyed by the whole secret string as printed (`whsec_…`, UTF-8), because
 * that is how the vendor's SDK recomputes it; the key is not decoded.
 */
export function vendorWebhookSignature(secret: string, body: string): string {
  signingKey(secret); // the same secret rules as the Standard Webhooks signature
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

/** Every signature header for one delivery attempt of `body`: Standard Webhooks and the vendor's. */
export function webhookSignatureHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string; 'x-doczilla-signature': string } {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secret, id, timestampSeconds, body),
    [VENDOR_SIGNATURE_HEADER]: vendorWebhookSignature(secret, body),
  } as const;
}
