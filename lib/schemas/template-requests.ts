/** Bodies and query of the template management endpoints. */
import * as v from 'valibot';
import { maxCharacters } from '../validation/character-length.js';
import { closedObject } from '../validation/closed-object.js';
import { JS_WHITESPACE } from '../validation/js-whitespace.js';
import { TemplateVariablesSchema } from './render-requests.js';

const NameSchema = v.pipe(
  v.string('Must be a string'),
  v.trim(),
  v.minLength(1, 'Must not be empty'),
  maxCharacters(200, 'Must be at most 200 characters'),
  // In the document's words: at least one character that trim() keeps.
  v.metadata({ pattern: `[^${JS_WHITESPACE}]` }),
);
const OutputSchema = v.picklist(['PDF', 'IMAGE'], 'Must be one of: PDF, IMAGE');

/** POST /v1/templates */
export const TemplateCreateSchema = closedObject({
  name: NameSchema,
  output: v.nullish(OutputSchema),
  variables: v.nullish(TemplateVariablesSchema),
});

/** PUT /v1/templates/{id}: at least one of name, variables, output. */
export const TemplateUpdateSchema = v.pipe(
  closedObject({
    name: v.optional(NameSchema),
    output: v.optional(OutputSchema),
    variables: v.optional(TemplateVariablesSchema),
  }),
  v.check(
    (body) => body.name !== undefined || body.output !== undefined || body.variables !== undefined,
    'At least one of name, variables, output is required',
  ),
  // The check above in the OpenAPI document's words (the body is closed, so any key is one of the three).
  v.metadata({ minProperties: 1 }),
);

/** The largest page number: nine digits, far past any account's templates. */
export const MAX_LIST_PAGE = 999_999_999;
const PAGE_MESSAGE = `Must be a whole number from 1 to ${MAX_LIST_PAGE}`;

/** GET /v1/templates?page=N (N >= 1, default 1); other parameters are ignored. */
export const TemplateListQuerySchema = v.object({
  page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,9}$/, PAGE_MESSAGE),
      v.transform(Number),
      v.minValue(1, PAGE_MESSAGE),
    ),
    '1',
  ),
});

export type TemplateCreateOutput = v.InferOutput<typeof TemplateCreateSchema>;
export type TemplateUpdateOutput = v.InferOutput<typeof TemplateUpdateSchema>;
