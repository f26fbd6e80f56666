import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NavigationError, RenderError, RenderTimeoutError } from '../../../lib/errors.js';
import { JobBusyError } from '../../../lib/jobs/errors.js';
import { GIVEN_UP } from '../../../lib/job-runner/job-failures.js';
import { AFTER_RENDER_RESERVE_MS, giveUpJob, JOB_RETRY_DELAY_SECONDS, MAX_JOB_RUNS, runJob, type RunJobDeps } from '../../../lib/job-runner/run-job.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { jobResponse } from '../../../lib/jobs/job-response.js';
import { MissingGlyphsError } from '../../../lib/glyphs/glyph-report.js';
import { webhookBody } from '../../../lib/webhooks/webhook-body.js';
import type { QuotaSpend } from '../../../lib/quota/quota.js';
import type { UsageStore } from '../../../lib/quota/usage-store.js';
import { b64 } from '../../helpers/service.js';
import { FAKE_PDF, fakeRenderer, memoryFileStore, memoryJobStore, recordingQueue, silentLogger } from '../jobs/fakes.js';

const DELAYS = [1, 2, 3, 4, 5];
const SPEND: QuotaSpend = { tokenHash: 'hash', period: '2026-11', spendId: 'request-1' };

function setup(options: { failWith?: () => Error } = {}) {
  const jobs = memoryJobStore();
  const queue = recordingQueue();
  const files = memoryFileStore();
  const renderer = fakeRenderer(options);
  const refunds: string[] = [];
  const usage = { refund: async (_key: unknown, spendId: string) => (refunds.push(spendId), true) } as unknown as UsageStore;
  const deps: RunJobDeps = { jobs, queue, files, renderer, logger: silentLogger, config: { webhookRetryDelaysSeconds: DELAYS, filesBucket: 'files' }, usage };
  return { jobs, queue, files, renderer, refunds, deps };
}

async function queuedJob(jobs: ReturnType<typeof memoryJobStore>) {
  const job = newJob({
    accountId: 'acct-1',
    tokenHash: 'hash',
    spend: SPEND,
    input: { output: 'PDF', page: { html: b64('<p>hello</p>') }, pdf: { format: 'a4' } },
    webhook: { url: 'https://hooks.example/done' },
  });
  await jobs.create(job);
  return job;
}

const clock = (now = Date.now()) => ({ timeLeftMs: () => 60_000, now: () => now });

describe('runJob', () => {
  it('takes a PENDING job, renders it once, records COMPLETED with the stored file and queues the first webhook attempt', async () => {
    // Prepare
    const { jobs, queue, files, renderer, deps, refunds } = setup();
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const done = jobs.peek(job)!;
    assert.equal(done.status, 'COMPLETED');
    assert.equal(renderer.renders, 1);
    assert.equal(done.file?.contentType, 'application/pdf');
    assert.equal(files.files.get(done.file!.key)?.body.toString(), FAKE_PDF);
    assert.equal(done.signedUrlStatus, 'NOT_PROVIDED');
    assert.equal(done.input, undefined, 'the input (which may hold page credentials) is dropped once the job ends');
    assert.deepEqual(queue.webhooks, [{ message: { accountId: 'acct-1', jobId: job.jobId, attempt: 1 }, delaySeconds: 0 }]);
    assert.deepEqual(refunds, []);
  });

  it('records FAILED with the reason and the field when the page cannot be loaded, fires the webhook and keeps the quota spent', async () => {
    // Prepare
    const { jobs, queue, deps, refunds } = setup({ failWith: () => new NavigationError('net::ERR_NAME_NOT_RESOLVED') });
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const failed = jobs.peek(job)!;
    assert.equal(failed.status, 'FAILED');
    assert.deepEqual(failed.error, {
      code: 'render.navigation',
      message: 'The page could not be loaded',
      fields: { 'page.url': 'net::ERR_NAME_NOT_RESOLVED' },
    });
    assert.equal(failed.file, undefined);
    assert.equal(queue.webhooks.length, 1);
    assert.deepEqual(refunds, [], 'the page was rendered for, as on the raw endpoints');
  });

  it('records what the job cost: the PDF\'s pages (read from the file, or as the finishing counted them) and the render\'s milliseconds, for its endpoint and its webhook (issue 47)', async () => {
    // Prepare: one job whose renderer takes 50 ms and leaves the count to the file, one whose finishing counted 7 pages
    const { jobs, deps } = setup();
    const counted = await queuedJob(jobs);
    const finished = await queuedJob(jobs);
    deps.renderer = {
      render: async (input) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return fakeRenderer().render(input);
      },
    };
    await runJob(counted, deps, { timeLeftMs: () => 900_000, now: () => Date.now() });
    deps.renderer = { render: async (input) => ({ ...(await fakeRenderer().render(input)), pageCount: 7 }) };

    // Act
    await runJob(finished, deps, { timeLeftMs: () => 900_000, now: () => Date.now() });

    // Assess
    const [first, second] = [jobs.peek(counted)!, jobs.peek(finished)!];
    assert.equal(first.pageCount, 3);
    assert.ok((first.renderMs as number) >= 45 && (first.renderMs as number) < 10_000, `renderMs ${first.renderMs}`);
    assert.equal(second.pageCount, 7);
    const body = webhookBody(first, { fileUrl: 'https://files.example/x.pdf' });
    assert.equal(body.pageCount, 3);
    assert.equal(body.renderMs, first.renderMs);
    const response = await jobResponse(first, { files: { downloadUrl: async () => 'https://files.example/x.pdf' }, lifetimeSeconds: 3600 });
    assert.equal(response.pageCount, 3);
    assert.equal(response.renderMs, first.renderMs);
  });

  it('records how long a failed render ran, and no page count', async () => {
    // Prepare
    const { jobs, deps } = setup({ failWith: () => new NavigationError('net::ERR_NAME_NOT_RESOLVED') });
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const failed = jobs.peek(job)!;
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.pageCount, undefined);
    assert.equal(typeof failed.renderMs, 'number');
    assert.equal(webhookBody(failed, { fileUrl: null }).pageCount, undefined);
  });

  it('reads data by reference when the job starts, and ends a job whose data cannot be read FAILED with a 400 naming the field (issue 47)', async () => {
    // Prepare: one job whose data is the caller's upload, one whose key is missing
    const { jobs, files, deps } = setup();
    const body = Buffer.from(JSON.stringify({ customer: 'Ada Lovelace' }));
    files.files.set('uploads/acct-1/data.json', { body, file: { key: 'uploads/acct-1/data.json', contentType: 'application/json', size: body.length, createdAt: new Date().toISOString() } });
    const queue = async (key: string) => {
      const job = newJob({ accountId: 'acct-1', tokenHash: 'hash', spend: SPEND, input: { output: 'PDF', page: { htmlTemplate: b64('<p>{{customer}}</p>'), templateDataUrl: `s3://files/${key}` } }, webhook: { url: 'https://hooks.example/done' } });
      await jobs.create(job);
      return job;
    };
    const [read, missing] = [await queue('uploads/acct-1/data.json'), await queue('uploads/acct-1/absent.json')];
    const planned: string[] = [];
    deps.renderer = { render: async (plan, options) => (planned.push(JSON.stringify(plan)), fakeRenderer().render(plan, options)) };

    // Act
    await runJob(read, deps, clock());
    await runJob(missing, deps, clock());

    // Assess: the render had the data; a missing key fails the job, naming the field
    assert.equal(jobs.peek(read)?.status, 'COMPLETED');
    assert.match(planned[0] ?? '', /Ada Lovelace/);
    assert.equal(planned.length, 1);
    const failed = jobs.peek(missing)!;
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.error?.code, 'api.validation');
    assert.match(failed.error?.fields?.['page.templateDataUrl'] ?? '', /No file at this key/);
  });

  it("gives the render a budget from what its consumer's invocation has left, not a sync render's (issue 47)", async () => {
    // Prepare: a consumer with 15 minutes left, and one nearly out of time
    const { jobs, renderer, deps } = setup();
    const long = await queuedJob(jobs);
    const short = await queuedJob(jobs);

    // Act
    await runJob(long, deps, { timeLeftMs: () => 900_000, now: () => Date.now() });
    await runJob(short, deps, { timeLeftMs: () => 20_000, now: () => Date.now() });

    // Assess: what is left less what must follow the render; at least a second
    assert.deepEqual(renderer.budgets, [900_000 - AFTER_RENDER_RESERVE_MS, 1_000]);
  });

  it('records FAILED when the render overruns its budget, and gives the quota unit back', async () => {
    // Prepare
    const { jobs, deps, refunds } = setup({ failWith: () => new RenderTimeoutError(25_000) });
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    assert.equal(jobs.peek(job)?.error?.code, 'render.timeout');
    assert.deepEqual(refunds, ['request-1']);
  });

  it('records how far a render out of time got: the pages printed when it ran out in the finishing, on the job and in its message', async () => {
    // Prepare
    const timedOut = () => Object.assign(new RenderTimeoutError(870_000), { pagesPrinted: 5_000 });
    const { jobs, deps } = setup({ failWith: timedOut });
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const failed = jobs.peek(job)!;
    assert.equal(failed.error?.code, 'render.timeout');
    assert.equal(failed.pageCount, 5_000);
    assert.equal(webhookBody(failed, { fileUrl: null }).pageCount, 5_000);
  });

  it('hands the job back (PENDING) on a failure on the service side and queues it again within seconds, not after the visibility timeout', async () => {
    // Prepare
    const { jobs, queue, renderer, deps } = setup({ failWith: () => new RenderError('The browser stopped while rendering') });
    const job = await queuedJob(jobs);
    const delays: (number | undefined)[] = [];
    const sendJob = queue.sendJob.bind(queue);
    queue.sendJob = async (message, delaySeconds) => {
      delays.push(delaySeconds);
      await sendJob(message, delaySeconds);
    };

    // Act: no throw, so this message is done with; the queued one renders the job again.
    await runJob(job, deps, clock());
    const afterFailure = structuredClone(jobs.peek(job)!);
    renderer.failWith = undefined;
    await runJob(queue.jobs[0]!, deps, clock());

    // Assess
    assert.equal(afterFailure.status, 'PENDING');
    assert.equal(afterFailure.lease, undefined);
    assert.deepEqual(queue.jobs, [{ accountId: job.accountId, jobId: job.jobId }]);
    assert.deepEqual(delays, [JOB_RETRY_DELAY_SECONDS]);
    assert.ok(JOB_RETRY_DELAY_SECONDS <= 60);
    assert.equal(queue.webhooks.length, 1, 'no webhook for the failed attempt, one for the finished job');
    assert.equal(jobs.peek(job)?.status, 'COMPLETED');
    assert.equal(jobs.peek(job)?.runs, 2);
  });

  it('ends a job FAILED with its reason and exactly one webhook when its last allowed run fails on the service side', async () => {
    // Prepare
    const { jobs, queue, deps, refunds } = setup({ failWith: () => new RenderError('The browser stopped while rendering') });
    const job = await queuedJob(jobs);

    // Act: every run fails; each re-queued message is run in turn.
    await runJob(job, deps, clock());
    for (let i = 0; i < MAX_JOB_RUNS; i++) if (queue.jobs[i]) await runJob(queue.jobs[i]!, deps, clock());

    // Assess
    assert.equal(jobs.peek(job)?.status, 'FAILED');
    assert.deepEqual(jobs.peek(job)?.error, GIVEN_UP);
    assert.equal(jobs.peek(job)?.runs, MAX_JOB_RUNS);
    assert.equal(queue.jobs.length, MAX_JOB_RUNS - 1);
    assert.equal(queue.webhooks.length, 1);
    assert.deepEqual(refunds, ['request-1']);
  });

  it('leaves the message to be offered again when the job cannot be queued again, so it is never lost', async () => {
    // Prepare
    const { jobs, queue, deps } = setup({ failWith: () => new RenderError('The browser stopped while rendering') });
    const job = await queuedJob(jobs);
    queue.sendJob = async () => {
      throw new Error('SQS is down');
    };

    // Act
    const attempt = runJob(job, deps, clock());

    // Assess
    await assert.rejects(attempt, RenderError);
    assert.equal(jobs.peek(job)?.status, 'PENDING');
  });

  it('fails a job once, with a reason, when Node refuses its options (a throw that would repeat on every delivery)', async () => {
    // Prepare
    const refusal = () => Object.assign(new TypeError('Invalid character in header content ["x-a"]'), { code: 'ERR_INVALID_CHAR' });
    for (const failWith of [() => new URIError('URI malformed'), refusal]) {
      const { jobs, queue, deps, refunds } = setup({ failWith });
      const job = await queuedJob(jobs);

      // Act: no throw, so the queue does not offer the message again.
      await runJob(job, deps, clock());

      // Assess
      const failed = jobs.peek(job)!;
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.error?.code, 'job.invalid');
      assert.match(failed.error?.message ?? '', /URIError|ERR_INVALID_CHAR/);
      assert.equal(queue.webhooks.length, 1);
      assert.deepEqual(refunds, ['request-1']);
    }
  });

  it('keeps the report of characters no font draws on the job, for its endpoint and its webhook', async () => {
    // Prepare: the render drew U+E000 with no glyph, on page 2.
    const { jobs, files, renderer, deps } = setup();
    const report = { count: 2, codePoints: ['U+E000'], firstPage: 2 };
    deps.renderer = { render: async (plan) => ({ ...(await renderer.render(plan)), missingGlyphs: report }) };
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const done = jobs.peek(job)!;
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(webhookBody(done, { fileUrl: 'https://files.example/x.pdf' }).missingGlyphs, report);
    assert.deepEqual((await jobResponse(done, { files, lifetimeSeconds: 3600 })).missingGlyphs, report);
  });

  it('ends a job refused for characters no font draws ("fail") FAILED at once, naming them, with its webhook and its unit given back', async () => {
    // Prepare
    const refusal = () => new MissingGlyphsError({ count: 1, codePoints: ['U+E000'], firstPage: 1 }, 'pdf.missingGlyphs');
    const { jobs, queue, renderer, deps, refunds } = setup({ failWith: refusal });
    const job = await queuedJob(jobs);

    // Act
    await runJob(job, deps, clock());

    // Assess: not handed back to run again, as a failure on the service side would be.
    const failed = jobs.peek(job)!;
    assert.equal(failed.status, 'FAILED');
    assert.equal(renderer.renders, 1);
    assert.deepEqual(queue.jobs, []);
    assert.equal(failed.error?.code, 'render.missing_glyphs');
    assert.match(failed.error?.fields?.['pdf.missingGlyphs'] ?? '', /1 character no font draws: U\+E000 \(first on page 1\)/);
    assert.equal(webhookBody(failed, { fileUrl: null }).error?.code, 'render.missing_glyphs');
    assert.equal(queue.webhooks.length, 1);
    assert.deepEqual(refunds, ['request-1']);
  });

  it('completes a job whose stored pre-signed URL can never be called, with the upload FAILED and the file kept', async () => {
    // Prepare: a record stored before the schemas refused such URLs; the upload goes through the real client.
    const { jobs, deps } = setup();
    const job = newJob({
      accountId: 'acct-1',
      tokenHash: 'hash',
      spend: SPEND,
      input: { output: 'PDF', page: { html: b64('<p>hello</p>') } },
      storage: { preSignedUrl: 'http://user%SZ@bucket.example/key' },
      webhook: { url: 'https://hooks.example/done' },
    });
    await jobs.create(job);

    // Act
    await runJob(job, deps, clock());

    // Assess
    const done = jobs.peek(job)!;
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.signedUrlStatus, 'FAILED');
    assert.ok(done.file);
  });

  it('never renders a finished job again when its message is delivered twice', async () => {
    // Prepare
    const { jobs, queue, renderer, deps } = setup();
    const job = await queuedJob(jobs);
    await runJob(job, deps, clock());
    const finished = structuredClone(jobs.peek(job));

    // Act
    await runJob(job, deps, clock());

    // Assess
    assert.equal(renderer.renders, 1);
    assert.deepEqual(jobs.peek(job), finished);
    // The first attempt may still be waiting in the queue: queuing it again is harmless (one claim wins).
    assert.ok(queue.webhooks.every((w) => w.message.attempt === 1));
  });

  it('does not queue the webhook again for a duplicate once the first attempt was made', async () => {
    // Prepare
    const { jobs, queue, deps } = setup();
    const job = await queuedJob(jobs);
    await runJob(job, deps, clock());
    jobs.peek(job)!.webhookAttempts = 1;
    jobs.peek(job)!.webhookStatus = 'DELIVERED';
    queue.webhooks.length = 0;

    // Act
    await runJob(job, deps, clock());

    // Assess
    assert.deepEqual(queue.webhooks, []);
  });

  it('leaves a job another consumer holds to it (JobBusyError: the message comes back later)', async () => {
    // Prepare
    const { jobs, renderer, deps } = setup();
    const job = await queuedJob(jobs);
    const now = Date.now();
    await jobs.claimRun(job, { runId: 'other-consumer', until: now + 30_000 }, now);

    // Act / Assess
    await assert.rejects(runJob(job, deps, clock(now)), JobBusyError);
    assert.equal(renderer.renders, 0);
    assert.equal(jobs.peek(job)?.lease?.runId, 'other-consumer');
  });

  it('decides on a job it could not take from the job the store sent back with the refusal, without reading it again', async () => {
    // Prepare
    const { jobs, renderer, deps } = setup();
    const job = await queuedJob(jobs);
    const now = Date.now();
    await jobs.claimRun(job, { runId: 'other-consumer', until: now + 30_000 }, now);
    let reads = 0;
    jobs.get = async () => (reads++, undefined);

    // Act / Assess
    await assert.rejects(runJob(job, deps, clock(now)), JobBusyError);
    await assert.rejects(giveUpJob(job, deps, clock(now)), JobBusyError);
    assert.equal(reads, 0);
    assert.equal(renderer.renders, 0);
  });

  it('takes over a job whose consumer died (its lease ran out) and finishes it', async () => {
    // Prepare
    const { jobs, renderer, deps } = setup();
    const job = await queuedJob(jobs);
    const now = Date.now();
    await jobs.claimRun(job, { runId: 'dead-consumer', until: now - 1 }, now - 60_000);

    // Act
    await runJob(job, deps, clock(now));

    // Assess
    assert.equal(renderer.renders, 1);
    assert.equal(jobs.peek(job)?.status, 'COMPLETED');
  });

  it('holds its job for the lease, not for its whole invocation, and renews the lease while a long render runs (issue 47)', async () => {
    // Prepare: a 15-minute invocation, a lease of 1 s renewed every 100 ms, a render of 2 s
    const { jobs, deps } = setup();
    deps.lease = { ms: 1_000, renewEveryMs: 100 };
    let renewals = 0;
    deps.jobs = { ...jobs, renewRun: (...args) => ((renewals += 1), jobs.renewRun(...args)) };
    const job = await queuedJob(jobs);
    const left: number[] = [];
    let claimedUntil = 0;
    deps.renderer = {
      render: async (input) => {
        claimedUntil = jobs.peek(job)?.lease?.until as number;
        for (let i = 0; i < 5; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 400));
          left.push((jobs.peek(job)?.lease?.until as number) - Date.now());
        }
        return fakeRenderer().render(input);
      },
    };

    // Act
    const before = Date.now();
    await runJob(job, deps, { timeLeftMs: () => 900_000, now: () => Date.now() });
    const renewalsInRun = renewals;
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assess: claimed for the lease's length alone, never expired though the render outlived it twice, not renewed after the run
    assert.ok(claimedUntil >= before + 1_000 && claimedUntil < before + 2_000, `claimed until ${claimedUntil - before} ms after the start`);
    assert.ok(left.every((ms) => ms > 0), `lease left every 400 ms: ${left.join(', ')} ms`);
    assert.equal(jobs.peek(job)?.status, 'COMPLETED');
    assert.ok(renewalsInRun >= 5, `${renewalsInRun} renewals`);
    assert.equal(renewals, renewalsInRun);
  });

  it('stops renewing once the run is over, and says once that another consumer took the job meanwhile', async () => {
    // Prepare: the job taken over by another consumer mid-render; the lease renewed every 20 ms
    const { jobs, deps } = setup();
    const warnings: string[] = [];
    let renewals = 0;
    let renewalsWhenTold = -1;
    deps.logger = {
      ...silentLogger,
      warn: (message: string) => (warnings.push(message), message.includes('another consumer took the job') && (renewalsWhenTold = renewals)),
    } as unknown as RunJobDeps['logger'];
    deps.lease = { ms: 100, renewEveryMs: 20 };
    deps.jobs = { ...jobs, renewRun: (...args) => ((renewals += 1), jobs.renewRun(...args)) };
    const job = await queuedJob(jobs);
    deps.renderer = {
      render: async (input) => {
        await jobs.claimRun(job, { runId: 'usurper', until: Date.now() + 60_000 }, Number.MAX_SAFE_INTEGER);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return fakeRenderer().render(input);
      },
    };

    // Act
    await runJob(job, deps, { timeLeftMs: () => 900_000, now: () => Date.now() });
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Assess: the renewal that found the lease taken was the last, though the render ran on and the run ended
    assert.equal(jobs.peek(job)?.lease?.runId, 'usurper');
    assert.equal(warnings.filter((warning) => warning.includes('another consumer took the job')).length, 1);
    assert.ok(renewalsWhenTold >= 1);
    assert.equal(renewals, renewalsWhenTold);
  });

  it('drops the result of a consumer that lost its lease to another one instead of recording it twice', async () => {
    // Prepare
    const { jobs, queue, deps } = setup();
    const job = await queuedJob(jobs);
    deps.renderer = {
      render: async (input) => {
        // Meanwhile another consumer takes the job over.
        await jobs.claimRun(job, { runId: 'usurper', until: Date.now() + 60_000 }, Number.MAX_SAFE_INTEGER);
        return fakeRenderer().render(input);
      },
    };

    // Act
    await runJob(job, deps, clock());

    // Assess
    assert.equal(jobs.peek(job)?.status, 'RUNNING');
    assert.equal(jobs.peek(job)?.lease?.runId, 'usurper');
    assert.deepEqual(queue.webhooks, []);
  });
});

describe('giveUpJob', () => {
  it('fails a job whose message went to the dead-letter queue, fires its webhook and gives the quota back', async () => {
    // Prepare
    const { jobs, queue, deps, refunds } = setup();
    const job = await queuedJob(jobs);

    // Act
    await giveUpJob(job, deps, clock());

    // Assess
    const failed = jobs.peek(job)!;
    assert.equal(failed.status, 'FAILED');
    assert.deepEqual(failed.error, GIVEN_UP);
    assert.deepEqual(queue.webhooks.map((w) => w.message.attempt), [1]);
    assert.deepEqual(refunds, ['request-1']);
  });

  it('leaves a finished job as it is', async () => {
    // Prepare
    const { jobs, queue, deps } = setup();
    const job = await queuedJob(jobs);
    await runJob(job, deps, clock());
    const finished = structuredClone(jobs.peek(job));
    queue.webhooks.length = 0;

    // Act
    await giveUpJob(job, deps, clock());

    // Assess
    assert.deepEqual(jobs.peek(job), finished);
  });

  it('waits for a job still held by a live consumer rather than failing it under its feet', async () => {
    // Prepare
    const { jobs, deps } = setup();
    const job = await queuedJob(jobs);
    const now = Date.now();
    await jobs.claimRun(job, { runId: 'alive', until: now + 30_000 }, now);

    // Act / Assess
    await assert.rejects(giveUpJob(job, deps, clock(now)), JobBusyError);
    assert.equal(jobs.peek(job)?.status, 'RUNNING');
  });
});
