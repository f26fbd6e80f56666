import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createDynamoTemplateStore } from '../../../lib/aws/dynamo-template-store.js';
import { newTemplateId } from '../../../lib/templates/template-ids.js';
import type { Template, TemplateStore } from '../../../lib/templates/template-store.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

const template = (accountId: string, n: number, over: Partial<Template> = {}): Template => {
  const at = new Date(1_750_000_000_000 + n * 1000);
  return {
    id: newTemplateId(at.getTime()),
    accountId,
    name: `T${n}`,
    output: 'PDF',
    variables: { page: { url: 'https://example.com' }, pdf: { format: 'a4' } },
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    ...over,
  };
};

describe('createDynamoTemplateStore (against the DynamoDB and S3 emulators)', () => {
  let aws: LocalAwsForTests;
  let store: TemplateStore;
  before(async () => {
    aws = await withLocalAws();
    store = createDynamoTemplateStore({
      dynamo: aws.clients.dynamo,
      s3: aws.clients.s3,
      tableName: aws.config.tables.templates,
      bucket: aws.config.filesBucket,
    });
  });
  after(async () => {
    await aws?.stop();
  });

  it('pages through 45 templates 20 at a time, newest first, each page reachable directly', async () => {
    const all = Array.from({ length: 45 }, (_, n) => template('acc-pages', n));
    for (const t of all) await store.create(t);
    await store.create(template('acc-other', 99));

    const pages = await Promise.all([1, 2, 3, 4].map((n) => store.list('acc-pages', n, 20)));
    assert.deepEqual(pages.map((p) => p.items.length), [20, 20, 5, 0]);
    assert.deepEqual(pages.map((p) => p.hasNextPage), [true, true, false, false]);
    assert.deepEqual(pages.map((p) => p.hasPreviousPage), [false, true, true, true]);
    const names = pages.flatMap((p) => p.items.map((i) => i.name));
    assert.deepEqual(names, all.map((t) => t.name).reverse());
    assert.equal('variables' in (pages[0]?.items[0] ?? {}), false);
  });

  it("scopes every read and write to the owner: another account's id is as good as unknown", async () => {
    const mine = template('acc-owner', 1);
    await store.create(mine);
    assert.equal(await store.get('acc-thief', mine.id), undefined);
    assert.equal(await store.replace({ ...mine, accountId: 'acc-thief', name: 'stolen' }), false);
    assert.equal(await store.remove('acc-thief', mine.id), false);
    assert.deepEqual((await store.list('acc-thief', 1, 20)).items, []);
    assert.deepEqual(await store.get('acc-owner', mine.id), mine);
  });

  it('replaces and removes a template', async () => {
    const t = template('acc-crud', 1);
    await store.create(t);
    assert.equal(await store.replace({ ...t, name: 'renamed' }), true);
    assert.equal((await store.get('acc-crud', t.id))?.name, 'renamed');
    assert.equal(await store.remove('acc-crud', t.id), true);
    assert.equal(await store.get('acc-crud', t.id), undefined);
    assert.equal(await store.replace(t), false);
  });

  it('keeps variables over the DynamoDB item limit in S3 and cleans them up', async () => {
    const big = { page: { html: Buffer.from('x'.repeat(600_000)).toString('base64') } };
    const t = template('acc-big', 1, { variables: big });
    await store.create(t);
    assert.deepEqual((await store.get('acc-big', t.id))?.variables, big);
    const stored = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: 'templates/acc-big/' }));
    assert.equal(stored.KeyCount, 1);

    assert.equal(await store.replace({ ...t, variables: { page: { url: 'https://small.example' } } }), true);
    assert.deepEqual((await store.get('acc-big', t.id))?.variables, { page: { url: 'https://small.example' } });
    const afterShrink = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: 'templates/acc-big/' }));
    assert.equal(afterShrink.KeyCount ?? 0, 0);

    const again = template('acc-big', 2, { variables: big });
    await store.create(again);
    assert.equal(await store.remove('acc-big', again.id), true);
    const afterRemove = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: 'templates/acc-big/' }));
    assert.equal(afterRemove.KeyCount ?? 0, 0);
  });

  it('keeps variables nested deeper than DynamoDB allows (32 levels) in S3 and reads them back', async () => {
    // Prepare: the emulator does not enforce DynamoDB's nesting limit, so where they went is what is checked.
    const templateData = JSON.parse(`${'{"a":'.repeat(60)}1${'}'.repeat(60)}`) as Record<string, unknown>;
    const deep = { page: { htmlTemplate: Buffer.from('{{a}}').toString('base64'), templateData } };
    const t = template('acc-deep', 1, { variables: deep });

    // Act
    await store.create(t);

    // Assess
    assert.deepEqual((await store.get('acc-deep', t.id))?.variables, deep);
    const stored = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: 'templates/acc-deep/' }));
    assert.equal(stored.KeyCount, 1);
  });

  it('keeps the S3 copy of variables replaced by small ones that still nest too deep to stay in the item', async () => {
    // Prepare: large variables (kept in S3), then a replacement under the size limit but nested past the depth limit.
    const t = template('acc-redeep', 1, { variables: { page: { html: Buffer.from('x'.repeat(600_000)).toString('base64') } } });
    await store.create(t);
    const templateData = JSON.parse(`${'{"a":'.repeat(60)}1${'}'.repeat(60)}`) as Record<string, unknown>;
    const deep = { page: { htmlTemplate: Buffer.from('{{a}}').toString('base64'), templateData } };

    // Act
    const replaced = await store.replace({ ...t, variables: deep });

    // Assess
    assert.equal(replaced, true);
    assert.deepEqual((await store.get('acc-redeep', t.id))?.variables, deep);
  });
});
