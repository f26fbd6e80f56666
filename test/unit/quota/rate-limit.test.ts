import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimitedError } from '../../../lib/errors.js';
import { admitRequest } from '../../../lib/quota/admission.js';
import { rateLimitHeaders, rateWindow, type RateLimitState } from '../../../lib/quota/rate-limit.js';
import type { UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { memoryUsageStore as counters } from './memory-usage-store.js';

/** The token record the in-memory counters admit against: the one last counted. */
let subscriber: TokenRecord | undefined;
const memoryUsageStore = () => counters(() => subscriber);

/** Counts one request as an admission does; where the caller stands afterwards, refused (429) or not. */
async function countRequest(store: UsageStore, record: TokenRecord, nowMs: number): Promise<RateLimitState> {
  subscriber = record;
  let state: RateLimitState | undefined;
  await admitRequest(store, record.tokenHash, { countRate: true, onRate: (s) => (state = s) }, nowMs).catch((error: unknown) => {
    if (!(error instanceof RateLimitedError)) throw error;
  });
  return state as RateLimitState;
}

const token = (ratePerSecond: number): TokenRecord => ({
  tokenHash: 'b'.repeat(64),
  accountId: 'acct',
  active: true,
  monthlyLimit: null,
  ratePerSecond,
  webhookSecret: 'whsec_x',
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('rateWindow', () => {
  it('counts whole rates per second', () => {
    // Act & Assess
    assert.deepEqual(rateWindow(1), { seconds: 1, allowed: 1 });
    assert.deepEqual(rateWindow(100), { seconds: 1, allowed: 100 });
  });

  it('enforces fractional rates exactly over a longer window', () => {
    // Act & Assess
    assert.deepEqual(rateWindow(2.5), { seconds: 2, allowed: 5 });
    assert.deepEqual(rateWindow(0.5), { seconds: 2, allowed: 1 });
    assert.deepEqual(rateWindow(0.1), { seconds: 10, allowed: 1 });
  });

  it('never allows zero requests in a window, even for rates with no exact window', () => {
    // Act
    const window = rateWindow(1 / 7000);

    // Assess
    assert.equal(window.seconds, 3600);
    assert.equal(window.allowed, 1);
  });
});

describe('counting requests (admitRequest)', () => {
  it('allows the rate within one second, refuses the next request, and allows again in the next second', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const second = Date.UTC(2026, 5, 10, 12, 0, 0);

    // Act
    const inWindow = [];
    for (let i = 0; i < 4; i++) inWindow.push(await countRequest(usage.store, token(3), second + 100 + i));
    const nextSecond = await countRequest(usage.store, token(3), second + 1000);

    // Assess
    assert.deepEqual(inWindow.map((s) => s.exceeded), [false, false, false, true]);
    assert.deepEqual(inWindow.map((s) => s.remaining), [2, 1, 0, 0]);
    assert.equal(nextSecond.exceeded, false);
    assert.equal(nextSecond.remaining, 2);
  });

  it('tells the whole seconds until the window ends, at least 1', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const windowStart = Date.UTC(2026, 5, 10, 12, 0, 0); // a multiple of 10 s

    // Act
    const early = await countRequest(usage.store, token(0.1), windowStart + 200);
    const late = await countRequest(usage.store, token(0.1), windowStart + 9_900);

    // Assess
    assert.equal(early.resetSeconds, 10);
    assert.equal(late.resetSeconds, 1);
    assert.equal(late.exceeded, true, 'a second request in the same 10 s window is over 0.1/s');
  });

  it('counts each token in its own window', async () => {
    // Prepare
    const usage = memoryUsageStore();
    const now = Date.UTC(2026, 5, 10, 12, 0, 0);
    await countRequest(usage.store, token(1), now);

    // Act
    const other = await countRequest(usage.store, { ...token(1), tokenHash: 'c'.repeat(64) }, now);

    // Assess
    assert.equal(other.exceeded, false);
  });
});

describe('rateLimitHeaders', () => {
  it('writes limit, remaining and reset as header strings', () => {
    // Act & Assess
    assert.deepEqual(rateLimitHeaders({ limit: 10, remaining: 3, resetSeconds: 1, exceeded: false }), {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '3',
      'x-ratelimit-reset': '1',
    });
  });
});
