import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createAwsClients } from '../../../lib/aws/clients.js';
import { createDynamoUsageStore } from '../../../lib/aws/dynamo-usage-store.js';
import { StorageError } from '../../../lib/aws/errors.js';
import { QuotaExceededError } from '../../../lib/errors.js';
import { readQuota, refundQuota, spendQuota } from '../../../lib/quota/quota.js';
import { countRequest } from '../../../lib/quota/rate-limit.js';
import type { UsageStore } from '../../../lib/quota/usage-store.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { generateToken, hashToken } from '../../../lib/tokens/tokens.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

const NOW = new Date('2026-06-15T12:00:00Z');

function token(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    tokenHash: hashToken(generateToken()),
    accountId: 'acct-1',
    active: true,
    monthlyLimit: 10,
    ratePerSecond: 10,
    webhookSecret: 'whsec_c2VjcmV0',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('createDynamoUsageStore', () => {
  let aws: LocalAwsForTests;
  /** One store per simulated Lambda instance, each with its own SDK client and connections. */
  let instances: UsageStore[];
  const extraClients: ReturnType<typeof createAwsClients>[] = [];

  before(async () => {
    aws = await withLocalAws();
    for (let i = 0; i < 4; i++) extraClients.push(createAwsClients(aws.config));
    instances = [aws.clients, ...extraClients].map((c) => createDynamoUsageStore(c.dynamo, aws.config.tables.usage));
  });
  after(async () => {
    for (const c of extraClients) c.dynamo.destroy();
    await aws.stop();
  });
  const store = () => instances[0] as UsageStore;

  it('accepts exactly 10 of 50 concurrent renders against a quota of 10, across instances', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: 10 });

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-${i}`, NOW)),
    );

    // Assess
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(accepted.length, 10);
    assert.equal(refused.length, 40);
    for (const r of refused) assert.ok(r.reason instanceof QuotaExceededError, String(r.reason));
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 10);
  });

  it('counts every render of an unlimited token, concurrent ones included', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: null });

    // Act
    await Promise.all(Array.from({ length: 25 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-${i}`, NOW)));

    // Assess
    assert.deepEqual(await readQuota(store(), subscriber, NOW), {
      limit: null,
      used: 25,
      remaining: null,
      period: { start: '2026-06-01T00:00:00.000Z', end: '2026-07-01T00:00:00.000Z' },
    });
  });

  it('counts a refund once, even when it is asked for 20 times at once from several instances', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: 3 });
    const spends = [];
    for (let i = 0; i < 3; i++) spends.push(await spendQuota(store(), subscriber, `req-${i}`, NOW));
    const failed = spends[1] as (typeof spends)[number];

    // Act
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refundQuota(instances[i % instances.length] as UsageStore, failed)),
    );

    // Assess
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 2);
  });

  it('makes room for exactly one more render after one refund of a spent quota', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: 2 });
    const first = await spendQuota(store(), subscriber, 'req-a', NOW);
    await spendQuota(store(), subscriber, 'req-b', NOW);
    await refundQuota(store(), first);

    // Act
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => spendQuota(instances[i % instances.length] as UsageStore, subscriber, `req-c${i}`, NOW)),
    );

    // Assess
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.equal((await readQuota(store(), subscriber, NOW)).remaining, 0);
  });

  it('keeps the month counter the same size however many refunds it takes, each expiring with it', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: null });
    const spends = await Promise.all(Array.from({ length: 60 }, (_, i) => spendQuota(store(), subscriber, `refund-me-${i}`, NOW)));
    const pk = `quota#${subscriber.tokenHash}#2026-06`;

    // Act
    const refunded = await Promise.all(spends.map((spend) => refundQuota(store(), spend)));
    const again = await Promise.all(spends.map((spend) => refundQuota(store(), spend)));

    // Assess
    const { Item: counter } = await aws.clients.dynamo.send(new GetCommand({ TableName: aws.config.tables.usage, Key: { pk } }));
    const { Item: marker } = await aws.clients.dynamo.send(
      new GetCommand({ TableName: aws.config.tables.usage, Key: { pk: `refund#${subscriber.tokenHash}#2026-06#refund-me-7` } }),
    );
    assert.deepEqual([refunded.filter(Boolean).length, again.filter(Boolean).length], [60, 0]);
    assert.deepEqual(Object.keys(counter ?? {}).sort(), ['expiresAt', 'pk', 'used']);
    assert.equal(counter?.used, 0);
    assert.equal(marker?.expiresAt, counter?.expiresAt);
  });

  it('never counts below zero: a refund without a spend changes nothing', async () => {
    // Prepare
    const subscriber = token();

    // Act
    const refunded = await refundQuota(store(), { tokenHash: subscriber.tokenHash, period: '2026-06', spendId: 'ghost' });

    // Assess
    assert.equal(refunded, false);
    assert.equal((await readQuota(store(), subscriber, NOW)).used, 0);
  });

  it('keeps months apart: last month spent out does not limit this month', async () => {
    // Prepare
    const subscriber = token({ monthlyLimit: 1 });
    await spendQuota(store(), subscriber, 'may', new Date('2026-05-31T23:59:59Z'));

    // Act
    const june = await spendQuota(store(), subscriber, 'june', NOW);

    // Assess
    assert.equal(june.period, '2026-06');
    assert.equal((await readQuota(store(), subscriber, new Date('2026-05-20T00:00:00Z'))).used, 1);
  });

  it('counts 25 concurrent requests in one rate window exactly: 10 allowed at 10/s, 15 refused', async () => {
    // Prepare
    const caller = token({ ratePerSecond: 10 });
    const inOneSecond = Date.UTC(2026, 5, 15, 12, 0, 0) + 500;

    // Act
    const states = await Promise.all(
      Array.from({ length: 25 }, (_, i) => countRequest(instances[i % instances.length] as UsageStore, caller, inOneSecond)),
    );

    // Assess
    assert.equal(states.filter((s) => !s.exceeded).length, 10);
    assert.equal(states.filter((s) => s.exceeded).length, 15);
    assert.deepEqual(
      states.map((s) => s.remaining).filter((r) => r > 0).sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
  });

  it('starts each rate window at zero and keeps tokens apart', async () => {
    // Prepare
    const caller = token({ ratePerSecond: 1 });
    const other = token({ ratePerSecond: 1 });
    const second = Date.UTC(2026, 5, 15, 12, 0, 0);
    await countRequest(store(), caller, second);

    // Act
    const sameSecond = await countRequest(store(), caller, second + 999);
    const otherToken = await countRequest(store(), other, second + 999);
    const nextSecond = await countRequest(store(), caller, second + 1000);

    // Assess
    assert.equal(sameSecond.exceeded, true);
    assert.equal(otherToken.exceeded, false);
    assert.equal(nextSecond.exceeded, false);
  });

  it('throws StorageError, not an SDK exception, when the table is missing', async () => {
    // Prepare
    const missing = createDynamoUsageStore(aws.clients.dynamo, 'no-such-table');

    // Act & Assess
    await assert.rejects(spendQuota(missing, token(), 'r', NOW), StorageError);
    await assert.rejects(countRequest(missing, token()), StorageError);
  });
});
