/**
 * The `form` step (issue 32): fills the document's AcroForm fields
 * (`pdf.form`) and flattens them (`pdf.form.flatten`) or every field and
 * annotation (`pdf.flatten`). A field name the form lacks, or a value it
 * cannot take, is checked by the step, as a 400 naming `form.fields.<name>`.
 */
import * as v from 'valibot';
import { documented } from '../../../validation/field-builders.js';
import { maxCharacters } from '../../../validation/character-length.js';
import { closedObject } from '../../../validation/closed-object.js';
import { defineStep } from '../../pipeline/step-definition.js';
import type { FormPlan } from '../../pipeline/finishing-plan.js';

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

const FormSchema = closedObject({
  fields: documented(
    v.pipe(
      v.record(v.pipe(v.string(), v.minLength(1, 'Must not be empty'), maxCharacters(1000, 'Must be at most 1000 characters')), FieldValueSchema, 'Must be an object'),
      v.maxEntries(MAX_FORM_FIELDS, `Must have at most ${MAX_FORM_FIELDS} fields`),
    ),
    {
      description:
        "Values by the field's full name (parent.child): a string for a text field, a radio group or a single-choice list (one of its options); true or false for a check box; an array of options for a multiple-choice list. Drawn in the rendering layer's fonts, every script in current use (Arabic and Hebrew right to left, Indic scripts shaped; a value mixing scripts uses several fonts); a character none of them has (a private-use character, an emoji) is a 400 naming it as U+XXXX.",
    },
  ),
  flatten: documented(v.nullish(v.boolean('Must be a boolean')), {
    default: false,
    description: "Draws every field's appearance into the page and removes the form: the values stay as page text, no longer editable.",
  }),
});

export type FormFieldValue = v.InferOutput<typeof FieldValueSchema>;

export const formDefinition = defineStep({
  name: 'form',
  options: {
    entries: {
      form: documented(v.nullish(FormSchema), {
        description:
          "Fills the document's AcroForm fields (a merge part's, or the input's); a page's own HTML form is not an AcroForm. An unknown field or a value it cannot take is a 400 naming pdf.form.fields.<name>.",
      }),
      flatten: documented(v.nullish(v.boolean('Must be a boolean')), {
        default: false,
        description: 'Draws every form field and annotation into the page content and removes them; links stay.',
      }),
    },
    // The values to fill and what to flatten after, or nothing when the form is left alone.
    plan: ({ form, flatten }): FormPlan | undefined => {
      const flattening = flatten === true ? 'all' : form?.flatten === true ? 'fields' : 'none';
      if (form == null && flattening === 'none') return undefined;
      return { ...(form != null ? { fields: form.fields } : {}), flatten: flattening };
    },
  },
  build: async (plan: FormPlan) => (await import('./form.js')).formStep(plan),
});
