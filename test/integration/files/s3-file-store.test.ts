import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3FileStore } from '../../../lib/aws/s3-file-store.js';
import type { FileStore } from '../../../lib/files/file-store.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';

describe('createS3FileStore', () => {
  let aws: LocalAwsForTests;
  let files: FileStore;

  before(async () => {
    aws = await withLocalAws();
    files = createS3FileStore({ s3: aws.clients.s3, bucket: aws.config.filesBucket });
  });
  after(() => aws.stop());

  it('stores a file under files/<account>/ and serves its bytes and type from a pre-signed URL', async () => {
    // Prepare
    const body = Buffer.from('%PDF-1.7 integration');

    // Act
    const stored = await files.put('acct-1', body, 'application/pdf');
    const url = await files.downloadUrl(stored.key, 3600);
    const response = await fetch(url);

    // Assess
    assert.match(stored.key, /^files\/acct-1\/[A-Za-z0-9_-]{32}\.pdf$/);
    assert.equal(stored.size, body.length);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), body);
    assert.match(url, /X-Amz-Expires=3600/);
    assert.match(url, /X-Amz-Signature=/);
  });

  it('stores a file larger than one request (20 MiB) in parts, byte for byte, with its type', async () => {
    // Prepare: distinct bytes in every part, so a part out of place would show
    const body = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32LE(i, i);

    // Act
    const stored = await files.put('acct-1', body, 'image/png');
    const response = await fetch(await files.downloadUrl(stored.key, 60));

    // Assess
    assert.equal(stored.size, body.length);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(body), 'the downloaded file is the stored one');
  });

  it('reads a stored file back, and nothing for a key that is gone', async () => {
    const stored = await files.put('acct-1', Buffer.from([1, 2, 3]), 'image/png');
    assert.deepEqual(await files.read(stored.key), Buffer.from([1, 2, 3]));
    assert.equal(await files.read('files/acct-1/missing.png'), undefined);
  });

  it('deletes only the temporary files stored before the cutoff, and nothing outside files/', async () => {
    // Prepare
    const old = await files.put('acct-1', Buffer.from('old'), 'image/png');
    const template = 'templates/acct-1/tpl.json';
    await aws.clients.s3.send(new PutObjectCommand({ Bucket: aws.config.filesBucket, Key: template, Body: '{}' }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const cutoff = new Date();
    const young = await files.put('acct-1', Buffer.from('young'), 'image/png');

    // Act
    const deleted = await files.deleteOlderThan(cutoff);

    // Assess
    assert.ok(deleted >= 1);
    assert.equal(await files.read(old.key), undefined);
    assert.deepEqual(await files.read(young.key), Buffer.from('young'));
    const kept = await fetch(await files.downloadUrl(young.key, 60));
    assert.equal(kept.status, 200);
    assert.equal((await kept.arrayBuffer()).byteLength, 5);
    assert.equal(await files.read(template).then((b) => b?.toString()), '{}', 'a template object is never swept');
  });

  it('lets go of a streamed body whose upload failed: its source is returned, not left suspended', async () => {
    // Prepare: a bucket that does not exist, and a source of 64 MiB in 1 MiB chunks that says when it was let go
    const missing = createS3FileStore({ s3: aws.clients.s3, bucket: 'docrender-no-such-bucket' });
    let yielded = 0;
    let returned = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        for (; yielded < 64; yielded++) yield Buffer.alloc(1024 * 1024, yielded);
      } finally {
        returned = true;
      }
    }

    // Act
    await assert.rejects(missing.putStream('acct-1', source(), 'application/zip'));
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Assess: the source stopped early and ran its finally (a batch's archive destroys its item streams there)
    assert.ok(yielded < 64, `read ${yielded} MiB of 64`);
    assert.equal(returned, true);
  });
});
