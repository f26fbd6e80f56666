import * as v from 'valibot';
import { ValidationError } from '../errors.js';
import { isPlainObject } from '../validation/is-plain-object.js';
import { closedObject } from '../validation/closed-object.js';
import {
  MetadataSchema,
  PageOverridesSchema,
  PdfOptionsSchema,
  ScreenshotOptionsSchema,
  ScreenshotOverridesSchema,
  StorageOptionsSchema,
  WebhookOptionsSchema,
} from './render-options.js';
import { PageWithSourceSchema } from './render-requests.js';
import { UPLOAD_PREFIX } from '../files/caller-uploads.js';
import { uploadOrHttpUrl } from './upload-url.js';

/** Items of one batch given inline, at most. */
export const MAX_BATCH_ITEMS = 10_000;

/**
 * What a batch item's name may not hold: it names the item's file in the
 * archive, which is unpacked by extractors on every system. Slashes,
 * backslashes and colons would make it a path, a drive (`C:`) or an NTFS
 * stream; control characters (C0, DEL, C1), line and paragraph separators
 * and the bidirectional-text controls (`invoice<U+202E>fdp.exe` reads as
 * `invoiceexe.pdf`) would make it read as another name.
 */
const NAME_UNSAFE = '/\\\\:\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';

/**
 * A batch item's file name: unique in the batch, none of NAME_UNSAFE, and not
 * only dots (`.`, `..`). One regular expression, so the OpenAPI document
 * states the same rule; it reads each character once (leading dots, one other
 * character, the rest), however long the string. Names Windows reserves for
 * devices (`CON`, `NUL.pdf`) and trailing dots or spaces are taken: the
 * archive's writer renames those (lib/files/zip-stream.ts).
 */
const NameSchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(200, 'Must be at most 200 characters'),
  v.regex(
    new RegExp(`^\\.*[^.${NAME_UNSAFE}][^${NAME_UNSAFE}]*$`, 'u'),
    'Must not contain slashes, backslashes, colons, control characters or bidirectional-text controls, nor be only dots',
  ),
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
 * most: both are made by a step of their own (batch-outputs-build: 15
 * minutes, 3 GB) once the items have ended. The archive has no ZIP64
 * (65,535 entries, 4 GiB at most: 10,000 files of up to 400 KB each); the
 * merged PDF is built in memory, about 0.05 MB per one-page item (160 MB
 * at 30 items, 207 MB at 1,000: docs/batches.md), some 0.7 GB at 10,000.
 */
export const MAX_OUTPUT_ITEMS = 10_000;

/** `output`: beside the files stored one by one, one archive of them all and/or one PDF of the PDF items in order. */
export const BatchOutputSchema = closedObject({
  zip: v.nullish(v.boolean('Must be true or false')),
  merge: v.nullish(v.boolean('Must be true or false')),
});

/**
 * Longest line of a JSON Lines file, in bytes: what one inline request may
 * carry (the 5 MiB body limit), so any item a POST could give inline fits on
 * one line, and a file that is one endless line is refused once it passes
 * this instead of being held whole.
 */
export const MAX_ITEM_LINE_BYTES = 5 * 1024 * 1024;

/** Items a JSON Lines file (`itemsUrl`) may list, at most. */
export const MAX_ITEM_LINES = 100_000;

/** Largest JSON Lines file read from `itemsUrl` (100,000 lines of about 600 bytes each). */
export const MAX_ITEMS_FILE_BYTES = 64 * 1024 * 1024;

/** Where the service's bucket takes a caller's JSON Lines files: `uploads/<accountId>/…`, read by that account only. */
export const ITEMS_UPLOAD_PREFIX = UPLOAD_PREFIX;


/**
 * `itemsUrl`: a JSON Lines file of items, fetched as documentUrl is (the
 * egress policy, no redirects, a size and a time bound) or read from the
 * service's bucket under the caller's own upload prefix.
 */
const ItemsUrlSchema = uploadOrHttpUrl(
  'items URL',
  `A JSON Lines file of items (one item per line, as items takes them; at most ${MAX_ITEM_LINES} lines and ${MAX_ITEMS_FILE_BYTES / 1024 / 1024} MB, each line at most ${MAX_ITEM_LINE_BYTES / 1024 / 1024} MB), instead of items: ` +
    'an http(s) URL fetched with a GET through the same network rules as page.url (no redirects, private, loopback and metadata addresses refused, 10 s), ' +
    `or s3://<the service's files bucket>/${ITEMS_UPLOAD_PREFIX}<your account id>/<key>: keys under another prefix, another account's or another bucket are refused. ` +
    'Every line is checked before anything is queued (a 400 names items.<line index>.<field>).',
);

const BatchBodySchema = closedObject({
    items: v.nullish(
      v.pipe(
        v.array(BatchItemEntrySchema, 'Must be an array of items'),
        v.minLength(1, 'Give at least one item'),
        v.maxLength(MAX_BATCH_ITEMS, `Must be at most ${MAX_BATCH_ITEMS} items (a larger run comes as itemsUrl)`),
      ),
    ),
    itemsUrl: v.nullish(ItemsUrlSchema),
    defaults: v.nullish(BatchDefaultsSchema),
    output: v.nullish(BatchOutputSchema),
    storage: v.pipe(v.nullish(StorageOptionsSchema), v.metadata({
      description:
        "The batch's one file, PUT to your pre-signed URL once it has ended, as a sync render's file is: the archive with output.zip, else the merged PDF with output.merge, else the manifest. signedUrlStatus in the batch and its webhook says how it went.",
    })),
    webhook: v.nullish(WebhookOptionsSchema),
});

/** POST /v1/batches */
export const BatchRequestSchema = v.pipe(
  BatchBodySchema,
  exactlyOneSource<v.InferOutput<typeof BatchBodySchema>>(),
);

type BatchFields = { items?: unknown[] | null; itemsUrl?: string | null };

/**
 * `output` takes at most MAX_OUTPUT_ITEMS items: checked once the items are
 * known (inline items never pass it; an `itemsUrl` may list 100,000), a 400
 * naming `output.zip` and/or `output.merge`.
 */
export function checkOutputCap(output: BatchOutputOptions | null | undefined, count: number): void {
  const reasons = {
    zip: 'one archive without ZIP64, made once the items have ended; download the files from the manifest instead',
    merge: 'the merged PDF is built in memory once the items have ended',
  };
  const fields: Record<string, string> = {};
  for (const key of ['zip', 'merge'] as const) {
    if (output?.[key] && count > MAX_OUTPUT_ITEMS) fields[`output.${key}`] = `Takes at most ${MAX_OUTPUT_ITEMS} items (${reasons[key]}); this batch has ${count}`;
  }
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);
}

/** Exactly one of `items` and `itemsUrl`: both named when neither or both are given. */
function exactlyOneSource<T extends BatchFields>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    if ((input.items == null) === (input.itemsUrl == null)) {
      for (const key of ['items', 'itemsUrl'] as const) {
        addIssue({ message: 'Give exactly one of items and itemsUrl', path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
      }
    }
  });
}

export type BatchOutputOptions = v.InferOutput<typeof BatchOutputSchema>;
export type BatchItemEntryOutput = v.InferOutput<typeof BatchItemEntrySchema>;
export type BatchItemOutput = v.InferOutput<typeof BatchItemSchema>;
export type BatchRequestInput = v.InferInput<typeof BatchRequestSchema>;
export type BatchRequestOutput = v.InferOutput<typeof BatchRequestSchema>;
