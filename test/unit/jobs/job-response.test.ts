import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isJobId, newJobId } from '../../../lib/jobs/job-ids.js';
import { jobResponse } from '../../../lib/jobs/job-response.js';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { b64 } from '../../helpers/service.js';
import { memoryFileStore } from './fakes.js';

const job = (patch: Partial<Job> = {}): Job => ({
  ...newJob(
    {
      accountId: 'acct-1',
      tokenHash: 'hash',
      input: { output: 'PDF', page: { html: b64('<p>x</p>') } },
      webhook: { url: 'https://hooks.example' },
    },
    new Date('2026-01-01T10:00:00.000Z'),
  ),
  ...patch,
});
const deps = { files: memoryFileStore(), lifetimeSeconds: 3600 };

describe('jobResponse', () => {
  it('shows a queued job with its status and webhook only', async () => {
    const body = await jobResponse(job(), deps);
    assert.deepEqual(Object.keys(body), ['id', 'status', 'createdAt', 'updatedAt', 'webhook']);
    assert.equal(body.status, 'PENDING');
    assert.deepEqual(body.webhook, { status: 'PENDING', attempts: 0 });
  });

  it('shows a completed job’s file URL while the file lives, and its upload status', async () => {
    // Prepare
    const completed = job({
      status: 'COMPLETED',
      completedAt: '2026-01-01T10:00:05.000Z',
      file: { key: 'files/acct-1/x.pdf', contentType: 'application/pdf', size: 10, createdAt: '2026-01-01T10:00:04.000Z' },
      signedUrlStatus: 'UPLOADED',
      webhookStatus: 'DELIVERED',
      webhookAttempts: 2,
    });

    // Act
    const live = await jobResponse(completed, deps, Date.parse('2026-01-01T10:30:04.000Z'));
    const gone = await jobResponse(completed, deps, Date.parse('2026-01-01T11:00:04.000Z'));

    // Assess
    assert.equal(live.fileUrl, 'https://files.example/files/acct-1/x.pdf?expires=1800');
    assert.equal(live.signedUrlStatus, 'UPLOADED');
    assert.deepEqual(live.webhook, { status: 'DELIVERED', attempts: 2 });
    assert.equal('fileUrl' in gone, false, 'no URL to a file that has been deleted');
  });

  it('shows why a job failed', async () => {
    const error = { code: 'render.navigation', message: 'The page could not be loaded', fields: { 'page.url': 'refused' } };
    const body = await jobResponse(job({ status: 'FAILED', error }), deps);
    assert.deepEqual(body.error, error);
    assert.equal(body.signedUrlStatus, 'NOT_PROVIDED');
    assert.equal('fileUrl' in body, false);
  });
});

describe('newJobId', () => {
  it('makes unguessable ids that isJobId recognises, and nothing else passes', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newJobId()));
    assert.equal(ids.size, 200);
    for (const id of ids) assert.ok(isJobId(id), id);
    for (const bad of ['', 'job_', 'tpl_00000000000000000000000000', 'job_ABCDEFGHJKMNPQRSTVWXYZ0123', '../job_x']) assert.equal(isJobId(bad), false, bad);
  });
});
