/**
 * The `compress` step (issue 34): `pdf.compress`, `true` for the defaults
 * or an object of settings; applies to the merged file once.
 */
import * as v from 'valibot';
import { closedObject } from '../../../validation/closed-object.js';
import { documented, integerBetween } from '../../../validation/field-builders.js';
import type { CompressPlan } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';

/** What `pdf.compress: true`, or a setting left out, means. */
export const COMPRESS_DEFAULTS = {
  imageQuality: 80,
  maxImageDpi: 150,
  grayscale: false,
} as const;

/** `pdf.compress`'s settings when given as an object; `true` takes every default. */
export const CompressSchema = closedObject({
  imageQuality: documented(v.nullish(integerBetween(1, 100)), { default: COMPRESS_DEFAULTS.imageQuality, description: 'JPEG quality of the re-encoded images.' }),
  maxImageDpi: documented(v.nullish(integerBetween(72, 600)), {
    default: COMPRESS_DEFAULTS.maxImageDpi,
    description: 'Images shown at a higher resolution than this are downsampled to it, at the size they are drawn (never enlarged).',
  }),
  grayscale: documented(v.nullish(v.boolean('Must be a boolean')), { default: COMPRESS_DEFAULTS.grayscale, description: 'Turns colour images grey.' }),
});

export const compressDefinition = defineStep({
  name: 'compress',
  options: {
    entries: {
      compress: documented(v.nullish(v.union([v.boolean('Must be a boolean'), CompressSchema], 'Must be true, false or an object (imageQuality, maxImageDpi, grayscale)')), {
        default: false,
        description:
          'Makes the PDF smaller (true for the defaults): images drawn at more than maxImageDpi are downsampled, re-encoded as JPEG at imageQuality unless transparent, and kept as they were when that is not smaller; identical images and fonts are stored once, in object streams. Runs before protection and the signature, and keeps PDF/A conformant.',
      }),
    },
    refused: { part: { compress: { message: 'Applies to the merged file: set it in the top-level pdf' } } },
    // Every default applied: `true` is all of them.
    plan: ({ compress }): CompressPlan | undefined => {
      if (compress == null || compress === false) return undefined;
      const asked = compress === true ? {} : compress;
      return {
        imageQuality: asked.imageQuality ?? COMPRESS_DEFAULTS.imageQuality,
        maxImageDpi: asked.maxImageDpi ?? COMPRESS_DEFAULTS.maxImageDpi,
        grayscale: asked.grayscale ?? COMPRESS_DEFAULTS.grayscale,
      };
    },
  },
  build: async (plan: CompressPlan) => (await import('./compress.js')).compressStep(plan),
});
