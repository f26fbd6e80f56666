import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoJobStore, JOB_INPUTS_PREFIX } from '../../../lib/aws/dynamo-job-store.js';
import { JobConflictError } from '../../../lib/jobs/errors.js';
import type { Job, JobStore } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { startDynamoProxy } from '../../helpers/dynamo-proxy.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { b64 } from '../../helpers/service.js';

function job(options: { accountId?: string; html?: string } = {}): Job {
  return newJob({
    accountId: options.accountId ?? 'acct-1',
    tokenHash: 'hash-1',
    spend: { tokenHash: 'hash-1', period: '2026-11', spendId: 'req-1' },
    input: { output: 'PDF', page: { html: b64(options.html ?? '<p>hello</p>'), cookies: [{ name: 'session', value: 'secret' }] } },
    storage: { preSignedUrl: 'https://bucket.example/put?sig=1' },
    webhook: { url: 'https://hooks.example/done', method: 'PUT', headers: { authorization: 'Bearer x' }, metadata: { order: '7' } },
  });
}

/** The job a change resolved to, or undefined when the store refused it (JobConflictError): the state did not allow it. */
async function unlessRefused(change: Promise<Job>): Promise<Job | undefined> {
  try {
    return await change;
  } catch (error) {
    if (error instanceof JobConflictError) return undefined;
    throw error;
  }
}

const FILE = { key: 'files/acct-1/abc.pdf', contentType: 'application/pdf', size: 42, createdAt: '2026-11-22T00:00:00.000Z' };

describe('createDynamoJobStore', () => {
  let aws: LocalAwsForTests;
  let store: JobStore;

  before(async () => {
    aws = await withLocalAws();
    store = createDynamoJobStore({ dynamo: aws.clients.dynamo, s3: aws.clients.s3, tableName: aws.config.tables.jobs, bucket: aws.config.filesBucket });
  });
  after(() => aws.stop());

  it('reads a created job back whole, and only for its own account', async () => {
    // Prepare
    const created = job();

    // Act
    await store.create(created);

    // Assess
    assert.deepEqual(await store.get(created), created);
    assert.equal(await store.get({ accountId: 'acct-2', jobId: created.jobId }), undefined);
    assert.equal(await store.get({ accountId: 'acct-1', jobId: 'job_unknown' }), undefined);
  });

  it('keeps an input too large for a DynamoDB item in S3 and loads it back', async () => {
    // Prepare: well past DynamoDB's 400 KB item limit.
    const big = job({ html: `<p>${'x'.repeat(600 * 1024)}</p>` });

    // Act
    await store.create(big);
    const read = await store.get(big);

    // Assess
    assert.equal(read?.input, undefined);
    assert.deepEqual(await store.loadInput(read!), big.input);
    const listed = await aws.clients.s3.send(new ListObjectsV2Command({ Bucket: aws.config.filesBucket, Prefix: JOB_INPUTS_PREFIX }));
    assert.ok(listed.Contents?.some((object) => object.Key === `${JOB_INPUTS_PREFIX}acct-1/${big.jobId}.json`));
  });

  it('keeps an input nested deeper than DynamoDB allows (32 levels) in S3 and loads it back', async () => {
    // Prepare: templateData may nest 100 levels; DynamoDB refuses items past 32 (the emulator does not check).
    const deepData = JSON.parse(`${'{"a":'.repeat(60)}"leaf"${'}'.repeat(60)}`) as Record<string, unknown>;
    const deep = newJob({ accountId: 'acct-1', tokenHash: 'hash-1', input: { output: 'PDF', page: { htmlTemplate: b64('{{a.a}}'), templateData: deepData } }, webhook: { url: 'https://hooks.example/done' } });

    // Act
    await store.create(deep);
    const read = await store.get(deep);

    // Assess
    assert.equal(read?.input, undefined);
    assert.deepEqual(await store.loadInput(read!), deep.input);
  });

  it('lets exactly one of two racing consumers take a PENDING job', async () => {
    // Prepare
    const queued = job();
    await store.create(queued);
    const now = Date.now();

    // Act
    const [a, b] = await Promise.all([
      unlessRefused(store.claimRun(queued, { runId: 'a', until: now + 60_000 }, now)),
      unlessRefused(store.claimRun(queued, { runId: 'b', until: now + 60_000 }, now)),
    ]);

    // Assess
    assert.equal([a, b].filter(Boolean).length, 1);
    const claimed = (a ?? b)!;
    assert.equal(claimed.status, 'RUNNING');
    assert.equal(claimed.runs, 1);
    assert.equal((await store.get(queued))?.lease?.runId, claimed.lease?.runId);
  });

  it('lets a consumer take over a RUNNING job only once its lease has run out', async () => {
    // Prepare
    const queued = job();
    await store.create(queued);
    const now = Date.now();
    await store.claimRun(queued, { runId: 'first', until: now + 1_000 }, now);

    // Act
    const whileLive = await unlessRefused(store.claimRun(queued, { runId: 'second', until: now + 60_000 }, now + 500));
    const afterExpiry = await store.claimRun(queued, { runId: 'second', until: now + 60_000 }, now + 1_001);

    // Assess
    assert.equal(whileLive, undefined);
    assert.equal(afterExpiry?.lease?.runId, 'second');
    assert.equal(afterExpiry?.runs, 2);
  });

  it('renews a lease only for the consumer holding it, and a renewed lease keeps the job from being taken over', async () => {
    // Prepare
    const queued = job();
    await store.create(queued);
    const now = Date.now();
    await store.claimRun(queued, { runId: 'holder', until: now + 1_000 }, now);

    // Act
    const byOther = await store.renewRun(queued, 'other', now + 90_000, now + 500);
    const byHolder = await store.renewRun(queued, 'holder', now + 2_000, now + 500);
    const takeOver = await unlessRefused(store.claimRun(queued, { runId: 'second', until: now + 60_000 }, now + 1_500));
    await store.finishRun(queued, 'holder', { status: 'FAILED', error: { code: 'render.failed', message: 'x' } }, now + 1_600);
    const afterFinish = await store.renewRun(queued, 'holder', now + 3_000, now + 1_700);

    // Assess
    assert.equal(byOther, false);
    assert.equal(byHolder, true);
    assert.equal(takeOver, undefined, 'taken over within the renewed lease');
    assert.equal(afterFinish, false);
    const finished = await store.get(queued);
    assert.equal(finished?.status, 'FAILED');
    assert.equal(finished?.lease, undefined);
  });

  it('hands a job back to PENDING only for the consumer holding it', async () => {
    // Prepare
    const queued = job();
    await store.create(queued);
    const now = Date.now();
    await store.claimRun(queued, { runId: 'holder', until: now + 60_000 }, now);

    // Act
    const byOther = await store.releaseRun(queued, 'other', now);
    const byHolder = await store.releaseRun(queued, 'holder', now);

    // Assess
    assert.equal(byOther, false);
    assert.equal(byHolder, true);
    const released = await store.get(queued);
    assert.equal(released?.status, 'PENDING');
    assert.equal(released?.lease, undefined);
  });

  it('finishes a job once, for its holder, and drops the input with its credentials (S3 copy included)', async () => {
    // Prepare
    const big = job({ html: `<p>${'y'.repeat(400 * 1024)}</p>` });
    await store.create(big);
    const now = Date.now();
    await store.claimRun(big, { runId: 'holder', until: now + 60_000 }, now);
    const outcome = { status: 'COMPLETED', file: FILE, signedUrlStatus: 'UPLOADED' } as const;

    // Act
    const byOther = await store.finishRun(big, 'other', outcome, now);
    const finished = await store.finishRun(big, 'holder', outcome, now);
    const again = await store.finishRun(big, 'holder', outcome, now);

    // Assess
    assert.equal(byOther, undefined);
    assert.equal(again, undefined);
    assert.equal(finished?.status, 'COMPLETED');
    assert.deepEqual(finished?.file, FILE);
    assert.equal(finished?.signedUrlStatus, 'UPLOADED');
    assert.equal(finished?.completedAt, new Date(now).toISOString());
    assert.equal(finished?.lease, undefined);
    const stored = await store.get(big);
    assert.equal(stored?.input, undefined);
    await assert.rejects(
      aws.clients.s3.send(new GetObjectCommand({ Bucket: aws.config.filesBucket, Key: `${JOB_INPUTS_PREFIX}acct-1/${big.jobId}.json` })),
      /NoSuchKey|does not exist/,
    );
  });

  it('keeps the characters a finished file draws with no glyph on the job, and reads them back', async () => {
    // Prepare
    const queued = job();
    await store.create(queued);
    const now = Date.now();
    await store.claimRun(queued, { runId: 'holder', until: now + 60_000 }, now);
    const missingGlyphs = { count: 3, codePoints: ['U+E000', 'U+0E01'], firstPage: 2, partial: true as const };

    // Act
    await store.finishRun(queued, 'holder', { status: 'COMPLETED', file: FILE, signedUrlStatus: 'NOT_PROVIDED', missingGlyphs }, now);

    // Assess
    assert.deepEqual((await store.get(queued))?.missingGlyphs, missingGlyphs);
  });

  it('keeps what a run cost on the job: the pages and render time of a completed one, the render time of a failed one', async () => {
    // Prepare
    const [completed, failed] = [job(), job()];
    const now = Date.now();
    for (const queued of [completed, failed]) {
      await store.create(queued);
      await store.claimRun(queued, { runId: 'holder', until: now + 60_000 }, now);
    }

    // Act
    await store.finishRun(completed, 'holder', { status: 'COMPLETED', file: FILE, signedUrlStatus: 'NOT_PROVIDED', pageCount: 5_000, renderMs: 61_234 }, now);
    await store.finishRun(failed, 'holder', { status: 'FAILED', error: { code: 'render.timeout', message: 'x' }, renderMs: 870_000 }, now);

    // Assess
    const [done, refused] = [await store.get(completed), await store.get(failed)];
    assert.deepEqual([done?.pageCount, done?.renderMs], [5_000, 61_234]);
    assert.deepEqual([refused?.pageCount, refused?.renderMs], [undefined, 870_000]);
  });

  it('records a failed run with its error', async () => {
    const queued = job();
    await store.create(queued);
    const now = Date.now();
    await store.claimRun(queued, { runId: 'holder', until: now + 60_000 }, now);
    const error = { code: 'render.navigation', message: 'The page could not be loaded', fields: { 'page.url': 'refused' } };
    const failed = await store.finishRun(queued, 'holder', { status: 'FAILED', error }, now);
    assert.equal(failed?.status, 'FAILED');
    assert.deepEqual(failed?.error, error);
    assert.equal(failed?.file, undefined);
  });

  it('gives up on a PENDING job or an abandoned one, but never on a finished or live one', async () => {
    // Prepare
    const now = Date.now();
    const pending = job();
    const abandoned = job();
    const live = job();
    const finished = job();
    for (const j of [pending, abandoned, live, finished]) await store.create(j);
    await store.claimRun(abandoned, { runId: 'dead', until: now - 1 }, now - 60_000);
    await store.claimRun(live, { runId: 'alive', until: now + 60_000 }, now);
    await store.claimRun(finished, { runId: 'done', until: now + 60_000 }, now);
    await store.finishRun(finished, 'done', { status: 'COMPLETED', file: FILE, signedUrlStatus: 'NOT_PROVIDED' }, now);
    const error = { code: 'render.failed', message: 'given up' };

    // Act
    const results = await Promise.all([pending, abandoned, live, finished].map((j) => unlessRefused(store.failUnfinished(j, error, now))));

    // Assess
    assert.deepEqual(results.map((r) => r?.status), ['FAILED', 'FAILED', undefined, undefined]);
    assert.equal((await store.get(live))?.status, 'RUNNING');
    assert.equal((await store.get(finished))?.status, 'COMPLETED');
  });

  it('lets one consumer take each webhook attempt, in order, and records each one', async () => {
    // Prepare
    const finished = job();
    await store.create(finished);
    const now = Date.now();
    await store.claimRun(finished, { runId: 'r', until: now + 60_000 }, now);
    await store.finishRun(finished, 'r', { status: 'COMPLETED', file: FILE, signedUrlStatus: 'NOT_PROVIDED' }, now);
    const lease = (runId: string) => ({ runId, until: now + 30_000 });

    // Act
    const early = await unlessRefused(store.claimWebhookAttempt(finished, 2, lease('x'), now));
    const [a, b] = await Promise.all([
      unlessRefused(store.claimWebhookAttempt(finished, 1, lease('a'), now)),
      unlessRefused(store.claimWebhookAttempt(finished, 1, lease('b'), now)),
    ]);
    const winner = (a ?? b)!.webhookLease!.runId;
    const whileUnderWay = await unlessRefused(store.claimWebhookAttempt(finished, 2, lease('c'), now));
    const recorded = await store.recordWebhookAttempt(
      finished,
      1,
      winner,
      { status: 'RETRYING', entry: { attempt: 1, at: new Date(now).toISOString(), durationMs: 12, statusCode: 500, error: 'answered 500' } },
      now,
    );
    const repeat = await unlessRefused(store.claimWebhookAttempt(finished, 1, lease('d'), now));
    const second = await store.claimWebhookAttempt(finished, 2, lease('e'), now);
    await store.recordWebhookAttempt(
      finished,
      2,
      'e',
      { status: 'DELIVERED', entry: { attempt: 2, at: new Date(now).toISOString(), durationMs: 8, statusCode: 204 } },
      now,
    );
    const afterDelivery = await unlessRefused(store.claimWebhookAttempt(finished, 3, lease('f'), now));

    // Assess
    assert.equal(early, undefined, 'attempt 2 cannot come before attempt 1');
    assert.equal([a, b].filter(Boolean).length, 1);
    assert.equal(whileUnderWay, undefined);
    assert.equal(recorded, true);
    assert.equal(repeat, undefined, 'a recorded attempt is never made again');
    assert.equal(second?.webhookAttempts, 2);
    assert.equal(afterDelivery, undefined);
    const stored = await store.get(finished);
    assert.equal(stored?.webhookStatus, 'DELIVERED');
    assert.deepEqual(stored?.webhookLog.map((entry) => [entry.attempt, entry.statusCode]), [[1, 500], [2, 204]]);
    assert.equal(stored?.webhookLease, undefined);
  });

  it('lets a webhook attempt whose consumer died be made again, but not one under way', async () => {
    const finished = job();
    await store.create(finished);
    const now = Date.now();
    await store.failUnfinished(finished, { code: 'render.failed', message: 'x' }, now);
    await store.claimWebhookAttempt(finished, 1, { runId: 'dead', until: now + 1_000 }, now);
    assert.equal(await unlessRefused(store.claimWebhookAttempt(finished, 1, { runId: 'again', until: now + 60_000 }, now + 500)), undefined);
    const retaken = await store.claimWebhookAttempt(finished, 1, { runId: 'again', until: now + 60_000 }, now + 1_001);
    assert.equal(retaken?.webhookLease?.runId, 'again');
    assert.equal(retaken?.webhookAttempts, 1);
  });

  it('removes a job that was never queued', async () => {
    const created = job();
    await store.create(created);
    await store.remove(created);
    assert.equal(await store.get(created), undefined);
  });
});

describe('createDynamoJobStore › a refused change', () => {
  let aws: LocalAwsForTests;

  before(async () => {
    aws = await withLocalAws();
  });
  after(() => aws.stop());

  /** A job store whose DynamoDB calls go through a counting proxy in front of the emulator. */
  async function storeBehind(proxyOptions: { returnItemOnConditionFailure: boolean }) {
    const proxy = await startDynamoProxy(aws.local.endpoints.dynamodb, proxyOptions);
    const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ region: aws.config.region, endpoint: proxy.url }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const store = createDynamoJobStore({ dynamo, s3: aws.clients.s3, tableName: aws.config.tables.jobs, bucket: aws.config.filesBucket });
    return { store, reads: () => proxy.calls.get('GetItem') ?? 0, stop: async () => (dynamo.destroy(), await proxy.stop()) };
  }

  /** A job a consumer named `holder` is running. */
  async function heldJob(store: JobStore): Promise<Job> {
    const now = Date.now();
    const running = job();
    await store.create(running);
    await store.claimRun(running, { runId: 'holder', until: now + 60_000 }, now);
    return running;
  }

  async function refusal(change: Promise<unknown>): Promise<JobConflictError> {
    const error = await change.then(
      () => assert.fail('the change was not refused'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof JobConflictError, `refused with ${String(error)}`);
    return error;
  }

  it('carries the job as it stood, without reading it, when DynamoDB returns it with the refusal (as AWS does)', async (t) => {
    // Prepare
    const { store, reads, stop } = await storeBehind({ returnItemOnConditionFailure: true });
    t.after(stop);
    const now = Date.now();
    const running = job();
    const finished = job();
    await store.create(running);
    await store.create(finished);
    await store.claimRun(running, { runId: 'holder', until: now + 60_000 }, now);
    await store.failUnfinished(finished, { code: 'render.failed', message: 'x' }, now);
    await store.claimWebhookAttempt(finished, 1, { runId: 'caller', until: now + 60_000 }, now);

    // Act
    const lostRun = await refusal(store.claimRun(running, { runId: 'late', until: now + 60_000 }, now));
    const lostGiveUp = await refusal(store.failUnfinished(running, { code: 'render.failed', message: 'x' }, now));
    const lostAttempt = await refusal(store.claimWebhookAttempt(finished, 1, { runId: 'late', until: now + 60_000 }, now));

    // Assess
    assert.equal(reads(), 0, 'no read after a refused change');
    assert.equal(lostRun.current?.status, 'RUNNING');
    assert.equal(lostRun.current?.lease?.runId, 'holder');
    assert.equal(lostGiveUp.current?.lease?.runId, 'holder');
    assert.equal(lostAttempt.current?.status, 'FAILED');
    assert.equal(lostAttempt.current?.webhookLease?.runId, 'caller');
    assert.deepEqual(lostRun.current, await store.get(running));
  });

  it('reads the job once when the refusal comes without it (as dynalite, the embedded emulator, answers)', async (t) => {
    // Prepare
    const { store, reads, stop } = await storeBehind({ returnItemOnConditionFailure: false });
    t.after(stop);
    const running = await heldJob(store);

    // Act
    const lost = await refusal(store.claimRun(running, { runId: 'late', until: Date.now() + 60_000 }, Date.now()));

    // Assess
    assert.equal(reads(), 1);
    assert.equal(lost.current?.lease?.runId, 'holder');
    assert.deepEqual(lost.current, await store.get(running));
  });

  it('carries no job when there is none', async (t) => {
    // Prepare
    const { store, stop } = await storeBehind({ returnItemOnConditionFailure: true });
    t.after(stop);
    const now = Date.now();

    // Act
    const lost = await refusal(store.claimRun({ accountId: 'acct-1', jobId: 'job_missing' }, { runId: 'a', until: now + 60_000 }, now));

    // Assess
    assert.equal(lost.current, undefined);
  });

  it('keeps the refused job out of anything that serializes the error (its input may hold credentials)', async (t) => {
    // Prepare
    const { store, stop } = await storeBehind({ returnItemOnConditionFailure: true });
    t.after(stop);
    const running = await heldJob(store);

    // Act
    const lost = await refusal(store.claimRun(running, { runId: 'late', until: Date.now() + 60_000 }, Date.now()));

    // Assess
    const input = lost.current?.input;
    assert.equal(input && 'page' in input ? input.page.cookies?.[0]?.value : undefined, 'secret');
    // What Powertools' Logger prints of an error: its enumerable fields and its cause.
    assert.doesNotMatch(JSON.stringify({ ...lost }), /secret/);
    assert.equal(lost.cause, undefined);
  });
});
