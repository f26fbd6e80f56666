/**
 * The `pages` step (issue 32): which pages the PDF keeps, in which order
 * (`pdf.pages`), and which of them turn (`pdf.rotate`). What needs the
 * document (a page past its end) is checked by the step, as a 400 naming
 * the same field.
 */
import * as v from 'valibot';
import { documented } from '../../../validation/field-builders.js';
import { closedObject } from '../../../validation/closed-object.js';
import { PageOrderSchema, PageRangesSchema } from '../../../validation/page-ranges.js';
import { defineStep } from '../../pipeline/step-definition.js';
import type { PagesPlan } from '../../pipeline/finishing-plan.js';

/** The angles `pdf.rotate` turns pages by, clockwise as a page's /Rotate counts. */
export const ROTATE_ANGLES = [90, 180, 270] as const;

const RotateSchema = closedObject({
  angle: documented(
    v.picklist(ROTATE_ANGLES, `Must be one of: ${ROTATE_ANGLES.join(', ')}`),
    { description: "Degrees clockwise, added to each page's own rotation." },
  ),
  pages: documented(v.nullish(PageRangesSchema), {
    description: 'Pages to turn, in pageRanges syntax; default all. Counts the pages pdf.pages kept, in their new order.',
  }),
});

export const pagesDefinition = defineStep({
  name: 'pages',
  options: {
    entries: {
      pages: documented(v.nullish(PageOrderSchema), {
        description:
          'Which pages the PDF keeps, in which order: pageRanges syntax read in order ("3, 1-2, 5-"), each page at most once; a page past the end is a 400. Applies to the printed (or merged) pages, before bands, watermark and signature count them.',
      }),
      rotate: documented(v.nullish(RotateSchema), { description: 'Turns pages, after pdf.pages.' }),
    },
    // The page choice and rotation, or nothing when the document keeps its pages as printed.
    plan: ({ pages, rotate }): PagesPlan | undefined => {
      const order = pages != null && pages.trim() !== '' ? pages : undefined;
      if (order === undefined && rotate == null) return undefined;
      return {
        ...(order !== undefined ? { order } : {}),
        ...(rotate != null ? { rotate: { angle: rotate.angle, pages: rotate.pages ?? '' } } : {}),
      };
    },
  },
  build: async (plan: PagesPlan) => (await import('./pages.js')).pagesStep(plan),
});
