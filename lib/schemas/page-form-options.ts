/**
 * The `pdf` fields that edit the document's pages (issue 32): `pages` and
 * `rotate`, on renders, a merge's own `pdf`
 * and templates alike. What needs the document (a page past the end, a field
 * name the form lacks) is checked by the finishing steps, as a 400 naming the
 * same fields.
 */
import * as v from 'valibot';
import { closedObject } from './closed-object.js';
import { PageOrderSchema, PageRangesSchema } from './page-ranges.js';

/** The angles `pdf.rotate` turns pages by, clockwise as a page's /Rotate counts. */
export const ROTATE_ANGLES = [90, 180, 270] as const;

function documented<const S extends v.GenericSchema>(schema: S, meta: { default?: unknown; description?: string }) {
  return v.pipe(schema, v.metadata(meta));
}

const RotateSchema = closedObject({
  angle: documented(
    v.picklist(ROTATE_ANGLES, `Must be one of: ${ROTATE_ANGLES.join(', ')}`),
    { description: "Degrees clockwise, added to each page's own rotation." },
  ),
  pages: documented(v.nullish(PageRangesSchema), {
    description: 'Pages to turn, in pageRanges syntax; default all. Counts the pages pdf.pages kept, in their new order.',
  }),
});

/** The entries `PdfOptionsSchema` and the merge's `pdf` spread. */
export const PAGE_FORM_ENTRIES = {
  pages: documented(v.nullish(PageOrderSchema), {
    description:
      'Which pages the PDF keeps, in which order: pageRanges syntax read in order ("3, 1-2, 5-"), each page at most once; a page past the end is a 400. Applies to the printed (or merged) pages, before bands, watermark and signature count them.',
  }),
  rotate: documented(v.nullish(RotateSchema), { description: 'Turns pages, after pdf.pages.' }),
};
