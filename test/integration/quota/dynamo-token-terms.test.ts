import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDynamoTokenStore } from '../../../lib/aws/dynamo-token-store.js';
import { NotFoundError } from '../../../lib/errors.js';
import { planOf } from '../../../lib/tokens/plans.js';
import { createToken, hashToken, setTokenTerms } from '../../../lib/tokens/tokens.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

describe('createDynamoTokenStore updateTerms', () => {
  let aws: LocalAwsForTests;
  let store: ReturnType<typeof createDynamoTokenStore>;

  before(async () => {
    aws = await withLocalAws();
    store = createDynamoTokenStore(aws.clients.dynamo, aws.config.tables.tokens);
  });
  after(() => aws.stop());

  it('changes a stored token to another plan and back to unlimited, keeping everything else', async () => {
    // Prepare
    const { token, accountId } = await createToken(store, { plan: 'free' });

    // Act
    await setTokenTerms(store, token, { plan: 'pro' });
    await setTokenTerms(store, token, { limit: null });
    const found = await store.findByHash(hashToken(token));

    // Assess
    assert.equal(found?.monthlyLimit, null);
    assert.equal(found?.ratePerSecond, 20);
    assert.equal(found?.accountId, accountId);
    assert.equal(found?.active, true);
    assert.equal(planOf(found ?? { monthlyLimit: 0, ratePerSecond: 0 }), 'custom');
  });

  it('never creates a record for a token that was not issued', async () => {
    // Act & Assess
    await assert.rejects(setTokenTerms(store, 'dr_not_issued_0000000000000', { rate: 5 }), NotFoundError);
    assert.equal(await store.findByHash(hashToken('dr_not_issued_0000000000000')), undefined);
  });
});
