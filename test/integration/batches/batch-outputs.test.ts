import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { batchItemJobId, newBatchId } from '../../../lib/batches/batch-ids.js';
import { checkBatch, CLOSE_CLAIM_MS, closeBatch, type BatchProgressDeps } from '../../../lib/batches/batch-progress.js';
import { parseBatchQueueMessage } from '../../../lib/batches/batch-queue.js';
import { batchResponse } from '../../../lib/batches/batch-response.js';
import type { BatchKey, BatchOutput, BatchStorage } from '../../../lib/batches/batch-store.js';
import { createEgressPolicy, useEgressPolicy } from '../../../lib/net/index.js';
import type { StoredFile } from '../../../lib/files/file-store.js';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { batchProgressDeps } from '../../helpers/batch-progress-deps.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { outlineOf, pageCountOf, pdfinfo } from '../../helpers/pdf-tools.js';
import { b64 } from '../../helpers/service.js';
import { tempDir } from '../../helpers/temp-dir.js';

const ACCOUNT = 'acct-batch-outputs';
const ITEMS = 200;

/** A PDF of `pages` pages, each saying which item it belongs to. */
async function itemPdf(index: number, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let page = 0; page < pages; page++) doc.addPage([300, 400]).drawText(`Item ${index} page ${page + 1}`, { x: 20, y: 350, size: 12, font });
  return Buffer.from(await doc.save());
}

type ItemSpec = { name: string; file?: { body: Buffer; contentType: string } };

describe('batch outputs: output.zip and output.merge made by a step of their own, then the batch closed', () => {
  let aws: LocalAwsForTests;
  let deps: BatchProgressDeps;
  const dir = tempDir('docrender-batch-outputs-');

  before(async () => {
    aws = await withLocalAws();
    deps = batchProgressDeps(aws, 'batch-outputs');
  });
  after(() => aws.stop());

  /** A batch whose items have all finished (a spec without a file failed), not yet closed. */
  async function finishedBatch(specs: ItemSpec[], output: BatchOutput, storage: BatchStorage | null = null): Promise<BatchKey> {
    const key = { accountId: ACCOUNT, batchId: newBatchId() };
    const now = new Date();
    // No fan-out steps: the items are recorded here, as they are.
    await deps.batches.create({ ...key, tokenHash: 'hash', total: specs.length, fanOutChunks: 0, output, storage, webhook: null, createdAt: now.toISOString(), expiresAt: 0 });
    let next = 0;
    const writer = async () => {
      while (next < specs.length) {
        const index = next++;
        const spec = specs[index]!;
        const file: StoredFile | undefined = spec.file ? await deps.files.put(ACCOUNT, spec.file.body, spec.file.contentType) : undefined;
        const job: Job = {
          ...newJob({ accountId: ACCOUNT, tokenHash: 'hash', input: { output: 'PDF', page: { html: b64('<p>x</p>') } }, storage: null, webhook: null }, now),
          jobId: batchItemJobId(key.batchId, index),
          batchItem: { batchId: key.batchId, index, name: spec.name },
          ...(file ? { status: 'COMPLETED' as const, file } : { status: 'FAILED' as const, error: { code: 'render.navigation', message: 'The page did not load' } }),
        };
        await deps.jobs.create(job);
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    return key;
  }

  const download = async (file: StoredFile | undefined, name: string) => {
    assert.ok(file, `${name} was made`);
    const path = join(dir, name);
    writeFileSync(path, (await deps.files.read(file.key))!);
    return path;
  };

  /** The outputs messages queued so far (taken off the outputs queue). */
  async function outputsMessages(): Promise<BatchKey[]> {
    const found: BatchKey[] = [];
    for (;;) {
      const { Messages = [] } = await aws.clients.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: aws.config.batchOutputsQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 300 }),
      );
      if (Messages.length === 0) return found;
      for (const message of Messages) {
        const parsed = parseBatchQueueMessage(message.Body as string);
        if (parsed.kind === 'outputs') found.push({ accountId: parsed.accountId, batchId: parsed.batchId });
        await aws.clients.sqs.send(new DeleteMessageCommand({ QueueUrl: aws.config.batchOutputsQueueUrl, ReceiptHandle: message.ReceiptHandle as string }));
      }
    }
  }

  /**
   * The watchdog's check (as the last item's finisher would) queues the outputs step and leaves the batch open;
   * the step (batch-outputs-build) makes them and closes it.
   */
  async function closeThroughOutputsStep(key: BatchKey): Promise<void> {
    await checkBatch(key, deps);
    await checkBatch(key, deps); // a second check while the step is under way queues no second step
    assert.equal((await deps.batches.get(key))?.closed, false, 'the closer leaves the outputs to their step');
    const queued = await outputsMessages();
    assert.deepEqual(queued, [key]);
    await closeBatch(queued[0]!, deps, 'build');
  }

  it(`zips ${ITEMS} items into an archive of ${ITEMS} files that open, and merges them into one PDF with every page and one outline entry per item`, async () => {
    // Prepare: items of 1 to 3 pages
    const pages = Array.from({ length: ITEMS }, (_, i) => (i % 3) + 1);
    const specs = await Promise.all(pages.map(async (count, i) => ({ name: `statement-${i}`, file: { body: await itemPdf(i, count), contentType: 'application/pdf' } })));
    const key = await finishedBatch(specs, { zip: true, merge: true });

    // Act: the watchdog's check queues the outputs step (as the last item's finisher would), which closes it
    await closeThroughOutputsStep(key);

    // Assess: the archive
    const batch = await deps.batches.get(key);
    assert.equal(batch?.status, 'COMPLETED');
    const zipPath = await download(batch?.zip, 'batch.zip');
    const listing = execFileSync('unzip', ['-Z1', zipPath], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(listing, specs.map((spec) => `${spec.name}.pdf`));
    execFileSync('unzip', ['-tq', zipPath]); // every entry's CRC checks out
    for (const i of [0, 101, ITEMS - 1]) {
      const pdf = execFileSync('unzip', ['-p', zipPath, `statement-${i}.pdf`]);
      assert.equal(pdf.length, specs[i]!.file.body.length);
      assert.match(pdfinfo(pdf).stdout, new RegExp(`Pages:\\s+${pages[i]}\\n`));
    }
    // the merged PDF: the sum of the pages, one outline entry per item by name, in order
    const merged = readFileSync(await download(batch?.merged, 'merged.pdf'));
    assert.equal(pageCountOf(merged), pages.reduce((a, b) => a + b, 0));
    const outline = outlineOf(merged);
    assert.deepEqual(outline.map((entry) => entry.title), specs.map((spec) => spec.name));
    assert.equal(outline[2]?.destpageposfrom1, 1 + 2 + 1);
    // the manifest and the batch's answer give both URLs
    const manifest = JSON.parse((await deps.files.read(batch!.manifest!.key))!.toString('utf8')) as { zip?: { fileUrl: string }; merged?: { fileUrl: string } };
    assert.match(manifest.zip?.fileUrl ?? '', /^http/);
    assert.match(manifest.merged?.fileUrl ?? '', /^http/);
    const answer = await batchResponse(batch!, { files: deps.files, lifetimeSeconds: 3600 });
    assert.equal(Buffer.compare(Buffer.from(await (await fetch(answer.zipUrl!)).arrayBuffer()), readFileSync(zipPath)), 0);
    assert.match(answer.mergedUrl ?? '', /^http/);
  });

  it('leaves failed items out of both, screenshots out of the merge, and keeps names apart', async () => {
    // Prepare
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
    const specs: ItemSpec[] = [
      { name: 'a', file: { body: await itemPdf(0, 2), contentType: 'application/pdf' } },
      { name: 'broken' },
      { name: 'shot', file: { body: png, contentType: 'image/png' } },
      { name: 'a.pdf', file: { body: await itemPdf(3, 1), contentType: 'application/pdf' } },
    ];
    const key = await finishedBatch(specs, { zip: true, merge: true });

    // Act
    await closeThroughOutputsStep(key);

    // Assess
    const batch = await deps.batches.get(key);
    assert.equal(batch?.status, 'COMPLETED_WITH_ERRORS');
    const zipPath = await download(batch?.zip, 'mixed.zip');
    assert.deepEqual(execFileSync('unzip', ['-Z1', zipPath], { encoding: 'utf8' }).trim().split('\n'), ['a.pdf', 'shot.png', '3-a.pdf']);
    assert.deepEqual(execFileSync('unzip', ['-p', zipPath, 'shot.png']), png);
    const merged = readFileSync(await download(batch?.merged, 'mixed.pdf'));
    assert.equal(pageCountOf(merged), 3);
    assert.deepEqual(outlineOf(merged).map((entry) => entry.title), ['a', 'a.pdf']);
  });

  it('leaves an item whose file expired out of both, names it in the manifest, and makes the rest', async () => {
    // Prepare: the second item's file gone from the bucket (its hour passed)
    const specs = await Promise.all([0, 1, 2].map(async (i) => ({ name: `kept-${i}`, file: { body: await itemPdf(i, 1), contentType: 'application/pdf' } })));
    const key = await finishedBatch(specs, { zip: true, merge: true });
    const expired = (await deps.batches.items(key)).find((item) => item.batchItem.index === 1)!;
    await aws.clients.s3.send(new DeleteObjectCommand({ Bucket: aws.config.filesBucket, Key: expired.file!.key }));

    // Act
    await closeThroughOutputsStep(key);

    // Assess
    const batch = await deps.batches.get(key);
    const zipPath = await download(batch?.zip, 'expired.zip');
    assert.deepEqual(execFileSync('unzip', ['-Z1', zipPath], { encoding: 'utf8' }).trim().split('\n'), ['kept-0.pdf', 'kept-2.pdf']);
    assert.deepEqual(outlineOf(readFileSync(await download(batch?.merged, 'expired.pdf'))).map((entry) => entry.title), ['kept-0', 'kept-2']);
    type LeftOut = Array<{ index: number; name: string; error: { code: string } }>;
    const manifest = JSON.parse(String(await deps.files.read(batch!.manifest!.key))) as { zip: { leftOut: LeftOut }; merged: { leftOut: LeftOut } };
    for (const made of [manifest.zip, manifest.merged]) assert.deepEqual(made.leftOut.map(({ index, name, error }) => [index, name, error.code]), [[1, 'kept-1', 'batch.item_file_expired']]);
  });

  it('streams an archive larger than one upload part (a multipart upload) byte for byte', async () => {
    // Prepare: three files of 4 MiB: a 12 MiB archive, more than one 8 MiB part
    const bodies = [1, 2, 3].map((seed) => Buffer.alloc(4 * 1024 * 1024, seed));
    const key = await finishedBatch(bodies.map((body, i) => ({ name: `big-${i}`, file: { body, contentType: 'image/png' } })), { zip: true, merge: false });

    // Act
    await closeThroughOutputsStep(key);

    // Assess
    const batch = await deps.batches.get(key);
    const zipPath = await download(batch?.zip, 'big.zip');
    assert.ok((batch?.zip?.size ?? 0) > 12 * 1024 * 1024);
    execFileSync('unzip', ['-tq', zipPath]);
    assert.deepEqual(execFileSync('unzip', ['-p', zipPath, 'big-2.png'], { maxBuffer: 8 * 1024 * 1024 }), bodies[2]);
  });

  it('makes neither when output asks for none', async () => {
    const key = await finishedBatch([{ name: 'only', file: { body: await itemPdf(0, 1), contentType: 'application/pdf' } }], { zip: false, merge: false });
    await checkBatch(key, deps);
    const batch = await deps.batches.get(key);
    assert.deepEqual([batch?.closed, batch?.zip, batch?.merged], [true, undefined, undefined]);
    const answer = await batchResponse(batch!, { files: deps.files, lifetimeSeconds: 3600 });
    assert.ok(!('zipUrl' in answer) && !('mergedUrl' in answer));
  });

  it('closes once when the outputs step runs twice (a redelivery, the watchdog queuing it again), and closes without them when it is given up', async () => {
    // Prepare
    const pdf = { body: await itemPdf(0, 1), contentType: 'application/pdf' };
    const twice = await finishedBatch([{ name: 'one', file: pdf }, { name: 'two', file: pdf }], { zip: true, merge: true });
    const givenUp = await finishedBatch([{ name: 'one', file: pdf }], { zip: true, merge: false });

    // Act
    await closeThroughOutputsStep(twice);
    const first = await deps.batches.get(twice);
    await closeBatch(twice, deps, 'build');
    await checkBatch(givenUp, deps);
    await outputsMessages();
    await closeBatch(givenUp, deps, 'give-up');

    // Assess: the second run changed nothing (same manifest, same archive)
    const second = await deps.batches.get(twice);
    assert.equal(first?.closed, true);
    assert.deepEqual([second?.manifest?.key, second?.zip?.key, second?.merged?.key], [first?.manifest?.key, first?.zip?.key, first?.merged?.key]);
    const ended = await deps.batches.get(givenUp);
    assert.deepEqual([ended?.closed, ended?.status, ended?.zip], [true, 'COMPLETED', undefined]);
    const manifest = JSON.parse(String(await deps.files.read(ended!.manifest!.key))) as { zip: { error: { code: string } } };
    assert.equal(manifest.zip.error.code, 'batch.output');
  });

  describe('storage: the batch\'s one file PUT to the caller\'s pre-signed URL', () => {
    let receiver: Server;
    let base: string;
    /** What the caller's URL received: each PUT's path, headers and bytes. */
    const received: Array<{ path: string; contentType: string | undefined; body: Buffer }> = [];
    before(async () => {
      useEgressPolicy(createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] }));
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
          res.writeHead(req.url?.startsWith('/refuse') ? 500 : 200).end();
        });
      });
      receiver.listen(0, '127.0.0.1');
      await new Promise((resolve) => receiver.once('listening', resolve));
      base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    const specsOf = async (count: number) =>
      Promise.all(Array.from({ length: count }, async (_, i) => ({ name: `s-${i}`, file: { body: await itemPdf(i, 1), contentType: 'application/pdf' } })));

    it('PUTs the archive when output.zip asks for one, byte for byte, and the batch and its answer say UPLOADED', async () => {
      // Prepare
      const key = await finishedBatch(await specsOf(5), { zip: true, merge: true }, { preSignedUrl: `${base}/zip?X-Amz-Signature=abc` });

      // Act
      await closeThroughOutputsStep(key);

      // Assess
      const batch = await deps.batches.get(key);
      const put = received.find((each) => each.path.startsWith('/zip'));
      assert.ok(put, 'the URL got a PUT');
      assert.equal(put.contentType, 'application/zip');
      assert.deepEqual(put.body, await deps.files.read(batch!.zip!.key));
      assert.equal(batch?.signedUrlStatus, 'UPLOADED');
      const answer = await batchResponse(batch!, { files: deps.files, lifetimeSeconds: 3600 });
      assert.equal(answer.signedUrlStatus, 'UPLOADED');
    });

    it('makes the outputs, the manifest and the upload once when closers race (an outputs step run twice at once)', async () => {
      // Prepare: the file store counted: archives streamed, manifests stored
      const key = await finishedBatch(await specsOf(3), { zip: true, merge: true }, { preSignedUrl: `${base}/race?X-Amz-Signature=abc` });
      const made = { archives: 0, manifests: 0 };
      const files = {
        ...deps.files,
        putStream: (...args: Parameters<typeof deps.files.putStream>) => ((made.archives += 1), deps.files.putStream(...args)),
        put: (...args: Parameters<typeof deps.files.put>) => ((made.manifests += args[2] === 'application/json' ? 1 : 0), deps.files.put(...args)),
      };
      const racing = { ...deps, files };

      // Act
      const results = await Promise.all([closeBatch(key, racing, 'build'), closeBatch(key, racing, 'build'), closeBatch(key, racing, 'build')]);

      // Assess
      const batch = await deps.batches.get(key);
      assert.equal(batch?.closed, true);
      assert.deepEqual(made, { archives: 1, manifests: 1 });
      assert.equal(received.filter((each) => each.path.startsWith('/race')).length, 1);
      assert.deepEqual(results.filter(Boolean).length, 1, 'the closers that lost the claim leave the batch to the one that took it');
    });

    it('lets the next closer take the claim of one that died once it is stale, and at once that of one that failed', async () => {
      // Prepare: one closer claimed and died; another failed writing its manifest
      const died = await finishedBatch(await specsOf(1), { zip: false, merge: false });
      const failed = await finishedBatch(await specsOf(1), { zip: false, merge: false });
      assert.ok(await deps.batches.claimClose(died, Date.now(), CLOSE_CLAIM_MS));
      const broken = { ...deps, files: { ...deps.files, put: async () => Promise.reject(new Error('S3 is down')) } };
      await assert.rejects(closeBatch(failed, broken), /S3 is down/);

      // Act
      const whileLive = await closeBatch(died, deps);
      const onceStale = await closeBatch(died, deps, 'queue', () => Date.now() + CLOSE_CLAIM_MS + 1);
      const afterFailure = await closeBatch(failed, deps);

      // Assess
      assert.deepEqual([whileLive, onceStale, afterFailure], [false, true, true]);
      assert.deepEqual([(await deps.batches.get(died))?.closed, (await deps.batches.get(failed))?.closed], [true, true]);
    });

    it('PUTs the manifest when no output was asked, and records FAILED (closing all the same) when the URL refuses', async () => {
      // Prepare
      const uploaded = await finishedBatch(await specsOf(2), { zip: false, merge: false }, { preSignedUrl: `${base}/manifest` });
      const refused = await finishedBatch(await specsOf(2), { zip: false, merge: false }, { preSignedUrl: `${base}/refuse` });

      // Act
      await closeBatch(uploaded, deps);
      await closeBatch(refused, deps);

      // Assess
      const batch = await deps.batches.get(uploaded);
      const put = received.find((each) => each.path === '/manifest');
      assert.equal(put?.contentType, 'application/json');
      const manifest = JSON.parse(put!.body.toString('utf8')) as { id: string; items: unknown[] };
      assert.deepEqual([manifest.id, manifest.items.length, batch?.signedUrlStatus], [uploaded.batchId, 2, 'UPLOADED']);
      const failed = await deps.batches.get(refused);
      assert.deepEqual([failed?.closed, failed?.status, failed?.signedUrlStatus], [true, 'COMPLETED', 'FAILED']);
    });
  });
});
