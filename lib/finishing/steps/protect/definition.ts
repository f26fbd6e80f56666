/**
 * The `protect` step (issue 23): `pdf.protection`, AES-256 (PDF 2.0,
 * revision 6) with at least one password, and the permissions a reader
 * without the owner password has.
 */
import * as v from 'valibot';
import { closedObject } from '../../../validation/closed-object.js';
import { documented, oneOf } from '../../../validation/field-builders.js';
import type { ProtectPlan } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';

/** PDF passwords are cut at 127 bytes of UTF-8 (ISO 32000-2 §7.6.4.3.3); longer ones would silently mean less. */
export const MAX_PASSWORD_BYTES = 127;

/** An unset permission is allowed, as readers assume without encryption. */
export const PERMISSION_DEFAULTS = {
  print: 'highResolution',
  modify: true,
  copy: true,
  annotate: true,
  fillForms: true,
  accessibility: true,
  assemble: true,
} as const;

const BooleanSchema = v.boolean('Must be a boolean');

// The message never repeats the value: a password must not reach an error body or a log line.
const PasswordSchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.check((password) => Buffer.byteLength(password) <= MAX_PASSWORD_BYTES, `Must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (127 ASCII characters)`),
);

const PermissionsSchema = closedObject({
  print: documented(v.nullish(oneOf(['none', 'lowResolution', 'highResolution'])), { default: PERMISSION_DEFAULTS.print }),
  modify: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.modify, description: 'Change the content (other than annotations, forms and assembly).' }),
  copy: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.copy, description: 'Copy or extract text and images.' }),
  annotate: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.annotate, description: 'Add or change annotations.' }),
  fillForms: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.fillForms, description: 'Fill in form fields.' }),
  accessibility: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.accessibility, description: 'Extract text for accessibility.' }),
  assemble: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.assemble, description: 'Insert, rotate or delete pages, create bookmarks.' }),
});

/** `pdf.protection`: a password at least; permissions need the owner password. */
export const ProtectionSchema = v.pipe(
  closedObject({
    userPassword: documented(v.nullish(PasswordSchema), { description: 'Needed to open the document.' }),
    ownerPassword: documented(v.nullish(PasswordSchema), { description: 'Unlocks everything; required with permissions.' }),
    permissions: documented(v.nullish(PermissionsSchema), { description: 'What a reader with the user password (or none) may do; unset means allowed.' }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { userPassword, ownerPassword, permissions } = dataset.value;
    if (userPassword == null && ownerPassword == null) {
      addIssue({ message: 'Give userPassword, ownerPassword or both' });
    } else if (permissions != null && ownerPassword == null) {
      const input = dataset.value;
      addIssue({
        message: 'Required when permissions are set: without it the user password unlocks everything',
        path: [{ type: 'object', origin: 'value', input, key: 'ownerPassword', value: undefined }],
      });
    }
  }),
);

export type ProtectionOutput = v.InferOutput<typeof ProtectionSchema>;

/** The passwords, and every permission decided: an unset one is allowed. */
export function protectPlan(protection: ProtectionOutput): ProtectPlan {
  const asked = protection.permissions ?? {};
  return {
    ...(protection.userPassword != null ? { userPassword: protection.userPassword } : {}),
    ...(protection.ownerPassword != null ? { ownerPassword: protection.ownerPassword } : {}),
    permissions: {
      print: asked.print ?? PERMISSION_DEFAULTS.print,
      modify: asked.modify ?? PERMISSION_DEFAULTS.modify,
      copy: asked.copy ?? PERMISSION_DEFAULTS.copy,
      annotate: asked.annotate ?? PERMISSION_DEFAULTS.annotate,
      fillForms: asked.fillForms ?? PERMISSION_DEFAULTS.fillForms,
      accessibility: asked.accessibility ?? PERMISSION_DEFAULTS.accessibility,
      assemble: asked.assemble ?? PERMISSION_DEFAULTS.assemble,
    },
  };
}

export const protectDefinition = defineStep({
  name: 'protect',
  options: {
    entries: {
      protection: documented(v.nullish(ProtectionSchema), { description: 'Encrypts the PDF (AES-256) with passwords and permissions.' }),
    },
    // PDF/A forbids encryption; an e-invoice is a PDF/A-3 file, so it conflicts alike.
    conflicts: (['pdfa', 'eInvoice'] as const).map((archival) => ({
      when: [{ field: 'protection', given: true as const }, { field: archival, given: true as const }],
      message: `protection and ${archival} cannot be combined: PDF/A forbids encryption`,
    })),
    refused: { part: { protection: { message: 'Applies to the merged file: set it in the top-level pdf' } } },
    plan: ({ protection }) => (protection != null ? protectPlan(protection) : undefined),
  },
  build: async (plan: ProtectPlan) => (await import('./protect.js')).protectStep(plan),
});
