/**
 * The checks of `pdf.signature` that need the deployment and the caller: the
 * signer must be configured (400 naming `pdf.signature.signer`), a level that
 * needs a timestamp authority must have one (400 naming `pdf.signature.level`),
 * and the caller's token must have been granted the signer (403).
 */
import { ValidationError } from '../errors.js';
import type { SignPlan } from '../finishing/pipeline/finishing-plan.js';
import type { DocumentPlan } from '../render/render-plan.js';
import { SignerNotGrantedError } from '../signing/errors.js';
import type { SigningConfig } from '../signing/signing-config.js';
import { TIMESTAMPED_LEVELS } from '../finishing/steps/sign/signature-options.js';
import type { TokenRecord } from '../tokens/token-store.js';

/** The signature a plan asks for, if any. */
export function signatureOf(plan: DocumentPlan): SignPlan | undefined {
  return 'finishing' in plan ? plan.finishing.sign : undefined;
}

/** 400 when the plan's signature needs what the deployment lacks. */
export function checkSignatureAvailable(plan: DocumentPlan, signing: SigningConfig): void {
  const sign = signatureOf(plan);
  if (!sign) return;
  const fields: Record<string, string> = {};
  if (!Object.hasOwn(signing.signers, sign.signer)) {
    const names = Object.keys(signing.signers);
    fields['pdf.signature.signer'] = names.length > 0 ? `No signer named "${sign.signer}" is configured` : 'This deployment has no signers configured';
  }
  if (TIMESTAMPED_LEVELS.includes(sign.level) && !signing.timestampUrl) {
    fields['pdf.signature.level'] = `${sign.level} needs a timestamp authority, and this deployment has none configured (TIMESTAMP_URL)`;
  }
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);
}

/** 403 when the caller's token was not granted the plan's signer. */
export function checkSignerGranted(plan: DocumentPlan, token: TokenRecord): void {
  const sign = signatureOf(plan);
  if (sign && !(token.signers ?? []).includes(sign.signer)) throw new SignerNotGrantedError(sign.signer);
}
