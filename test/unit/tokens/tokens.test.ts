import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import type { TokenRecord, TokenStore } from '../../../lib/tokens/token-store.js';
import {
  createToken,
  DEFAULT_RATE_PER_SECOND,
  generateToken,
  generateWebhookSecret,
  hashToken,
  setTokenActive,
} from '../../../lib/tokens/tokens.js';

/** An in-memory TokenStore that keeps every record it is given. */
function memoryStore() {
  const records = new Map<string, TokenRecord>();
  const store: TokenStore = {
    findByHash: async (hash) => records.get(hash),
    create: async (record) => {
      records.set(record.tokenHash, record);
    },
    setActive: async (hash, active) => {
      const record = records.get(hash);
      if (!record) return false;
      record.active = active;
      return true;
    },
  };
  return { store, records };
}

describe('generateToken', () => {
  it('returns dr_ followed by 32 random bytes in base64url', () => {
    // Act
    const token = generateToken();

    // Assess
    assert.match(token, /^dr_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.slice(3), 'base64url').length, 32);
  });

  it('never repeats itself and uses the whole alphabet evenly', () => {
    // Act
    const tokens = Array.from({ length: 2000 }, generateToken);

    // Assess
    assert.equal(new Set(tokens).size, tokens.length);
    const counts = new Map<string, number>();
    for (const token of tokens) for (const char of token.slice(3, 45)) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.equal(counts.size, 64, 'every base64url character appears');
    const expected = (2000 * 42) / 64;
    for (const [char, count] of counts) {
      assert.ok(count > expected * 0.7 && count < expected * 1.3, `character ${char} appears ${count} times`);
    }
  });
});

describe('hashToken', () => {
  it('is the lower-case hex SHA-256 of the token', () => {
    // Act
    const hash = hashToken('abc');

    // Assess
    assert.equal(hash, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('gives different tokens different hashes and the same token the same hash', () => {
    // Prepare
    const token = generateToken();

    // Act & Assess
    assert.equal(hashToken(token), hashToken(token));
    assert.notEqual(hashToken(token), hashToken(generateToken()));
    assert.match(hashToken(token), /^[0-9a-f]{64}$/);
  });
});

describe('generateWebhookSecret', () => {
  it('writes a 32-byte key as whsec_<base64>, the Standard Webhooks form', () => {
    // Act
    const secret = generateWebhookSecret();

    // Assess
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  });
});

describe('createToken', () => {
  it('stores only the hash, with an unlimited quota, the default rate and an active subscription', async () => {
    // Prepare
    const { store, records } = memoryStore();

    // Act
    const created = await createToken(store);

    // Assess
    const record = records.get(hashToken(created.token));
    assert.ok(record, 'the record is found by the hash of the returned token');
    assert.equal(record.active, true);
    assert.equal(record.monthlyLimit, null);
    assert.equal(record.ratePerSecond, DEFAULT_RATE_PER_SECOND);
    assert.equal(record.accountId, created.accountId);
    assert.equal(record.webhookSecret, created.webhookSecret);
    assert.ok(!JSON.stringify(record).includes(created.token), 'the clear token is not stored');
  });

  it('gives every token its own account and webhook secret', async () => {
    // Prepare
    const { store } = memoryStore();

    // Act
    const first = await createToken(store);
    const second = await createToken(store);

    // Assess
    assert.notEqual(first.accountId, second.accountId);
    assert.notEqual(first.webhookSecret, second.webhookSecret);
  });

  it('applies limit, rate and inactive, and registers an exact value when given', async () => {
    // Prepare
    const { store, records } = memoryStore();

    // Act
    const created = await createToken(store, { limit: 100, rate: 2.5, active: false, token: 'local-dev-token-1234' });

    // Assess
    assert.equal(created.token, 'local-dev-token-1234');
    assert.deepEqual(
      (({ active, monthlyLimit, ratePerSecond }) => ({ active, monthlyLimit, ratePerSecond }))(
        records.get(hashToken('local-dev-token-1234')) as TokenRecord,
      ),
      { active: false, monthlyLimit: 100, ratePerSecond: 2.5 },
    );
  });

  it('throws ValidationError naming each bad option, storing nothing', async () => {
    // Prepare
    const { store, records } = memoryStore();

    // Act & Assess
    await assert.rejects(createToken(store, { limit: -1, rate: 0, token: 'has spaces in it, not a token' }), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields).sort(), ['limit', 'rate', 'token']);
      return true;
    });
    assert.equal(records.size, 0);
  });
});

describe('setTokenActive', () => {
  it('switches a token off and on again', async () => {
    // Prepare
    const { store, records } = memoryStore();
    const { token } = await createToken(store);

    // Act
    await setTokenActive(store, token, false);
    const afterDeactivate = records.get(hashToken(token))?.active;
    await setTokenActive(store, token, true);

    // Assess
    assert.equal(afterDeactivate, false);
    assert.equal(records.get(hashToken(token))?.active, true);
  });

  it('throws NotFoundError for a token that was never issued', async () => {
    // Prepare
    const { store } = memoryStore();

    // Act & Assess
    await assert.rejects(setTokenActive(store, generateToken(), false), NotFoundError);
  });
});
