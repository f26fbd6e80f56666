/** The header the vendor's SDK (`doczilla.webhook.verifyPayload`) checks. */
export const VENDOR_SIGNATURE_HEADER = 'x-doczilla-signature';

/**
 * The headers that sign every webhook call: Standard Webhooks' three and the
 * vendor's. Named here, below both of their users, because the signer
 * (`lib/webhooks`) writes them and the request schema (`lib/schemas`) refuses
 * them from callers; neither folder then needs the other.
 */
export const WEBHOOK_SIGNATURE_HEADER_NAMES: readonly string[] = ['webhook-id', 'webhook-timestamp', 'webhook-signature', VENDOR_SIGNATURE_HEADER];
