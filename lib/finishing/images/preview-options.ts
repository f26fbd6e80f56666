/**
 * `pdf.preview` (issue 34): an image of the finished PDF's first page,
 * stored beside it. No step (the PDF stays as it is): options and a plan
 * like a step's, read by the registry after the steps'.
 */
import * as v from 'valibot';
import { closedObject } from '../../validation/closed-object.js';
import { documented, integerBetween, oneOf } from '../../validation/field-builders.js';
import type { PreviewPlan } from '../pipeline/finishing-plan.js';
import { defineOptions } from '../pipeline/step-definition.js';

/** Bounds of `pdf.preview.width`, in pixels: a thumbnail to a screen-wide preview. */
export const MIN_PREVIEW_WIDTH = 16;
export const MAX_PREVIEW_WIDTH = 2000;
export const PREVIEW_TYPES = ['png', 'jpeg', 'webp'] as const;

/** A preview's settings left out: a thumbnail a list shows. */
export const PREVIEW_DEFAULTS = { width: 400, type: 'png' } as const;

const PreviewSchema = closedObject({
  width: documented(v.nullish(integerBetween(MIN_PREVIEW_WIDTH, MAX_PREVIEW_WIDTH)), {
    default: PREVIEW_DEFAULTS.width,
    description: 'Width of the image in pixels; its height follows the page (at most 25 million pixels in all, 16384 a side).',
  }),
  type: documented(v.nullish(oneOf(PREVIEW_TYPES)), { default: PREVIEW_DEFAULTS.type, description: 'Image format.' }),
});

export const previewOptions = defineOptions({
  entries: {
    preview: documented(v.nullish(PreviewSchema), {
      description:
        'Stores an image of the finished PDF\'s first page (after every other pdf option; a protected PDF is opened with its password) beside the PDF, as a temporary file like it: its URL is previewUrl in the /sync answer, the job (GET /v1/jobs/{id}) and the webhook. /sync and /async only: a raw request or a batch item with it is a 400. With storage, the PDF alone goes to the pre-signed URL.',
    }),
  },
  refused: { part: { preview: { message: 'Applies to the merged file: set it in the top-level pdf' } } },
  plan: ({ preview }): PreviewPlan | undefined =>
    preview != null ? { width: preview.width ?? PREVIEW_DEFAULTS.width, type: preview.type ?? PREVIEW_DEFAULTS.type } : undefined,
});
