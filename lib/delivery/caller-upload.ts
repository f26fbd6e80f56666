import { sendOutbound, type OutboundResult, type StreamedBody } from './outbound-http.js';

/** decisions.md: NOT_PROVIDED without `storage`, UPLOADED on a 2xx answer to the PUT, FAILED otherwise. */
export type SignedUrlStatus = 'UPLOADED' | 'FAILED' | 'NOT_PROVIDED';

export type CallerUpload = { status: SignedUrlStatus; result?: OutboundResult };

/**
 * PUTs the file to the caller's pre-signed URL with its Content-Type. A
 * failure is reported, never thrown: the temporary copy still holds the file.
 */
export async function uploadToCaller(
  storage: { preSignedUrl: string } | null | undefined,
  file: { body: Buffer | StreamedBody; contentType: string },
  options: { timeoutMs?: number; maxTimeoutMs?: number } = {},
): Promise<CallerUpload> {
  if (!storage) return { status: 'NOT_PROVIDED' };
  const result = await sendOutbound({
    url: storage.preSignedUrl,
    method: 'PUT',
    headers: { 'content-type': file.contentType },
    body: file.body,
    timeoutMs: options.timeoutMs,
    maxTimeoutMs: options.maxTimeoutMs,
  });
  return { status: result.ok ? 'UPLOADED' : 'FAILED', result };
}
