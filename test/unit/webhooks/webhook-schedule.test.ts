import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config.js';
import { delayBeforeAttempt, maxWebhookAttempts } from '../../../lib/webhooks/webhook-schedule.js';

describe('webhook retry schedule', () => {
  it('by default retries within 60 s, makes at least 5 attempts, spans at least 15 minutes and fits SQS delays', () => {
    // Prepare
    const delays = loadConfig({}).webhookRetryDelaysSeconds;

    // Act
    const attempts = maxWebhookAttempts(delays);
    const waits = Array.from({ length: attempts }, (_, i) => delayBeforeAttempt(i + 1, delays));

    // Assess
    assert.equal(waits[0], 0, 'the first attempt is made at once');
    assert.ok((waits[1] ?? Infinity) <= 60, `first retry after ${waits[1]} s`);
    assert.ok(attempts >= 5, `${attempts} attempts`);
    assert.ok(waits.reduce((a, b) => a + b, 0) >= 15 * 60, `spans ${waits.reduce((a, b) => a + b, 0)} s`);
    assert.ok(waits.every((w, i) => w <= 900 && (i < 2 || w >= (waits[i - 1] ?? 0))), `growing delays ${waits.join(',')}`);
  });

  it('follows WEBHOOK_RETRY_DELAYS', () => {
    const delays = loadConfig({ WEBHOOK_RETRY_DELAYS: '1,2' }).webhookRetryDelaysSeconds;
    assert.equal(maxWebhookAttempts(delays), 3);
    assert.deepEqual([1, 2, 3].map((n) => delayBeforeAttempt(n, delays)), [0, 1, 2]);
  });

  it('refuses delays SQS cannot hold, at cold start', () => {
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '30,1000' }), /WEBHOOK_RETRY_DELAYS.*900/);
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '30,soon' }), /WEBHOOK_RETRY_DELAYS/);
  });
});
