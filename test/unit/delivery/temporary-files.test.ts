import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newFileKey } from '../../../lib/files/file-keys.js';
import { sweepTemporaryFiles, temporaryFileUrl } from '../../../lib/files/temporary-files.js';
import { memoryFileStore } from '../jobs/fakes.js';

describe('temporaryFileUrl', () => {
  it('signs a URL for what is left of the file lifetime, so the URL never outlives the file', async () => {
    // Prepare
    const files = memoryFileStore();
    const createdAt = '2026-01-01T10:00:00.000Z';

    // Act
    const fresh = await temporaryFileUrl(files, { key: 'files/a/x.pdf', createdAt }, 3600, Date.parse(createdAt));
    const later = await temporaryFileUrl(files, { key: 'files/a/x.pdf', createdAt }, 3600, Date.parse('2026-01-01T10:45:00.000Z'));
    const expired = await temporaryFileUrl(files, { key: 'files/a/x.pdf', createdAt }, 3600, Date.parse('2026-01-01T11:00:00.000Z'));

    // Assess
    assert.match(String(fresh), /expires=3600$/);
    assert.match(String(later), /expires=900$/);
    assert.equal(expired, undefined);
  });
});

describe('sweepTemporaryFiles', () => {
  it('deletes the files older than their lifetime and keeps the younger ones', async () => {
    // Prepare
    const files = memoryFileStore();
    const old = await files.put('a', Buffer.from('old'), 'application/pdf');
    files.files.get(old.key)!.file.createdAt = new Date(Date.now() - 3601_000).toISOString();
    const young = await files.put('a', Buffer.from('young'), 'application/pdf');

    // Act
    const deleted = await sweepTemporaryFiles(files, 3600);

    // Assess
    assert.equal(deleted, 1);
    assert.deepEqual([...files.files.keys()], [young.key]);
  });
});

describe('newFileKey', () => {
  it('puts the file under files/<account>/ with an unguessable name and the type’s extension', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newFileKey('acct-1', 'image/jpeg')));
    assert.equal(keys.size, 100);
    for (const key of keys) assert.match(key, /^files\/acct-1\/[A-Za-z0-9_-]{32}\.jpg$/);
    assert.match(newFileKey('acct-1', 'application/pdf'), /\.pdf$/);
  });
});
