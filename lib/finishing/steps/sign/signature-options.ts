/**
 * `pdf.signature` (issue 31): a PAdES signature made with a signer the
 * deployer configured (AWS KMS, PKCS#12, or the local development one), at a
 * baseline level, approval or certification (DocMDP), invisible or drawn in
 * a rectangle of a page. An entry of the `pdf` object of every PDF render,
 * of a merge's top-level `pdf`, and of what a template stores.
 */
import * as v from 'valibot';
import { documented } from '../../../validation/field-builders.js';
import { maxCharacters } from '../../../validation/character-length.js';
import { SIGNER_NAME } from '../../../signing/signing-config.js';
import { closedObject } from '../../../validation/closed-object.js';
import { MAX_STAMP_IMAGE_EDGE, MAX_STAMP_IMAGE_PIXELS, StampImageSchema } from '../../../input/stamp-image.js';

/** The PAdES baseline levels the service signs at (ETSI EN 319 142-1). */
export const SIGNATURE_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type SignatureLevel = (typeof SIGNATURE_LEVELS)[number];
/** The levels that need the deployment's timestamp authority. */
export const TIMESTAMPED_LEVELS: readonly SignatureLevel[] = ['B-T', 'B-LT', 'B-LTA'];

/** The DocMDP permissions a certification signature grants. */
export const CERTIFY_PERMISSIONS = ['noChanges', 'formFilling', 'annotations'] as const;

/** Longest reason, location, contact or name: a line in a signature panel. */
export const MAX_SIGNATURE_TEXT = 500;
/** Largest side of the visible signature's rectangle, in points (200 inches, PDF's page limit). */
const MAX_RECT_POINTS = 14_400;

const text = (description: string) =>
  documented(v.nullish(v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), maxCharacters(MAX_SIGNATURE_TEXT, `Must be at most ${MAX_SIGNATURE_TEXT} characters`))), {
    description,
  });

const points = (min: number, description: string) =>
  documented(v.pipe(v.number('Must be a number'), v.minValue(min, `Must be at least ${min}`), v.maxValue(MAX_RECT_POINTS, `Must be at most ${MAX_RECT_POINTS}`)), { description });

export const AppearanceSchema = v.pipe(
  closedObject({
    page: documented(
      v.pipe(v.number('Must be a number'), v.integer('Must be a whole number'), v.check((page) => page !== 0, 'Must not be 0: pages count from 1, or from -1 at the end')),
      { description: 'The page, 1-based; a negative number counts from the end (-1 is the last page).' },
    ),
    x: points(0, 'Left edge, points from the page\'s left.'),
    y: points(0, 'Bottom edge, points from the page\'s bottom.'),
    width: points(1, 'Points.'),
    height: points(1, 'Points.'),
    text: documented(v.nullish(v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), maxCharacters(MAX_SIGNATURE_TEXT, `Must be at most ${MAX_SIGNATURE_TEXT} characters`))), {
      description: "Text drawn in the rectangle (any script, the watermark's fonts); default: the signer's name, the date and the reason. One of text or image, or neither.",
    }),
    image: documented(v.nullish(StampImageSchema), {
      description: `Base64 PNG or JPEG drawn in the rectangle, same limits as a watermark image (at most 1 MB, ${MAX_STAMP_IMAGE_EDGE} pixels a side, ${MAX_STAMP_IMAGE_PIXELS} in all).`,
    }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed || dataset.value.text == null || dataset.value.image == null) return;
    const input = dataset.value;
    for (const key of ['text', 'image'] as const) {
      addIssue({ message: 'Only one of text or image may be given', path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
    }
  }),
);

/** `pdf.signature`. */
export const SignatureSchema = closedObject({
  signer: documented(v.nullish(v.pipe(v.string('Must be a string'), v.regex(SIGNER_NAME, 'Must be a signer name (letters, digits, - and _)'))), {
    default: 'default',
    description: 'The name of a signer the deployer configured and granted to this token.',
  }),
  level: documented(v.nullish(v.picklist(SIGNATURE_LEVELS, `Must be one of: ${SIGNATURE_LEVELS.join(', ')}`)), {
    default: 'B-B',
    description:
      "PAdES baseline level: B-B; B-T adds an RFC 3161 timestamp from the deployment's timestamp authority; B-LT adds to B-T the validation material (every certificate of the signer's and the timestamp authority's chains and their issuers' CRLs, fetched from the certificates' CRL distribution points) in the file's DSS, by an incremental update after the signature, so the signature can be validated after the certificates expire or their CA is gone; B-LTA adds to B-LT a document timestamp (ETSI.RFC3161) over the whole file, DSS included, from the same authority.",
  }),
  reason: text('Why the document is signed, shown in the signature panel.'),
  location: text('Where it was signed.'),
  contactInfo: text('How to reach the signer.'),
  name: text("The signer's name as shown; default: the certificate's common name."),
  certify: documented(v.nullish(v.picklist(CERTIFY_PERMISSIONS, `Must be one of: ${CERTIFY_PERMISSIONS.join(', ')}`)), {
    description: 'Makes it a certification signature (DocMDP) allowing no changes, form filling, or form filling and annotations; absent: an approval signature.',
  }),
  appearance: documented(v.nullish(AppearanceSchema), { description: 'A visible signature in this rectangle; absent: invisible.' }),
});

export type SignatureOutput = v.InferOutput<typeof SignatureSchema>;
