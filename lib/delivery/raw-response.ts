import type { Config } from '../config.js';
import type { FileStore } from '../files/file-store.js';
import { file, json } from '../http/responses.js';
import type { HttpResult } from '../http/types.js';
import { step } from '../step-bound.js';
import type { RenderResult } from '../render/types.js';
import { missingGlyphsHeader } from '../glyphs/glyph-report.js';

/** Lambda's limit on a synchronous invocation's payload, each way: the event, and the whole JSON result (body in base64 included). */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;
/**
 * Room kept for what the middleware stack adds after the handler (rate-limit
 * and request headers): a file that only fits without them must not become
 * a 500 at the edge.
 */
const HEADROOM_BYTES = 16 * 1024;

/** Whether a handler result fits in a Lambda response, with room for the headers added after it. */
export function fitsLambdaResponse(result: HttpResult): boolean {
  // Base64 needs no escaping in JSON, so the body counts for its length without serializing megabytes.
  const body = result.body ?? '';
  const bodyBytes = result.isBase64Encoded ? body.length : Buffer.byteLength(JSON.stringify(body)) - 2;
  const rest = Buffer.byteLength(JSON.stringify({ ...result, body: '' }));
  return rest + bodyBytes <= LAMBDA_RESPONSE_LIMIT_BYTES - HEADROOM_BYTES;
}

/**
 * The answer of a raw render: the file itself (200) when it fits in a Lambda
 * response, else (roughly above 4.7 MB of file, 6 MB once base64-encoded)
 * the file is stored as a temporary file and the answer is a 303 whose
 * `Location` is its download URL, valid for the file lifetime, with a short
 * JSON `{message}` body. Either way, characters the render drew with no glyph
 * are named in `X-Missing-Glyphs`.
 */
export async function rawFileResponse(
  deps: { files: Pick<FileStore, 'put' | 'downloadUrl'>; config: Pick<Config, 'fileLifetimeSeconds'> },
  accountId: string,
  result: Pick<RenderResult, 'body' | 'contentType' | 'missingGlyphs'>,
): Promise<HttpResult> {
  const glyphs = missingGlyphsHeaders(result);
  const direct = file(result.body, result.contentType, glyphs);
  if (fitsLambdaResponse(direct)) return direct;
  const stored = await step(undefined, 'store', deps.files.put(accountId, result.body, result.contentType));
  const location = await deps.files.downloadUrl(stored.key, deps.config.fileLifetimeSeconds);
  const minutes = Math.round(deps.config.fileLifetimeSeconds / 60);
  return json(
    303,
    {
      message: `The file (${stored.size} bytes) is too large for a direct answer; download it from the Location URL within ${minutes} minutes`,
    },
    { location, ...glyphs },
  );
}

/**
 * `X-Missing-Glyphs` (issue 46) when the render drew characters no font has: `count=2; first-page=1;
 * code-points=U+E000,U+0E01`, bounded in length. No header when nothing is missing: the answer stays as it was.
 */
export function missingGlyphsHeaders(result: Pick<RenderResult, 'missingGlyphs'>): Record<string, string> {
  return result.missingGlyphs ? { 'x-missing-glyphs': missingGlyphsHeader(result.missingGlyphs) } : {};
}
