import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError } from '../../../lib/aws/errors.js';
import { createDynamoTokenStore } from '../../../lib/aws/dynamo-token-store.js';
import { TokenExistsError } from '../../../lib/tokens/errors.js';
import type { TokenRecord, TokenStore } from '../../../lib/tokens/token-store.js';
import { generateToken, hashToken } from '../../../lib/tokens/tokens.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

function record(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    tokenHash: hashToken(generateToken()),
    accountId: 'acct-1',
    active: true,
    monthlyLimit: null,
    ratePerSecond: 10,
    webhookSecret: 'whsec_c2VjcmV0',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('createDynamoTokenStore', () => {
  let aws: LocalAwsForTests;
  let store: TokenStore;

  before(async () => {
    aws = await withLocalAws();
    store = createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens);
  });
  after(() => aws.stop());

  it('finds a created record by its hash, every field intact', async () => {
    // Prepare
    const stored = record({ monthlyLimit: 250, ratePerSecond: 2.5 });

    // Act
    await store.create(stored);
    const found = await store.findByHash(stored.tokenHash);

    // Assess
    assert.deepEqual(found, stored);
  });

  it('returns undefined for a hash that was never stored', async () => {
    // Act
    const found = await store.findByHash(hashToken('never-issued-token-value'));

    // Assess
    assert.equal(found, undefined);
  });

  it('throws TokenExistsError when the hash exists, keeping the first record', async () => {
    // Prepare
    const first = record({ accountId: 'first' });
    await store.create(first);

    // Act & Assess
    await assert.rejects(store.create({ ...first, accountId: 'second' }), TokenExistsError);
    assert.equal((await store.findByHash(first.tokenHash))?.accountId, 'first');
  });

  it('deactivates and reactivates an existing token', async () => {
    // Prepare
    const stored = record();
    await store.create(stored);

    // Act
    const deactivated = await store.setActive(stored.tokenHash, false);
    const afterDeactivate = await store.findByHash(stored.tokenHash);
    const reactivated = await store.setActive(stored.tokenHash, true);
    const afterReactivate = await store.findByHash(stored.tokenHash);

    // Assess
    assert.equal(deactivated, true);
    assert.equal(afterDeactivate?.active, false);
    assert.equal(reactivated, true);
    assert.equal(afterReactivate?.active, true);
  });

  it('answers false for an unknown token without creating a record', async () => {
    // Prepare
    const hash = hashToken(generateToken());

    // Act
    const changed = await store.setActive(hash, false);

    // Assess
    assert.equal(changed, false);
    assert.equal(await store.findByHash(hash), undefined);
  });

  it('throws StorageError, not an SDK exception, when the table is missing', async () => {
    // Prepare
    const missing = createDynamoTokenStore(aws.clients.dynamo, 'no-such-table');

    // Act & Assess
    await assert.rejects(missing.findByHash('x'), (error) => {
      assert.ok(error instanceof StorageError);
      assert.equal(error.statusCode, 500);
      assert.equal(error.expose, false);
      assert.match(error.message, /no-such-table.*does not exist/);
      return true;
    });
  });
});
