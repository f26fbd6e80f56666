import type { Logger } from '@aws-lambda-powertools/logger';
import { CONFORMANCE_CODE, httpError, MERGE_PART_CODE, MISSING_GLYPHS_CODE, PROCESS_DOCUMENT_CODE, ServiceError, ValidationError } from '../errors.js';
import { confirmQuota, refundQuota, releaseQuota, type QuotaSpend } from '../quota/quota.js';
import type { UsageStore } from '../quota/usage-store.js';
import { SignerNotGrantedError } from '../signing/errors.js';
import type { CallerContext, HttpResult } from './types.js';

/**
 * Whether a request that spent a unit gets it back: when the service itself
 * failed (5xx), or when the request was refused as invalid before anything
 * was rendered (`api.validation`, a signer not granted). A page that could not be loaded
 * (`render.navigation`) was rendered for, and stays counted.
 */
export function earnsRefund(raised: unknown): boolean {
  if (typeof raised === 'number') return raised >= 500;
  // A library's own error is read as the edge answers it (a render refused for characters no font draws is a 422 ValidationError).
  const outcome = httpError(raised);
  // A merge that failed on one of its parts delivers nothing: none of its parts is charged.
  // A document to process that cannot be used, or cannot conform, delivers nothing either.
  if (outcome instanceof ValidationError) return [ 'api.validation', MERGE_PART_CODE, PROCESS_DOCUMENT_CODE, CONFORMANCE_CODE, MISSING_GLYPHS_CODE ].includes(outcome.code);
  // A signer the token may not use is refused before anything renders (it needs the admitted caller, so it comes after the spend).
  if (raised instanceof SignerNotGrantedError) return true;
  // A library's own error (a signer or timestamp authority failing) by the status the edge answers it with.
  return !(outcome instanceof ServiceError) || outcome.statusCode >= 500;
}

/**
 * Runs the render of a request whose admission spent its units of the
 * monthly quota (one; a merge one per rendered part; none when it renders
 * nothing). The spend is held (`SPEND_HOLD_MS`): if the render fails in a way
 * that `earnsRefund`, its units are given back at once, before the failure
 * goes on to the error mapper; otherwise its success confirms it. A render
 * killed by the runtime (its timeout) runs neither: its units come back by
 * themselves once the hold passes, so the refund does not depend on code
 * that runs after the work. What the render hands on (a job's record, whose
 * failure refunds later) is the spend as confirmed. A failed refund or
 * confirmation is logged, never allowed to replace the caller's answer.
 * Where a post-response phase follows the answer (`afterAnswer`), a
 * success's confirmation waits for it, off the caller's clock: an
 * environment frozen before it runs leaves the hold to pass, and the unit
 * comes back, the one way this errs, and in the caller's favour.
 */
export async function withQuotaSpend(
  deps: { usage: UsageStore; logger: Logger; afterAnswer?: (task: () => Promise<void>) => void },
  request: { spend: QuotaSpend | undefined; context: CallerContext },
  render: (spend: QuotaSpend | undefined) => Promise<HttpResult>,
): Promise<HttpResult> {
  const spend = request.spend;
  if (!spend) return render(undefined);
  request.context.quota = 'spent';
  const held = spend.heldUntil !== undefined;
  const { heldUntil: _held, ...confirmed } = spend;
  const giveBack = async () => {
    try {
      await (held ? releaseQuota(deps.usage, spend) : refundQuota(deps.usage, spend));
      request.context.quota = 'refunded';
    } catch (error) {
      request.context.quota = 'refund-failed';
      deps.logger.error('quota refund failed', { error: error as Error, period: spend.period });
    }
  };
  const confirm = async () => {
    if (!held) return;
    try {
      // Not held any more: the render outlived its hold (which cannot happen within a function's timeout) and its unit came back.
      if (!(await confirmQuota(deps.usage, spend))) deps.logger.warn('quota spend confirmed after its hold had passed', { period: spend.period });
    } catch (error) {
      deps.logger.error('quota confirmation failed', { error: error as Error, period: spend.period });
    }
  };
  let result: HttpResult;
  try {
    result = await render(confirmed);
  } catch (error) {
    if (earnsRefund(error)) await giveBack();
    else await confirm();
    throw error;
  }
  if (earnsRefund(result.statusCode)) await giveBack();
  else if (deps.afterAnswer && held) deps.afterAnswer(confirm);
  else await confirm();
  return result;
}
