import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { generateWebhookSecret } from '../../../lib/tokens/tokens.js';
import { WebhookSecretError } from '../../../lib/webhooks/errors.js';
import { vendorWebhookSignature, webhookSignature, webhookSignatureHeaders } from '../../../lib/webhooks/signature.js';

describe('webhookSignature', () => {
  it('matches the Standard Webhooks reference example', () => {
    // Prepare: the example secret, id, timestamp and payload of the Standard Webhooks specification.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

    // Act
    const signature = webhookSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');

    // Assess
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is what a receiver computes from the base64 key after whsec_ over "id.timestamp.body"', () => {
    // Prepare
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ id: 'job_1', status: 'COMPLETED', metadata: { ü: 'ß' } });

    // Act
    const headers = webhookSignatureHeaders(secret, 'job_1', 1_800_000_000, body);

    // Assess
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`job_1.1800000000.${body}`).digest('base64');
    assert.equal(headers['webhook-id'], 'job_1');
    assert.equal(headers['webhook-timestamp'], '1800000000');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
  });

  it('carries x-doczilla-signature: hex HMAC-SHA256 of the raw body keyed by the secret string as printed', () => {
    // Prepare: the vendor SDK's verifyPayload recomputes exactly this.
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ id: 'job_1', status: 'COMPLETED', metadata: { ü: 'ß' } });

    // Act
    const headers = webhookSignatureHeaders(secret, 'job_1', 1_800_000_000, body);

    // Assess
    const expected = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
    assert.equal(headers['x-doczilla-signature'], expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
    assert.equal(vendorWebhookSignature(secret, body), expected);
    assert.notEqual(vendorWebhookSignature(secret, `${body} `), expected);
  });

  it('changes when the body, the id or the timestamp change', () => {
    // Prepare
    const secret = generateWebhookSecret();
    const base = webhookSignature(secret, 'job_1', 1, '{}');

    // Act
    const others = [webhookSignature(secret, 'job_1', 1, '{ }'), webhookSignature(secret, 'job_2', 1, '{}'), webhookSignature(secret, 'job_1', 2, '{}')];

    // Assess
    for (const other of others) assert.notEqual(other, base);
  });

  it('refuses a secret that is not whsec_<base64 key>', () => {
    for (const secret of ['', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_']) {
      assert.throws(() => webhookSignature(secret, 'job_1', 1, '{}'), WebhookSecretError, secret);
      assert.throws(() => vendorWebhookSignature(secret, '{}'), WebhookSecretError, secret);
    }
  });
});
