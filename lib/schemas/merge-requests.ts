/**
 * Request bodies of `POST /v1/pdf/merge` (raw, `/sync`, `/async`): up to 20
 * parts, each a page rendered like `/v1/pdf`, a saved template with
 * overrides, or an existing PDF; the top-level `pdf` holds what applies to
 * the merged file (outline, running header and footer, metadata, PDF/A,
 * PDF/UA, attachments, e-invoice, watermark, protection).
 */
import * as v from 'valibot';
import { MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_INFLATED_BYTES, MAX_DOCUMENT_XREF_ENTRIES, MAX_DOCUMENT_NESTING, MAX_DOCUMENT_REFERENCE_DEPTH, MAX_DOCUMENT_PAGES, MAX_DOCUMENTS_PAGES, MAX_PAGE_EDGE_POINTS } from '../finishing/input/document-bounds.js';
import { isPlainObject } from '../validation/is-plain-object.js';
import { closedObject } from '../validation/closed-object.js';
import { FINISHING_ENTRIES, finishingRules, OPTION_GROUPS, refusalsOf } from '../finishing/pipeline/finishing-options.js';
import { isGiven } from '../validation/field-rules.js';
import { BAND_ENTRIES, PageOverridesSchema, PdfOptionsSchema, StorageOptionsSchema, WebhookOptionsSchema, type PageOptionsOutput, type PdfOptionsOutput } from './render-options.js';
import type { ProcessInput } from './process-requests.js';
import { PageWithSourceSchema, type RenderInput } from './render-requests.js';

/** Most parts in one merge. */
export const MAX_MERGE_PARTS = 20;
/** Largest existing PDF in a part, decoded. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
/** Most bytes of existing PDFs in one merge, decoded (the request body limit usually binds first). */
export const MAX_DOCUMENTS_BYTES = 20 * 1024 * 1024;

export { MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_INFLATED_BYTES, MAX_DOCUMENT_XREF_ENTRIES, MAX_DOCUMENT_NESTING, MAX_DOCUMENT_REFERENCE_DEPTH, MAX_DOCUMENT_PAGES, MAX_DOCUMENTS_PAGES, MAX_PAGE_EDGE_POINTS };

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Decoded size of a base64 string without decoding it. */
const decodedBytes = (encoded: string) => {
  const compact = encoded.replace(/\s+/g, '');
  return Math.floor((compact.length * 3) / 4) - (compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0);
};

const TitleSchema = v.nullish(v.pipe(v.string('Must be a string'), v.maxLength(500, 'Must be at most 500 characters')));

const DocumentSchema = v.pipe(
  v.string('Must be a string'),
  v.regex(BASE64, 'Must be a base64 PDF'),
  v.check((document) => decodedBytes(document) <= MAX_DOCUMENT_BYTES, 'Must be at most 5 MB decoded'),
  // Whether it parses, and is not encrypted, is checked before anything renders (see merge-input.ts).
  v.check((document) => Buffer.from(document.slice(0, 16), 'base64').subarray(0, 5).toString('latin1') === '%PDF-', 'Must be a PDF (it starts with %PDF-)'),
  v.metadata({
    description:
      `An existing PDF, base64, at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB decoded; not encrypted. Before it is merged it is held to: at most ${MAX_DOCUMENT_OBJECTS} objects, ` +
      `object and cross-reference streams FlateDecode alone and inflating to at most ${MAX_DOCUMENT_INFLATED_BYTES / 1024 / 1024} MB together, little but objects between its objects, ` +
      `at most ${MAX_DOCUMENT_XREF_ENTRIES} cross-reference entries, arrays, dictionaries and the page tree nested at most ${MAX_DOCUMENT_NESTING} deep, ` +
      `pages reaching their objects through at most ${MAX_DOCUMENT_REFERENCE_DEPTH} levels of references, a page tree without loops, at most ${MAX_DOCUMENT_PAGES} pages (${MAX_DOCUMENTS_PAGES} for all documents of a merge), pages at most ${MAX_PAGE_EDGE_POINTS} points (200 in) a side.`,
  }),
);

/**
 * What the finishing does once, to the merged file (archive, attach,
 * compress, protect, sign, and its preview): the options each step's
 * definition refuses in a part, read from the registry.
 */
export const MERGED_FILE_ONLY: readonly string[] = refusalsOf(OPTION_GROUPS, 'part').map((refusal) => refusal.key);

/** The options of a part's `pdf` that apply to the merged file only (given). */
export function mergedFileOnlyKeys(pdf: Readonly<Record<string, unknown>> | null | undefined): string[] {
  return MERGED_FILE_ONLY.filter((key) => isGiven(pdf?.[key]));
}

/** A part's own `pdf`: how it prints, and its own stamp. What applies to the merged file is refused here. */
const PartPdfSchema = v.pipe(PdfOptionsSchema, finishingRules('part'));

/** `{ page, pdf?, title? }`: rendered like /v1/pdf, in its own isolated context. */
export const PagePartSchema = closedObject({
  page: PageWithSourceSchema,
  pdf: v.nullish(PartPdfSchema),
  title: TitleSchema,
});
/** `{ templateId, page?, pdf?, title? }`: a saved PDF template with overrides. */
export const TemplatePartSchema = closedObject({
  templateId: v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), v.maxLength(100, 'Must be at most 100 characters')),
  page: v.nullish(PageOverridesSchema),
  pdf: v.nullish(PartPdfSchema),
  title: TitleSchema,
});
/** `{ document, title? }`: an existing PDF, base64, at most 5 MB. */
export const DocumentPartSchema = closedObject({
  document: DocumentSchema,
  title: TitleSchema,
});

/** A part, told apart by the key it carries: `document`, else `templateId`, else a page. */
export const MergePartSchema = v.lazy((input: unknown) => {
  if (isPlainObject(input) && 'document' in input) return DocumentPartSchema;
  if (isPlainObject(input) && 'templateId' in input) return TemplatePartSchema;
  return PagePartSchema;
});

const PartsSchema = v.pipe(
  v.array(MergePartSchema, 'Must be an array of parts'),
  v.minLength(1, 'Give at least one part'),
  v.maxLength(MAX_MERGE_PARTS, `Must be at most ${MAX_MERGE_PARTS} parts`),
  v.check(
    (parts) => parts.reduce((sum, part) => sum + ('document' in part ? decodedBytes(part.document) : 0), 0) <= MAX_DOCUMENTS_BYTES,
    'Existing PDFs may take 20 MB at most, all parts together',
  ),
);

/** The merge's own `pdf`: the outline, the running header and footer and the finishing options, applied to the merged file. */
export const MergePdfOptionsSchema = v.pipe(
  closedObject({
    outline: v.pipe(
      v.nullish(v.boolean('Must be a boolean')),
      v.metadata({ default: false, description: "One outline entry per part is always written; with true, each part's own outline is nested below it." }),
    ),
    // Laid over the merged pages: numbered across the parts, the section read from every printed part's headings.
    ...BAND_ENTRIES,
    ...FINISHING_ENTRIES,
  }),
  finishingRules('render'),
);

const parts = PartsSchema;
const pdf = v.nullish(MergePdfOptionsSchema);

/** POST /v1/pdf/merge */
export const MergeRequestSchema = closedObject({ parts, pdf });
/** POST /v1/pdf/merge/sync */
export const MergeSyncRequestSchema = closedObject({ parts, pdf, storage: v.nullish(StorageOptionsSchema) });
/** POST /v1/pdf/merge/async */
export const MergeAsyncRequestSchema = closedObject({ parts, pdf, storage: v.nullish(StorageOptionsSchema), webhook: WebhookOptionsSchema });

/** The merge body schema of each delivery. */
export const MERGE_REQUEST_SCHEMAS = { raw: MergeRequestSchema, sync: MergeSyncRequestSchema, async: MergeAsyncRequestSchema } as const;

export type MergePartOutput = v.InferOutput<typeof PagePartSchema> | v.InferOutput<typeof TemplatePartSchema> | v.InferOutput<typeof DocumentPartSchema>;
export type MergePdfOptionsOutput = v.InferOutput<typeof MergePdfOptionsSchema>;
export type MergeRequestOutput = v.InferOutput<typeof MergeRequestSchema>;

/** One part of a merge once templates are resolved: a page to print, or an existing PDF (base64). */
export type MergePartInput =
  | { page: PageOptionsOutput; pdf?: PdfOptionsOutput | null; title?: string | null }
  | { document: string; title?: string | null };

/** A merge (`POST /v1/pdf/merge`) checked and its templates resolved: what a job stores and the plan is built from. */
export type MergeInput = { output: 'PDF'; parts: MergePartInput[]; pdf?: MergePdfOptionsOutput | null };

/** What a delivery or a job produces: one render, a merge of several, or an existing PDF processed. */
export type DocumentInput = RenderInput | MergeInput | ProcessInput;
