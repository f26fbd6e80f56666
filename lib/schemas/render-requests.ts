/**
 * Request body schemas, one per rendering endpoint, and the page source rule
 * of decisions.md. Each body is closed, so an object the endpoint does not
 * take (`screenshot` on /v1/pdf, `webhook` on a sync endpoint) is an
 * "Unknown field".
 */
import * as v from 'valibot';
import { closedObject } from '../validation/closed-object.js';
import { parseInput } from '../validation/parse.js';
import {
  PageOptionsSchema,
  type PageOptionsOutput,
  type PdfOptionsOutput,
  type ScreenshotOptionsOutput,
  PageOverridesSchema,
  PdfOptionsSchema,
  ScreenshotOptionsSchema,
  ScreenshotOverridesSchema,
  StorageOptionsSchema,
  WebhookOptionsSchema,
} from './render-options.js';

type SourceField = 'url' | 'html' | 'htmlTemplate';
/** What the page rules read: which fields are present, valid or not. */
type PagePresence = Pick<PageOptionsOutput, SourceField | 'templateData' | 'templateDataUrl'>;

const SOURCE_FIELDS: readonly SourceField[] = ['url', 'html', 'htmlTemplate'];
const NO_SOURCE = 'Exactly one of page.url, page.html or page.htmlTemplate is required';
const MANY_SOURCES = 'Only one of page.url, page.html or page.htmlTemplate may be given';

function countSources(page: PagePresence): number {
  return SOURCE_FIELDS.filter((field) => page[field] != null).length;
}

/**
 * A rule over the page reported on one field. The partial check names only
 * that field, so it still runs when other fields have issues (an unknown
 * key, or the same rule already reported on a sibling); valibot hands the
 * requirement the whole page object, of which the rules read only which
 * fields are present.
 */
function pageRule(
  field: SourceField | 'templateData' | 'templateDataUrl',
  requirement: (page: PagePresence) => boolean,
  message: (page: PagePresence) => string,
) {
  return v.forward<PageOptionsOutput, v.PartialCheckIssue<PagePresence>, [typeof field]>(
    v.partialCheck(
      [[field]],
      (page: PagePresence) => requirement(page),
      (issue) => message(issue.input),
    ),
    [field],
  );
}

/**
 * The issue of one source field: every given source when there are several,
 * all three when there is none and one is required.
 */
function sourceRule(field: SourceField, required: boolean) {
  return pageRule(
    field,
    (page) => {
      const sources = countSources(page);
      if (sources > 1) return page[field] == null;
      return sources === 1 || !required;
    },
    (page) => (countSources(page) > 1 ? MANY_SOURCES : NO_SOURCE),
  );
}

const templateDataRule = pageRule(
  'templateData',
  (page) => page.templateData == null || page.htmlTemplate != null,
  () => 'Only used together with page.htmlTemplate',
);

/** `templateDataUrl`: only with htmlTemplate, and not beside templateData (the data comes one way). */
const templateDataUrlRule = pageRule(
  'templateDataUrl',
  (page) => page.templateDataUrl == null || (page.htmlTemplate != null && page.templateData == null),
  (page) => (page.templateData != null ? 'Give page.templateData or page.templateDataUrl, not both' : 'Only used together with page.htmlTemplate'),
);

/**
 * `page` of a direct render, or of a template render after the merge:
 * exactly one of url, html, htmlTemplate, and templateData or
 * templateDataUrl (not both) only with htmlTemplate.
 */
export const PageWithSourceSchema = v.pipe(
  PageOptionsSchema,
  sourceRule('url', true),
  sourceRule('html', true),
  sourceRule('htmlTemplate', true),
  templateDataRule,
  templateDataUrlRule,
  // The same rules in the OpenAPI document's words, so a generated body that fits the document fits them too.
  v.metadata({
    oneOf: SOURCE_FIELDS.map((field) => ({ required: [field], properties: { [field]: { type: 'string' } } })),
    if: { required: ['templateData'], properties: { templateData: { not: { type: 'null' } } } },
    then: { required: ['htmlTemplate'], properties: { htmlTemplate: { type: 'string' } } },
  }),
);

/**
 * `page` stored in a template: at most one source, since the request may
 * supply it; templateData alone is allowed as the request may bring the
 * htmlTemplate.
 */
export const TemplatePageSchema = v.pipe(
  PageOptionsSchema,
  sourceRule('url', false),
  sourceRule('html', false),
  sourceRule('htmlTemplate', false),
);

// A missing page is checked as an empty one, so the error names the three
// source fields rather than just "page"; the document says plainly that a
// direct render needs a page (directRender below).
// (The `{}` stand-in is no default a caller could rely on: it is left out.)
const page = v.pipe(v.nullish(PageWithSourceSchema, {}), v.metadata({ not: { type: 'null' }, default: undefined }));
const pdf = v.nullish(PdfOptionsSchema);
const screenshot = v.nullish(ScreenshotOptionsSchema);
const storage = v.nullish(StorageOptionsSchema);
const webhook = WebhookOptionsSchema;

/** A direct render's body; `page` is required in the document (the service names the source fields when it is missing). */
function directRender<const E extends v.ObjectEntries>(entries: E) {
  return v.pipe(closedObject(entries), v.metadata({ required: ['page', ...(entries.webhook ? ['webhook'] : [])] }));
}

/** POST /v1/pdf */
export const PdfRequestSchema = directRender({ page, pdf });
/** POST /v1/pdf/sync */
export const PdfSyncRequestSchema = directRender({ page, pdf, storage });
/** POST /v1/pdf/async */
export const PdfAsyncRequestSchema = directRender({ page, pdf, storage, webhook });
/** POST /v1/screenshot */
export const ScreenshotRequestSchema = directRender({ page, screenshot });
/** POST /v1/screenshot/sync */
export const ScreenshotSyncRequestSchema = directRender({ page, screenshot, storage });
/** POST /v1/screenshot/async */
export const ScreenshotAsyncRequestSchema = directRender({ page, screenshot, storage, webhook });

// Template renders send overrides: every field optional, checked alone; the
// rules between fields run on the merged options (MergedRenderOptionsSchema).
const pageOverrides = v.nullish(PageOverridesSchema);
const screenshotOverrides = v.nullish(ScreenshotOverridesSchema);

/** POST /v1/template/{id} */
export const TemplateRenderRequestSchema = closedObject({
  page: pageOverrides,
  screenshot: screenshotOverrides,
  pdf,
});
/** POST /v1/template/{id}/sync */
export const TemplateRenderSyncRequestSchema = closedObject({
  page: pageOverrides,
  screenshot: screenshotOverrides,
  pdf,
  storage,
});
/** POST /v1/template/{id}/async */
export const TemplateRenderAsyncRequestSchema = closedObject({
  page: pageOverrides,
  screenshot: screenshotOverrides,
  pdf,
  storage,
  webhook,
});

/**
 * A template's `variables`: each object valid on its own, except that the
 * page source may be left to the request (at most one is stored).
 */
export const TemplateVariablesSchema = closedObject({
  page: v.nullish(TemplatePageSchema),
  screenshot,
  pdf,
});

/**
 * The options of a template render after the request is merged over the
 * stored variables: everything a direct render requires.
 */
export const MergedRenderOptionsSchema = closedObject({ page, screenshot, pdf });

/** Checks merged template options; throws ValidationError keyed like the request (`page.url`). */
export function parseMergedOptions(merged: unknown): MergedRenderOptionsOutput {
  return parseInput(MergedRenderOptionsSchema, merged);
}

const PageOnlySchema = closedObject({ page });

/**
 * A validated render request: the page and the options of its output, as a
 * direct render's body or a template's merged options hold them. What an
 * async job stores; lib/plan turns it into the render plan.
 */
export type RenderInput =
  | { output: 'PDF'; page: PageOptionsOutput; pdf?: PdfOptionsOutput | null }
  | { output: 'IMAGE'; page: PageOptionsOutput; screenshot?: ScreenshotOptionsOutput | null };

/** What is rendered: a page to a PDF, a page to an image, or a saved template (its output). */
export type RenderSource = 'pdf' | 'screenshot' | 'template';
/** How the file reaches the caller: in the answer, as a URL in the answer, or by webhook once queued. */
export type RenderDelivery = 'raw' | 'sync' | 'async';

/**
 * The body schema of each of the nine render endpoints (source × delivery):
 * the one table that the endpoints validate with and the OpenAPI document
 * describes, so the two cannot disagree.
 */
export const RENDER_REQUEST_SCHEMAS = {
  pdf: { raw: PdfRequestSchema, sync: PdfSyncRequestSchema, async: PdfAsyncRequestSchema },
  screenshot: { raw: ScreenshotRequestSchema, sync: ScreenshotSyncRequestSchema, async: ScreenshotAsyncRequestSchema },
  template: { raw: TemplateRenderRequestSchema, sync: TemplateRenderSyncRequestSchema, async: TemplateRenderAsyncRequestSchema },
} as const satisfies Record<RenderSource, Record<RenderDelivery, v.GenericSchema>>;

/** Applies the page source rule to a page on its own; throws ValidationError keyed `page.*`. */
export function assertPageSource(pageOptions: unknown): PageWithSourceOutput {
  return parseInput(PageOnlySchema, { page: pageOptions }).page;
}

export type PageWithSourceInput = v.InferInput<typeof PageWithSourceSchema>;
export type PageWithSourceOutput = v.InferOutput<typeof PageWithSourceSchema>;
export type PdfRequestInput = v.InferInput<typeof PdfRequestSchema>;
export type PdfRequestOutput = v.InferOutput<typeof PdfRequestSchema>;
export type PdfSyncRequestInput = v.InferInput<typeof PdfSyncRequestSchema>;
export type PdfSyncRequestOutput = v.InferOutput<typeof PdfSyncRequestSchema>;
export type PdfAsyncRequestInput = v.InferInput<typeof PdfAsyncRequestSchema>;
export type PdfAsyncRequestOutput = v.InferOutput<typeof PdfAsyncRequestSchema>;
export type ScreenshotRequestInput = v.InferInput<typeof ScreenshotRequestSchema>;
export type ScreenshotRequestOutput = v.InferOutput<typeof ScreenshotRequestSchema>;
export type ScreenshotSyncRequestInput = v.InferInput<typeof ScreenshotSyncRequestSchema>;
export type ScreenshotSyncRequestOutput = v.InferOutput<typeof ScreenshotSyncRequestSchema>;
export type ScreenshotAsyncRequestInput = v.InferInput<typeof ScreenshotAsyncRequestSchema>;
export type ScreenshotAsyncRequestOutput = v.InferOutput<typeof ScreenshotAsyncRequestSchema>;
export type TemplateRenderRequestInput = v.InferInput<typeof TemplateRenderRequestSchema>;
export type TemplateRenderRequestOutput = v.InferOutput<typeof TemplateRenderRequestSchema>;
export type TemplateRenderSyncRequestInput = v.InferInput<typeof TemplateRenderSyncRequestSchema>;
export type TemplateRenderSyncRequestOutput = v.InferOutput<typeof TemplateRenderSyncRequestSchema>;
export type TemplateRenderAsyncRequestInput = v.InferInput<typeof TemplateRenderAsyncRequestSchema>;
export type TemplateRenderAsyncRequestOutput = v.InferOutput<typeof TemplateRenderAsyncRequestSchema>;
export type TemplateVariablesInput = v.InferInput<typeof TemplateVariablesSchema>;
export type TemplateVariablesOutput = v.InferOutput<typeof TemplateVariablesSchema>;
export type MergedRenderOptionsInput = v.InferInput<typeof MergedRenderOptionsSchema>;
export type MergedRenderOptionsOutput = v.InferOutput<typeof MergedRenderOptionsSchema>;
