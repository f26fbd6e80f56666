import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { PDFDocument } from '@cantoo/pdf-lib';
import { writeBatchOutputs, type BatchOutputFile } from '../../../lib/batches/batch-outputs.js';
import type { BatchItemRecord } from '../../../lib/batches/batch-store.js';
import type { StoredFile } from '../../../lib/files/file-store.js';
import { memoryFileStore, silentLogger, type MemoryFileStore } from '../jobs/fakes.js';

const KEY = { accountId: 'acct', batchId: 'bat_1' };

async function pdfOf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return Buffer.from(await doc.save());
}

/** Completed items, each a PDF of `pages[i]` pages stored in `files`, except those in `expired` (recorded, then gone). */
async function completedItems(files: MemoryFileStore, pages: number[], expired: number[] = []): Promise<BatchItemRecord[]> {
  return Promise.all(
    pages.map(async (count, index) => {
      const file: StoredFile = await files.put(KEY.accountId, await pdfOf(count), 'application/pdf');
      if (expired.includes(index)) files.files.delete(file.key);
      return { jobId: `${KEY.batchId}.${index}`, status: 'COMPLETED' as const, file, batchItem: { batchId: KEY.batchId, index, name: `item-${index}` } };
    }),
  );
}

const pagesOf = async (files: MemoryFileStore, made: BatchOutputFile | { error: unknown } | undefined) => {
  assert.ok(made && 'file' in made, `made: ${JSON.stringify(made)}`);
  return (await PDFDocument.load(files.files.get(made.file.key)!.body)).getPageCount();
};

describe('writeBatchOutputs', () => {
  it('leaves an item whose file has expired out of the archive and the merged PDF, names it and why, and makes the rest', async () => {
    // Prepare
    const files = memoryFileStore();
    const items = await completedItems(files, [1, 2, 3], [1]);

    // Act
    const made = await writeBatchOutputs(KEY, { zip: true, merge: true }, items, { files, logger: silentLogger });

    // Assess
    assert.ok(made.zip && 'file' in made.zip);
    const zip = files.files.get(made.zip.file.key)!.body;
    assert.ok(zip.includes(Buffer.from('item-0.pdf')) && zip.includes(Buffer.from('item-2.pdf')) && !zip.includes(Buffer.from('item-1.pdf')));
    assert.deepEqual(made.zip.leftOut.map(({ index, name, error }) => [index, name, error.code]), [[1, 'item-1', 'batch.item_file_expired']]);
    assert.equal(await pagesOf(files, made.merged), 1 + 3);
    assert.deepEqual(made.merged && 'leftOut' in made.merged ? made.merged.leftOut.map((each) => each.index) : undefined, [1]);
  });

  it('does not make a merged PDF past its page or byte bound, says why, and still makes the archive', async () => {
    // Prepare
    const files = memoryFileStore();
    const items = await completedItems(files, [2, 2, 2]);
    const bytes = items.reduce((sum, item) => sum + item.file!.size, 0);

    // Act
    const byPages = await writeBatchOutputs(KEY, { zip: true, merge: true }, items, { files, logger: silentLogger, limits: { mergedPages: 5, mergedBytes: bytes } });
    const byBytes = await writeBatchOutputs(KEY, { zip: false, merge: true }, items, { files, logger: silentLogger, limits: { mergedPages: 6, mergedBytes: bytes - 1 } });
    const within = await writeBatchOutputs(KEY, { zip: false, merge: true }, items, { files, logger: silentLogger, limits: { mergedPages: 6, mergedBytes: bytes } });

    // Assess
    assert.deepEqual(byPages.merged, { error: { code: 'batch.merge_too_large', message: "The merged PDF would pass 5 pages; download the items' files from the manifest instead" } });
    assert.ok(byPages.zip && 'file' in byPages.zip, 'the archive is still made');
    assert.equal(byBytes.merged && 'error' in byBytes.merged ? byBytes.merged.error.code : undefined, 'batch.merge_too_large');
    assert.match(byBytes.merged && 'error' in byBytes.merged ? byBytes.merged.error.message : '', /would pass 0\.\d+ MB/);
    assert.equal(await pagesOf(files, within.merged), 6);
  });

  it('destroys every item stream it opened, those opened ahead included, when the archive fails half-way', async () => {
    // Prepare: ten items whose files stream in two chunks; the upload takes three chunks of the archive, then fails
    const files = memoryFileStore();
    const items = await completedItems(files, Array.from({ length: 10 }, () => 1));
    const opened: Readable[] = [];
    const failing: MemoryFileStore = {
      ...files,
      async readStream(key) {
        const body = files.files.get(key)!.body;
        const stream = Readable.from([body.subarray(0, 10), body.subarray(10)]);
        opened.push(stream);
        return stream;
      },
      async putStream(_accountId, body) {
        let taken = 0;
        for await (const _chunk of body) if (++taken === 3) throw new Error('the upload failed');
        throw new Error('unreachable');
      },
    };

    // Act
    const made = await writeBatchOutputs(KEY, { zip: true, merge: false }, items, { files: failing, logger: silentLogger });
    await new Promise((resolve) => setImmediate(resolve));

    // Assess
    assert.deepEqual(made.zip, { error: { code: 'batch.zip', message: "The batch's archive could not be made" } });
    assert.ok(opened.length > 1, 'files were opened ahead');
    assert.deepEqual(opened.map((stream) => stream.destroyed), opened.map(() => true));
  });
});
