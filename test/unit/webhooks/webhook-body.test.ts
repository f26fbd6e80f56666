import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../../lib/jobs/job-store.js';
import { newJob } from '../../../lib/jobs/submit-job.js';
import { batchWebhookBody, webhookBody } from '../../../lib/webhooks/webhook-body.js';
import { b64 } from '../../helpers/service.js';

function finishedJob(patch: Partial<Job>): Job {
  const job = newJob(
    {
      accountId: 'acct-1',
      tokenHash: 'hash',
      input: { output: 'IMAGE', page: { html: b64('<p>x</p>') } },
      webhook: { url: 'https://hooks.example/done', metadata: { orderId: '42' } },
    },
    new Date('2026-01-02T03:04:05.000Z'),
  );
  return { ...job, completedAt: '2026-01-02T03:04:09.000Z', ...patch };
}

describe('webhookBody', () => {
  it('describes a completed job with its file URL, in the fields and order decisions.md lists', () => {
    // Prepare
    const job = finishedJob({
      status: 'COMPLETED',
      file: { key: 'files/acct-1/x.png', contentType: 'image/png', size: 1234, createdAt: '2026-01-02T03:04:08.000Z' },
      signedUrlStatus: 'NOT_PROVIDED',
    });

    // Act
    const body = webhookBody(job, { fileUrl: 'https://files.example/x.png' });

    // Assess
    assert.deepEqual(Object.keys(body), [
      'id', 'status', 'output', 'contentType', 'fileSize', 'fileUrl', 'signedUrlStatus', 'metadata', 'createdAt', 'completedAt',
    ]);
    assert.deepEqual(body, {
      id: job.jobId,
      status: 'COMPLETED',
      output: 'IMAGE',
      contentType: 'image/png',
      fileSize: 1234,
      fileUrl: 'https://files.example/x.png',
      signedUrlStatus: 'NOT_PROVIDED',
      metadata: { orderId: '42' },
      createdAt: '2026-01-02T03:04:05.000Z',
      completedAt: '2026-01-02T03:04:09.000Z',
    });
  });

  it('puts what the job cost last, after every field decisions.md lists, and only where known (issue 47)', () => {
    // Prepare
    const file = { key: 'files/acct-1/x.pdf', contentType: 'application/pdf', size: 9, createdAt: '2026-01-02T03:04:08.000Z' };

    // Act
    const completed = webhookBody(finishedJob({ status: 'COMPLETED', file, signedUrlStatus: 'NOT_PROVIDED', pageCount: 1_204, renderMs: 61_500 }), { fileUrl: 'https://files.example/x.pdf' });
    const refused = webhookBody(finishedJob({ status: 'FAILED', error: { code: 'api.validation', message: 'x' } }), { fileUrl: null });

    // Assess
    assert.deepEqual(Object.keys(completed).slice(-5), ['metadata', 'createdAt', 'completedAt', 'pageCount', 'renderMs']);
    assert.deepEqual([completed.pageCount, completed.renderMs], [1_204, 61_500]);
    assert.deepEqual(Object.keys(refused).slice(-2), ['createdAt', 'completedAt']);
  });

  it('names the characters a completed file draws with no glyph, after signedUrlStatus, and nothing when there are none', () => {
    // Prepare
    const file = { key: 'files/acct-1/x.pdf', contentType: 'application/pdf', size: 9, createdAt: '2026-01-02T03:04:08.000Z' };
    const report = { count: 3, codePoints: ['U+E000', 'U+0E01'], firstPage: 4, partial: true as const };

    // Act
    const reported = webhookBody(finishedJob({ status: 'COMPLETED', file, signedUrlStatus: 'NOT_PROVIDED', missingGlyphs: report }), { fileUrl: 'https://files.example/x.pdf' });
    const clean = webhookBody(finishedJob({ status: 'COMPLETED', file, signedUrlStatus: 'NOT_PROVIDED' }), { fileUrl: 'https://files.example/x.pdf' });

    // Assess
    assert.deepEqual(reported.missingGlyphs, report);
    assert.deepEqual(Object.keys(reported).slice(6, 8), ['signedUrlStatus', 'missingGlyphs']);
    assert.equal('missingGlyphs' in clean, false);
  });

  it('carries the bytes in fileBase64 instead of a URL for receiveType base64', () => {
    // Prepare
    const job = finishedJob({
      status: 'COMPLETED',
      file: { key: 'files/acct-1/x.png', contentType: 'image/png', size: 3, createdAt: '2026-01-02T03:04:08.000Z' },
      signedUrlStatus: 'UPLOADED',
    });

    // Act
    const body = webhookBody(job, { fileBase64: 'AQID' });

    // Assess
    assert.equal(body.fileBase64, 'AQID');
    assert.equal('fileUrl' in body, false);
    assert.equal(body.signedUrlStatus, 'UPLOADED');
  });

  it('describes a failed job with its error and no file; a requested upload that never happened is FAILED', () => {
    // Prepare
    const error = { code: 'render.navigation', message: 'The page could not be loaded', fields: { 'page.url': 'net::ERR_CONNECTION_REFUSED' } };
    const job = finishedJob({ status: 'FAILED', error, storage: { preSignedUrl: 'https://bucket.example/put' } });

    // Act
    const body = webhookBody(job, { fileUrl: null });

    // Assess
    assert.equal(body.status, 'FAILED');
    assert.deepEqual(body.error, error);
    assert.equal(body.fileUrl, null);
    assert.equal(body.contentType, null);
    assert.equal(body.fileSize, null);
    assert.equal(body.signedUrlStatus, 'FAILED');
  });

  it('sends an empty metadata object when none was given', () => {
    const job = finishedJob({ status: 'FAILED', error: { code: 'render.failed', message: 'x' }, webhook: { url: 'https://hooks.example' } });
    assert.deepEqual(webhookBody(job, { fileUrl: null }).metadata, {});
    assert.equal(webhookBody(job, { fileUrl: null }).signedUrlStatus, 'NOT_PROVIDED');
  });
});

describe('batchWebhookBody', () => {
  const manifest = { key: 'files/acct-1/m.json', contentType: 'application/json', size: 10, createdAt: '2026-01-02T03:04:08.000Z' };
  const summary = { status: 'COMPLETED' as const, total: 2, done: 2, failed: 0, manifest };

  it('says how the upload to storage went when the batch had storage, and nothing of it when not', () => {
    // Prepare
    const batch = finishedJob({ status: 'COMPLETED' });

    // Act
    const uploaded = batchWebhookBody(batch, { ...summary, signedUrlStatus: 'UPLOADED' }, { manifestUrl: 'https://files.example/m.json' });
    const without = batchWebhookBody(batch, { ...summary, signedUrlStatus: 'NOT_PROVIDED' }, { manifestUrl: 'https://files.example/m.json' });

    // Assess
    assert.equal(uploaded.signedUrlStatus, 'UPLOADED');
    assert.deepEqual([uploaded.type, uploaded.total, uploaded.manifestUrl], ['batch', 2, 'https://files.example/m.json']);
    assert.equal('signedUrlStatus' in without, false);
  });
});
