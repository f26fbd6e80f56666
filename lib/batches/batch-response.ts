import type { FileStore } from '../files/file-store.js';
import { temporaryFileUrl } from '../files/temporary-files.js';
import type { Batch } from './batch-store.js';

/**
 * GET /v1/batches/{id}'s view of a batch: its status and counts, and once it
 * has ended the URL of its results manifest (a JSON file, one entry per item
 * with its name, status, file URL or error), valid for the rest of the
 * manifest's lifetime; the webhook's state when one was given.
 */
export async function batchResponse(batch: Batch, deps: { files: Pick<FileStore, 'downloadUrl'>; lifetimeSeconds: number }, now = Date.now()) {
  const url = async (file: Batch['manifest']) => (batch.closed && file ? await temporaryFileUrl(deps.files, file, deps.lifetimeSeconds, now) : undefined);
  const manifestUrl = await url(batch.manifest);
  return {
    id: batch.batchId,
    status: batch.status,
    total: batch.total,
    counts: { done: batch.done, failed: batch.failed, pending: Math.max(0, batch.total - batch.done - batch.failed) },
    createdAt: batch.createdAt,
    updatedAt: batch.updatedAt,
    ...(batch.completedAt ? { completedAt: batch.completedAt } : {}),
    ...(batch.closed ? { manifestUrl: manifestUrl ?? null } : {}),
    ...(batch.closed && batch.output.zip ? { zipUrl: (await url(batch.zip)) ?? null } : {}),
    ...(batch.closed && batch.output.merge ? { mergedUrl: (await url(batch.merged)) ?? null } : {}),
    ...(batch.storage && batch.closed ? { signedUrlStatus: batch.signedUrlStatus ?? 'FAILED' } : {}),
    ...(batch.webhook ? { webhook: { status: batch.webhookStatus, attempts: batch.webhookAttempts } } : {}),
  };
}
