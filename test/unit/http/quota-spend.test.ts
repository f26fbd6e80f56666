import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '@aws-lambda-powertools/logger';
import { QuotaExceededError } from '../../../lib/errors.js';
import { withQuotaSpend } from '../../../lib/http/quota-spend.js';
import type { CallerContext, HttpResult } from '../../../lib/http/types.js';
import { admitRequest } from '../../../lib/quota/admission.js';
import { billingPeriod, readQuota } from '../../../lib/quota/quota.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { memoryUsageStore } from '../quota/memory-usage-store.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');
/** Far past any function's timeout, in the same month. */
const AN_HOUR_LATER = NOW + 3_600_000;
const TOKEN: TokenRecord = { tokenHash: 'h-1', accountId: 'acct-1', active: true, monthlyLimit: 1, ratePerSecond: 1000, webhookSecret: 'whsec_x', createdAt: '2026-01-01T00:00:00.000Z' };
const logger = { error: () => undefined, warn: () => undefined } as unknown as Logger;

/** A render admitted as the endpoint admits one (its unit spent), run under withQuotaSpend. */
async function render(usage: ReturnType<typeof memoryUsageStore>, spendId: string, work: () => Promise<HttpResult>, at = NOW) {
  const { spend } = await admitRequest(usage.store, TOKEN.tokenHash, { countRate: false, spendId }, at);
  return withQuotaSpend({ usage: usage.store, logger }, { spend, context: {} as CallerContext }, work);
}

describe('withQuotaSpend', () => {
  it('gives back the unit of a render the runtime killed (no code of it ran after the work) once its hold has passed', async () => {
    // Prepare: the render never ends, as one the runtime killed at its timeout.
    const usage = memoryUsageStore((hash) => (hash === TOKEN.tokenHash ? TOKEN : undefined));
    void render(usage, 'killed', () => new Promise<HttpResult>(() => undefined));
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(admitRequest(usage.store, TOKEN.tokenHash, { countRate: false, spendId: 'meanwhile' }, NOW + 60_000), QuotaExceededError);

    // Act
    const reported = await readQuota(usage.store, TOKEN, new Date(AN_HOUR_LATER));
    const next = await render(usage, 'next', async () => ({ statusCode: 200, headers: {}, body: '' }) as HttpResult, AN_HOUR_LATER);

    // Assess
    assert.equal(reported.used, 0, 'the usage report no longer counts it');
    assert.equal(next.statusCode, 200, 'the next render is admitted');
    assert.equal(usage.usedBy(TOKEN.tokenHash, billingPeriod(new Date(NOW)).key), 1);
  });

  it('keeps the unit of a render that succeeded spent, past the hold too', async () => {
    // Prepare
    const usage = memoryUsageStore((hash) => (hash === TOKEN.tokenHash ? TOKEN : undefined));
    await render(usage, 'done', async () => ({ statusCode: 200, headers: {}, body: '' }) as HttpResult);

    // Act
    const later = admitRequest(usage.store, TOKEN.tokenHash, { countRate: false, spendId: 'later' }, AN_HOUR_LATER);

    // Assess
    await assert.rejects(later, QuotaExceededError);
    assert.equal((await readQuota(usage.store, TOKEN, new Date(AN_HOUR_LATER))).used, 1);
    assert.equal(usage.heldOf(TOKEN.tokenHash), 0, 'the success confirmed it');
  });

  it('gives the unit back at once when the render fails with a 5xx, and only once', async () => {
    // Prepare
    const usage = memoryUsageStore((hash) => (hash === TOKEN.tokenHash ? TOKEN : undefined));

    // Act
    const failed = await render(usage, 'failed', async () => ({ statusCode: 502, headers: {}, body: '' }) as HttpResult);

    // Assess
    assert.equal(failed.statusCode, 502);
    assert.equal((await readQuota(usage.store, TOKEN, new Date(AN_HOUR_LATER))).used, 0);
    assert.equal(usage.heldOf(TOKEN.tokenHash), 0);
  });

  it('leaves a success\'s confirmation to the post-response phase where there is one, off the caller\'s clock', async () => {
    // Prepare
    const usage = memoryUsageStore((hash) => (hash === TOKEN.tokenHash ? TOKEN : undefined));
    const left: Array<() => Promise<void>> = [];
    const { spend } = await admitRequest(usage.store, TOKEN.tokenHash, { countRate: false, spendId: 'deferred' }, NOW);

    // Act
    const answer = await withQuotaSpend({ usage: usage.store, logger, afterAnswer: (task) => void left.push(task) }, { spend, context: {} as CallerContext }, async () => ({ statusCode: 200, headers: {}, body: '' }) as HttpResult);
    const heldAtAnswer = usage.heldOf(TOKEN.tokenHash);
    for (const task of left) await task();

    // Assess
    assert.equal(answer.statusCode, 200);
    assert.equal(heldAtAnswer, 1, 'answered before the confirmation');
    assert.equal(left.length, 1);
    assert.equal(usage.heldOf(TOKEN.tokenHash), 0, 'confirmed after the answer');
    assert.equal((await readQuota(usage.store, TOKEN, new Date(AN_HOUR_LATER))).used, 1);
  });
});
