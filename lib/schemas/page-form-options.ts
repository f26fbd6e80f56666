/**
 * The `pdf` fields that edit the document's pages and form (issue 32):
 * `pages`, `rotate`, `form` and `flatten`, on renders, a merge's own `pdf`
 * and templates alike. What needs the document (a page past the end, a field
 * name the form lacks) is checked by the finishing steps, as a 400 naming the
 * same fields.
 */
import * as v from 'valibot';
import { documented } from '../validation/field-builders.js';
import { maxCharacters } from '../validation/character-length.js';
import { closedObject } from '../validation/closed-object.js';
import { PageOrderSchema, PageRangesSchema } from '../validation/page-ranges.js';

/** The angles `pdf.rotate` turns pages by, clockwise as a page's /Rotate counts. */
export const ROTATE_ANGLES = [90, 180, 270] as const;

/** Most fields one request fills. */
export const MAX_FORM_FIELDS = 500;
/** Longest value of one field, in characters. */
export const MAX_FORM_VALUE_CHARACTERS = 10_000;
/** Most options a multiple-choice value selects. */
export const MAX_FORM_CHOICES = 100;

const ValueTextSchema = v.pipe(v.string('Must be a string'), maxCharacters(MAX_FORM_VALUE_CHARACTERS, `Must be at most ${MAX_FORM_VALUE_CHARACTERS} characters`));

const FieldValueSchema = v.union(
  [
    ValueTextSchema,
    v.boolean(),
    v.pipe(v.array(ValueTextSchema, 'Must be an array of strings'), v.maxLength(MAX_FORM_CHOICES, `Must have at most ${MAX_FORM_CHOICES} options`)),
  ],
  'Must be a string, a boolean or an array of strings',
);

const RotateSchema = closedObject({
  angle: documented(
    v.picklist(ROTATE_ANGLES, `Must be one of: ${ROTATE_ANGLES.join(', ')}`),
    { description: "Degrees clockwise, added to each page's own rotation." },
  ),
  pages: documented(v.nullish(PageRangesSchema), {
    description: 'Pages to turn, in pageRanges syntax; default all. Counts the pages pdf.pages kept, in their new order.',
  }),
});

const FormSchema = closedObject({
  fields: documented(
    v.pipe(
      v.record(v.pipe(v.string(), v.minLength(1, 'Must not be empty'), maxCharacters(1000, 'Must be at most 1000 characters')), FieldValueSchema, 'Must be an object'),
      v.maxEntries(MAX_FORM_FIELDS, `Must have at most ${MAX_FORM_FIELDS} fields`),
    ),
    {
      description:
        "Values by the field's full name (parent.child): a string for a text field, a radio group or a single-choice list (one of its options); true or false for a check box; an array of options for a multiple-choice list. Drawn in a font that has the value's glyphs (Latin, Greek, Cyrillic, Chinese, Japanese, Korean).",
    },
  ),
  flatten: documented(v.nullish(v.boolean('Must be a boolean')), {
    default: false,
    description: "Draws every field's appearance into the page and removes the form: the values stay as page text, no longer editable.",
  }),
});

/** The entries `PdfOptionsSchema` and the merge's `pdf` spread. */
export const PAGE_FORM_ENTRIES = {
  pages: documented(v.nullish(PageOrderSchema), {
    description:
      'Which pages the PDF keeps, in which order: pageRanges syntax read in order ("3, 1-2, 5-"), each page at most once; a page past the end is a 400. Applies to the printed (or merged) pages, before bands, watermark and signature count them.',
  }),
  rotate: documented(v.nullish(RotateSchema), { description: 'Turns pages, after pdf.pages.' }),
  form: documented(v.nullish(FormSchema), {
    description:
      "Fills the document's AcroForm fields (a merge part's, or the input's); a page's own HTML form is not an AcroForm. An unknown field or a value it cannot take is a 400 naming pdf.form.fields.<name>.",
  }),
  flatten: documented(v.nullish(v.boolean('Must be a boolean')), {
    default: false,
    description: 'Draws every form field and annotation into the page content and removes them; links stay.',
  }),
};

export type FormFieldValue = v.InferOutput<typeof FieldValueSchema>;
