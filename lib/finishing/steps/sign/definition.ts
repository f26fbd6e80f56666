/**
 * The `sign` step (issue 31): `pdf.signature`, a PAdES signature over the
 * finished file's every byte, made last. Its options are in signature-options.ts.
 */
import * as v from 'valibot';
import { decodeStampImage } from '../../../input/stamp-image.js';
import { OptionError } from '../../../pdf/errors.js';
import { documented } from '../../../validation/field-builders.js';
import type { SignPlan } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';
import { SignatureSchema, type SignatureOutput } from './signature-options.js';

/** The signature with its defaults applied and its appearance image decoded (the schema has checked it). */
export function signPlan(signature: SignatureOutput): SignPlan {
  const plan: SignPlan = { signer: signature.signer ?? 'default', level: signature.level ?? 'B-B' };
  for (const key of ['reason', 'location', 'contactInfo', 'name'] as const) {
    const value = signature[key];
    if (value != null) plan[key] = value;
  }
  if (signature.certify != null) plan.certify = signature.certify;
  const appearance = signature.appearance;
  if (appearance != null) {
    const { page, x, y, width, height } = appearance;
    plan.appearance = { page, x, y, width, height };
    if (appearance.text != null) plan.appearance.text = appearance.text;
    if (appearance.image != null) {
      const decoded = decodeStampImage(appearance.image);
      if ('problem' in decoded) throw new OptionError({ 'signature.appearance.image': decoded.problem });
      plan.appearance.image = decoded;
    }
  }
  return plan;
}

export const signDefinition = defineStep({
  name: 'sign',
  options: {
    entries: {
      signature: documented(v.nullish(SignatureSchema), {
        description: 'Signs the finished PDF (PAdES, the last finishing step) with a signer the deployer configured. Cannot be combined with protection.',
      }),
    },
    // A signature over an encrypted file would be checked on bytes a reader decrypts differently, and encrypting a signed file breaks it.
    conflicts: [
      {
        when: [{ field: 'signature', given: true }, { field: 'protection', given: true }],
        message: 'signature and protection cannot be combined: sign an unencrypted document (the signature itself protects it from changes)',
      },
    ],
    refused: { part: { signature: { message: 'Applies to the merged file: set it in the top-level pdf' } } },
    plan: ({ signature }) => (signature != null ? signPlan(signature) : undefined),
  },
  build: async (plan: SignPlan, context) => {
    if (!context.signers) throw new Error('A signature was asked of a renderer without signers');
    return (await import('./sign.js')).signStep(plan, context.signers, context.drawText, () => context.now);
  },
});
