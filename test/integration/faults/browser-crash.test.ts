import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import { RenderTimeoutError } from '../../../lib/errors.js';
import { runJob, type RunJobDeps } from '../../../lib/job-runner/run-job.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import type { QuotaSpend } from '../../../lib/quota/quota.js';
import type { Renderer } from '../../../lib/render/index.js';
import { createEgressPolicy, useEgressPolicy } from '../../../lib/net/index.js';
import { browserPids } from '../../helpers/chromium-processes.js';
import { LOCAL_TEST_HOSTS, warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { buildFuzzStack } from '../../unit/fuzz/fuzz-stack.js';
import { memoryFileStore, memoryJobStore, recordingQueue } from '../../unit/jobs/fakes.js';
import { renderRequest } from '../render/render-fixtures.js';

/**
 * The real browser killed, crashed or frozen under a render: the request
 * gets a 5xx JSON answer inside its budget and its quota unit back, an async
 * job is queued again within seconds and completes, and the next render
 * works on a new browser.
 */

const b64 = (text: string) => Buffer.from(text).toString('base64');

// The test site lives on loopback, which the up-front URL checks allow only when named.
useEgressPolicy(createEgressPolicy({ allowPrivateHosts: LOCAL_TEST_HOSTS }));

async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never saw ${what}`);
}

describe('the browser failing under a render', { timeout: 120_000 }, () => {
  let renderer: Renderer;
  let site: TestServer;
  const hanging: Array<() => void> = [];
  let slowOnceServed = 0;

  before(async () => {
    site = await startTestServer({
      '/hang': (_req, res) => {
        hanging.push(() => res.end());
      },
      // Hangs the first time (while the browser is killed), answers at once afterwards.
      '/slow-once': (req, res) => {
        slowOnceServed += 1;
        if (slowOnceServed === 1) hanging.push(() => res.end());
        else html('<p>rendered on the second run</p>')(req, res);
      },
    });
    renderer = await warmRenderer();
  });
  after(async () => {
    for (const end of hanging) end();
    await renderer?.close();
    await site?.close();
  });

  it('answers 500 JSON when the browser is killed mid-render, gives the quota unit back, and the next request renders', async () => {
    // Prepare
    const stack = buildFuzzStack({ renderer });
    const requestsBefore = site.requests.length;

    // Act: kill the browser once the page request is in flight.
    const pending = stack.call('pdf', JSON.stringify({ page: { url: `${site.url}/hang`, adblock: false } }));
    await until('the page request', () => site.requests.length > requestsBefore);
    for (const pid of browserPids()) process.kill(pid, 'SIGKILL');
    const crashed = await pending;
    const next = await stack.call('pdf', JSON.stringify({ page: { html: b64('<p>after the crash</p>') } }));

    // Assess
    assert.equal(crashed.statusCode, 500);
    assert.deepEqual(JSON.parse(String(crashed.body)), { message: 'Internal server error' });
    assert.equal(stack.quotaUsed(), 1, 'only the request that rendered is counted');
    assert.equal(next.statusCode, 200);
    assert.equal(next.headers?.['content-type'], 'application/pdf');
  });

  it('queues an async job again within seconds when the browser is killed under it, and completes it on the next run', async () => {
    // Prepare
    const jobs = memoryJobStore();
    const queue = recordingQueue();
    const deps: RunJobDeps = {
      jobs, queue, files: memoryFileStore(), renderer,
      logger: new Logger({ serviceName: 'crash', logLevel: 'SILENT' }),
      config: { webhookRetryDelaysSeconds: [1, 2, 3, 4], filesBucket: 'files' },
    };
    const spend: QuotaSpend = { tokenHash: 'hash', period: '2026-11', spendId: 'r-1' };
    const job = newJob({ accountId: 'acct', tokenHash: 'hash', spend, input: { output: 'PDF', page: { url: `${site.url}/slow-once`, adblock: false } }, webhook: { url: 'https://hooks.example/done' } });
    await jobs.create(job);
    const clock = { timeLeftMs: () => 60_000 };

    // Act
    const running = runJob(job, deps, clock);
    await until('the page request', () => slowOnceServed === 1);
    for (const pid of browserPids()) process.kill(pid, 'SIGKILL');
    await running;
    const afterCrash = structuredClone(jobs.peek(job)!);
    await runJob(queue.jobs[0]!, deps, clock);

    // Assess
    assert.equal(afterCrash.status, 'PENDING');
    assert.equal(queue.jobs.length, 1, 'queued again once');
    assert.equal(jobs.peek(job)?.status, 'COMPLETED');
    assert.equal(queue.webhooks.length, 1, 'exactly one webhook');
  });

  it('detects a frozen browser (SIGSTOP) by the render budget, answers 504, and replaces it', async () => {
    // Prepare
    const before = browserPids();
    assert.equal(before.length, 1);
    for (const pid of before) process.kill(pid, 'SIGSTOP');

    // Act
    const frozen = renderRequest(renderer, { output: 'PDF', page: { html: b64('<p>frozen</p>') } }, { timeoutMs: 3_000 });

    // Assess
    await assert.rejects(frozen, (error: unknown) => error instanceof RenderTimeoutError && error.statusCode === 504);
    const next = await renderRequest(renderer, { output: 'PDF', page: { html: b64('<p>thawed</p>') } });
    assert.equal(next.contentType, 'application/pdf');
    const after = browserPids();
    assert.equal(after.length, 1);
    assert.notDeepEqual(after, before, 'the frozen browser was replaced');
  });
});
