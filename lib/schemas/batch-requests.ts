import * as v from 'valibot';
import { isPlainObject } from '../is-plain-object.js';
import { closedObject } from './closed-object.js';
import {
  MetadataSchema,
  PageOverridesSchema,
  PdfOptionsSchema,
  ScreenshotOptionsSchema,
  ScreenshotOverridesSchema,
  WebhookOptionsSchema,
} from './render-options.js';
import { PageWithSourceSchema } from './render-requests.js';

/** Items of one batch given inline, at most. */
export const MAX_BATCH_ITEMS = 10_000;

/** A batch item's file name: unique in the batch, no path separators or control characters. */
const NameSchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(200, 'Must be at most 200 characters'),
  v.regex(/^[^/\\\u0000-\u001f]+$/u, 'Must not contain slashes, backslashes or control characters'),
);

const templateId = v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), v.maxLength(100, 'Must be at most 100 characters'));

/**
 * What an item or the batch's `defaults` may hold before the two are merged:
 * every field optional and checked on its own (as a template render's
 * overrides are), since an item may be only its data and the defaults only
 * the template. The merged item is then held to `BatchItemSchema`.
 */
const itemEntries = {
  templateId: v.nullish(templateId),
  page: v.nullish(PageOverridesSchema),
  pdf: v.nullish(PdfOptionsSchema),
  screenshot: v.nullish(ScreenshotOverridesSchema),
};

/** `defaults`: merged under every item (the item's own values win, object by object). */
export const BatchDefaultsSchema = closedObject(itemEntries);

/** One entry of `items` as given. */
export const BatchItemEntrySchema = closedObject({ ...itemEntries, name: v.nullish(NameSchema), metadata: v.nullish(MetadataSchema) });

/** `{ templateId, page?, pdf? | screenshot? }` once merged: a saved template's render with overrides, as /v1/template/{id} takes it. */
const TemplateItemSchema = closedObject({
  templateId,
  page: v.nullish(PageOverridesSchema),
  pdf: v.nullish(PdfOptionsSchema),
  screenshot: v.nullish(ScreenshotOverridesSchema),
  name: v.nullish(NameSchema),
  metadata: v.nullish(MetadataSchema),
});
/** `{ page, screenshot }` once merged: as /v1/screenshot takes it. */
const ScreenshotItemSchema = closedObject({
  page: PageWithSourceSchema,
  screenshot: v.nullish(ScreenshotOptionsSchema),
  name: v.nullish(NameSchema),
  metadata: v.nullish(MetadataSchema),
});
/** `{ page, pdf? }` once merged: as /v1/pdf takes it. */
const PdfItemSchema = closedObject({
  page: PageWithSourceSchema,
  pdf: v.nullish(PdfOptionsSchema),
  name: v.nullish(NameSchema),
  metadata: v.nullish(MetadataSchema),
});

/** An item merged over the defaults, told apart by the key it carries: `templateId`, else `screenshot`, else a PDF of a page. */
export const BatchItemSchema = v.lazy((input: unknown) => {
  if (isPlainObject(input) && input.templateId != null) return TemplateItemSchema;
  if (isPlainObject(input) && input.screenshot != null) return ScreenshotItemSchema;
  return PdfItemSchema;
});

/**
 * Items of a batch whose `output` asks for an archive or a merged PDF, at
 * most: both are made by the consumer that closes the batch, within its
 * invocation (120 s on Lambda), reading every item's file once each.
 */
export const MAX_OUTPUT_ITEMS = 1_000;

/** `output`: beside the files stored one by one, one archive of them all and/or one PDF of the PDF items in order. */
export const BatchOutputSchema = closedObject({
  zip: v.nullish(v.boolean('Must be true or false')),
  merge: v.nullish(v.boolean('Must be true or false')),
});

/** POST /v1/batches */
export const BatchRequestSchema = v.pipe(
  closedObject({
    items: v.pipe(
      v.array(BatchItemEntrySchema, 'Must be an array of items'),
      v.minLength(1, 'Give at least one item'),
      v.maxLength(MAX_BATCH_ITEMS, `Must be at most ${MAX_BATCH_ITEMS} items`),
    ),
    defaults: v.nullish(BatchDefaultsSchema),
    output: v.nullish(BatchOutputSchema),
    webhook: v.nullish(WebhookOptionsSchema),
  }),
  v.forward(
    v.partialCheck(
      [['items'], ['output', 'zip']],
      (body) => !(body.output?.zip && body.items.length > MAX_OUTPUT_ITEMS),
      `Takes at most ${MAX_OUTPUT_ITEMS} items (the archive is made when the batch closes); download the files from the manifest instead`,
    ),
    ['output', 'zip'],
  ),
  v.forward(
    v.partialCheck(
      [['items'], ['output', 'merge']],
      (body) => !(body.output?.merge && body.items.length > MAX_OUTPUT_ITEMS),
      `Takes at most ${MAX_OUTPUT_ITEMS} items (the merged PDF is made when the batch closes)`,
    ),
    ['output', 'merge'],
  ),
  v.metadata({ required: ['items'] }),
);

export type BatchOutputOptions = v.InferOutput<typeof BatchOutputSchema>;
export type BatchItemEntryOutput = v.InferOutput<typeof BatchItemEntrySchema>;
export type BatchItemOutput = v.InferOutput<typeof BatchItemSchema>;
export type BatchRequestInput = v.InferInput<typeof BatchRequestSchema>;
export type BatchRequestOutput = v.InferOutput<typeof BatchRequestSchema>;
