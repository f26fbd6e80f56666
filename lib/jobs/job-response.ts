import type { FileStore } from '../files/file-store.js';
import { temporaryFileUrl } from '../files/temporary-files.js';
import { companionUrls } from '../files/companion-files.js';
import { isFinished, signedUrlStatusOf, type Job } from './job-store.js';

/**
 * The job endpoint's view of a job (decisions.md): `fileUrl` while the file
 * lives (a URL valid for the rest of its lifetime), `signedUrlStatus` once
 * the job has ended, `error` when it failed, and where its webhook stands;
 * `fileUrls` and `previewUrl` for the images stored beside the file (issue 34);
 * `missingGlyphs` when the file draws characters no font has (issue 46);
 * once it has ended, what it cost (issue 47), where known: `pageCount` (a
 * PDF's) and `renderMs` (not for a job refused before rendering).
 */
export async function jobResponse(
  job: Job,
  deps: { files: Pick<FileStore, 'downloadUrl'>; lifetimeSeconds: number },
  now = Date.now(),
) {
  const fileUrl =
    job.status === 'COMPLETED' && job.file ? await temporaryFileUrl(deps.files, job.file, deps.lifetimeSeconds, now) : undefined;
  const beside = fileUrl && job.companions ? await companionUrls(deps.files, job.companions, deps.lifetimeSeconds, now) : {};
  return {
    id: job.jobId,
    status: job.status,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(fileUrl ? { fileUrl } : {}),
    ...beside,
    ...(isFinished(job) ? { signedUrlStatus: signedUrlStatusOf(job) } : {}),
    ...(job.missingGlyphs ? { missingGlyphs: job.missingGlyphs } : {}),
    ...(job.error ? { error: job.error } : {}),
    webhook: { status: job.webhookStatus, attempts: job.webhookAttempts },
    ...(isFinished(job) && job.pageCount !== undefined ? { pageCount: job.pageCount } : {}),
    ...(isFinished(job) && job.renderMs !== undefined ? { renderMs: job.renderMs } : {}),
  };
}
