import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createS3FileStore } from '../../lib/aws/s3-file-store.js';
import type { FileStore } from '../../lib/files/file-store.js';
import { LAUNCH_RETRY_LOG } from '../../lib/render/browser/launch-retries.js';
import { readLiveDevStack } from '../../scripts/local-runtime/dev-stack.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { tempDir } from '../helpers/temp-dir.js';

type Account = { token: string; accountId: string; webhookSecret: string };

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const FILE_LIFETIME_SECONDS = 5;

/**
 * A service whose browser cannot start (every render fails on the service's
 * side) and whose files live 3 seconds: the jobs that keep failing must end
 * FAILED after their third run (each failed run queues the job again within
 * seconds) and be reported so, and the sweeper must delete expired files.
 */
describe('jobs that keep failing, and the file sweeper', () => {
  let service: RunningService;
  let receiver: TestServer;
  let account: Account;
  let sqs: SQSClient;
  /** The stage the service runs as: its queues and bucket are docrender-<stage>-…. */
  let stage: string;
  let s3: S3Client;
  let files: FileStore;
  const workDir = tempDir('docrender-recovery-');
  const stackFile = join(workDir, 'dev-stack.json');
  // Every launch of this service fails on purpose and is tried again: those retries are counted in a file of
  // this test's, not in CI's count of Chromium launches that failed by themselves (.ci/run).
  const retryLog = join(workDir, 'launch-retries.log');

  before(async () => {
    receiver = await startTestServer({ '/hook': (_req, res) => res.writeHead(200).end() });
    service = await startService({
      CHROMIUM_PATH: '/nonexistent/chromium',
      [LAUNCH_RETRY_LOG]: retryLog,
      FILE_LIFETIME_SECONDS: String(FILE_LIFETIME_SECONDS),
      DEV_STACK_FILE: stackFile,
    });
    account = JSON.parse((await service.tokens('create', '--json')).stdout) as Account;
    const stack = readLiveDevStack(stackFile);
    assert.ok(stack);
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    sqs = new SQSClient({ region: stack.region, endpoint: stack.endpoints.sqs, credentials, useQueueUrlAsEndpoint: false });
    s3 = new S3Client({ region: stack.region, endpoint: stack.endpoints.s3, credentials, forcePathStyle: true });
    const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
    // Named by the stage: a shared LocalStack (CI's TEST_AWS_ENDPOINT) holds other tests' buckets too.
    stage = stack.stage;
    const bucket = Buckets.find((b) => b.Name?.startsWith(`docrender-${stage}-filesbucket`))?.Name;
    assert.ok(bucket, 'the files bucket');
    files = createS3FileStore({ s3, bucket });
  });
  after(async () => {
    sqs?.destroy();
    s3?.destroy();
    await service?.stop();
    await receiver?.close();
  });

  it('fails a job whose renders keep failing after its third run (re-queued within seconds, or through the dead-letter queue), fires its webhook and gives the quota back', async () => {
    // Prepare: redeliver after 2 s instead of the production 6 minutes.
    const jobsQueue = (await sqs.send(new GetQueueUrlCommand({ QueueName: `docrender-${stage}-JobsQueue` }))).QueueUrl as string;
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: jobsQueue, Attributes: { VisibilityTimeout: '2' } }));
    const redrive = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: jobsQueue, AttributeNames: ['RedrivePolicy'] }))).Attributes
      ?.RedrivePolicy;
    assert.equal(JSON.parse(String(redrive)).maxReceiveCount, 3);

    // Act
    const res = await service.request('/v1/pdf/async', {
      json: { page: { html: b64('<p>never rendered</p>') }, webhook: { url: `${receiver.url}/hook`, metadata: { run: 'dlq' } } },
      token: account.token,
    });
    const { id } = (await res.json()) as { id: string };
    const call = await waitFor('the webhook', () => receiver.requests.find((r) => r.url === '/hook'), 60_000);

    // Assess
    assert.equal(res.status, 201);
    const body = JSON.parse(call.body) as Record<string, unknown> & { error?: { code: string; message: string } };
    assert.equal(body.id, id);
    assert.equal(body.status, 'FAILED');
    assert.equal(body.error?.code, 'render.failed');
    assert.match(String(body.error?.message), /Submit it again/);
    assert.equal(body.fileUrl, null);
    assert.deepEqual(body.metadata, { run: 'dlq' });
    const job = await waitFor('the webhook to be recorded', async () => {
      const read = (await (await service.request(`/v1/jobs/${id}`, { token: account.token })).json()) as {
        status: string;
        error?: unknown;
        webhook: { status: string; attempts: number };
      };
      return read.webhook.status === 'DELIVERED' ? read : undefined;
    });
    assert.equal(job.status, 'FAILED');
    assert.deepEqual(job.error, body.error);
    const usage = (await (await service.request('/v1/usage', { token: account.token })).json()) as { quota: { used: number } };
    assert.equal(usage.quota.used, 0, 'the unit spent on the job was given back');
    assert.match(readFileSync(retryLog, 'utf8'), /launch retry: attempt 2 of 3/, "the forced launch failures were counted in this test's file, not CI's");
  });

  it('deletes the files older than their lifetime when the sweeper runs, and keeps the younger ones', async () => {
    // Prepare
    // The sweeper's first invocation is a cold start (a new instance process), which on a busy machine can
    // take longer than the young file's lifetime: start it before the clock of the young file runs.
    assert.equal((await service.request('/__local/invoke/files-sweep', { method: 'POST', token: null })).status, 200);
    const old = await files.put(account.accountId, Buffer.from('%PDF old'), 'application/pdf');
    const oldUrl = await files.downloadUrl(old.key, 3600);
    await new Promise((resolve) => setTimeout(resolve, (FILE_LIFETIME_SECONDS + 1) * 1000));
    const young = await files.put(account.accountId, Buffer.from('%PDF young'), 'application/pdf');

    // Act
    const swept = await service.request('/__local/invoke/files-sweep', { method: 'POST', token: null });

    // Assess
    assert.equal(swept.status, 200);
    assert.ok(((await swept.json()) as { deleted: number }).deleted >= 1);
    assert.equal((await fetch(oldUrl)).status, 404);
    const kept = await fetch(await files.downloadUrl(young.key, 60));
    assert.equal(kept.status, 200);
    assert.equal(await kept.text(), '%PDF young');
  });
});
