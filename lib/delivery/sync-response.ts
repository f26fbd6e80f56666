import type { Logger } from '@aws-lambda-powertools/logger';
import type { Config } from '../config.js';
import { companionUrls, storeCompanions } from '../files/companion-files.js';
import type { FileStore } from '../files/file-store.js';
import { json } from '../http/responses.js';
import type { HttpResult } from '../http/types.js';
import { step } from '../step-bound.js';
import type { RenderResult } from '../render/types.js';
import type { StorageOptionsOutput } from '../schemas/render-options.js';
import { uploadToCaller } from './caller-upload.js';
import { OUTBOUND_TIMEOUT_MS } from './outbound-http.js';

/** Time kept back from the caller's upload so the answer still leaves before the function's timeout. */
const ANSWER_MARGIN_MS = 1_500;

export type SyncResponseDeps = {
  files: Pick<FileStore, 'put' | 'downloadUrl'>;
  logger: Logger;
  config: Pick<Config, 'fileLifetimeSeconds'>;
};

/**
 * The answer of a sync render: the file is stored as a temporary file (its
 * `fileUrl` is valid for the file lifetime) and, with `storage`, PUT to the
 * caller's pre-signed URL at the same time. A failed upload only shows in
 * `signedUrlStatus`: the temporary copy is there either way. The upload gets
 * at most 10 s and never more than the invocation has left. Images made beside
 * the file (each page's of a ZIP, a PDF's preview) are stored as temporary
 * files of their own and answered as `fileUrls` and `previewUrl`; only the
 * file itself goes to the caller's URL. Characters drawn with no glyph are
 * `missingGlyphs` (absent when there are none).
 */
export async function syncFileResponse(
  deps: SyncResponseDeps,
  request: {
    /** The render's id (a job id, though nothing is queued): in the answer and the logs. */
    id: string;
    accountId: string;
    result: Pick<RenderResult, 'body' | 'contentType' | 'companions' | 'missingGlyphs'>;
    storage?: StorageOptionsOutput | null;
    timeLeftMs: () => number;
  },
): Promise<HttpResult> {
  const { id } = request;
  const uploadTimeoutMs = Math.min(OUTBOUND_TIMEOUT_MS, request.timeLeftMs() - ANSWER_MARGIN_MS);
  const [stored, companions, upload] = await Promise.all([
    // Bounded on its own: a write that hangs fails with the step named, not at the function's timeout.
    step(undefined, 'store', deps.files.put(request.accountId, request.result.body, request.result.contentType)),
    step(undefined, 'store', storeCompanions(deps.files, request.accountId, request.result.companions)),
    uploadToCaller(request.storage, request.result, { timeoutMs: uploadTimeoutMs }),
  ]);
  if (upload.status === 'FAILED') {
    deps.logger.info('upload to the caller URL failed', {
      id,
      step: 'upload',
      elapsedMs: upload.result?.durationMs,
      boundMs: uploadTimeoutMs,
      statusCode: upload.result?.statusCode,
      reason: upload.result?.error,
    });
  }
  const fileUrl = await deps.files.downloadUrl(stored.key, deps.config.fileLifetimeSeconds);
  const beside = await companionUrls(deps.files, companions, deps.config.fileLifetimeSeconds);
  const glyphs = request.result.missingGlyphs;
  return json(200, { id, status: 'COMPLETED', fileUrl, ...beside, signedUrlStatus: upload.status, ...(glyphs ? { missingGlyphs: glyphs } : {}) });
}
