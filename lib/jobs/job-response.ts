import type { FileStore } from '../files/file-store.js';
import { temporaryFileUrl } from '../files/temporary-files.js';
import { isFinished, signedUrlStatusOf, type Job } from './job-store.js';

/**
 * The job endpoint's view of a job (decisions.md): `fileUrl` while the file
 * lives (a URL valid for the rest of its lifetime), `signedUrlStatus` once
 * the job has ended, `error` when it failed, and where its webhook stands.
 */
export async function jobResponse(
  job: Job,
  deps: { files: Pick<FileStore, 'downloadUrl'>; lifetimeSeconds: number },
  now = Date.now(),
) {
  const fileUrl =
    job.status === 'COMPLETED' && job.file ? await temporaryFileUrl(deps.files, job.file, deps.lifetimeSeconds, now) : undefined;
  return {
    id: job.jobId,
    status: job.status,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(fileUrl ? { fileUrl } : {}),
    ...(isFinished(job) ? { signedUrlStatus: signedUrlStatusOf(job) } : {}),
    ...(job.error ? { error: job.error } : {}),
    webhook: { status: job.webhookStatus, attempts: job.webhookAttempts },
  };
}
