/**
 * Request bodies of `POST /v1/pdf/process` (raw, `/sync`, `/async`): a PDF
 * the caller already has (`document`, base64, or `documentUrl`), opened with
 * `password` when it is encrypted, put through the finishing options that
 * apply to an existing PDF (`pdf`), answered as a PDF or as its facts (`output: "JSON"`).
 */
import * as v from 'valibot';
import { MAX_PAGE_IMAGE_PIXELS, MAX_PAGE_IMAGES } from '../finishing/images/image-bounds.js';
import { MAX_IMAGE_PIXELS } from '../input/image-limits.js';
import { closedObject } from '../validation/closed-object.js';
import { fieldRules, type FieldConflict } from '../validation/field-rules.js';
import { PageRangesSchema } from '../validation/page-ranges.js';
import { publicHttpUrl } from '../validation/http-url.js';
import { MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_PAGES } from './merge-requests.js';
import { FINISHING_ENTRIES, finishingRules, OPTION_GROUPS, refusalsOf } from '../finishing/pipeline/finishing-options.js';
import { PRINT_ENTRIES, StorageOptionsSchema, WebhookOptionsSchema } from './render-options.js';

/** Largest PDF fetched from `documentUrl`. */
export const MAX_PROCESS_URL_BYTES = 50 * 1024 * 1024;
/** Longest password of an encrypted input (PDF 2.0 passwords are at most 127 bytes of UTF-8). */
export const MAX_PASSWORD_LENGTH = 127;

/**
 * The `pdf` options of a render that make no sense on a PDF that exists:
 * the print's (render-options.ts `PRINT_ENTRIES`). Named with a 400 of their
 * own, so a template's options are not dropped silently.
 */
export const PRINT_ONLY_PDF_OPTIONS: readonly string[] = Object.keys(PRINT_ENTRIES);

/** Finishing options refused on an existing PDF, with the reason: what the steps' definitions refuse there. */
export const NOT_FOR_EXISTING_PDF: Readonly<Record<string, string>> = Object.fromEntries(
  refusalsOf(OPTION_GROUPS, 'existing').map((refusal) => [refusal.field === undefined ? refusal.key : `${refusal.key}.${refusal.field}`, refusal.message]),
);

const PRINT_ONLY_MESSAGE = 'Applies to printing a page, not to an existing PDF';

/** The finishing options, as a render's `pdf` has them (every step's, from the registry). */
const ProcessPdfObjectSchema = closedObject(FINISHING_ENTRIES);

/**
 * `pdf` of a process request: the finishing options, the rules between them
 * as on a render, and what the steps refuse on an existing PDF; a print
 * option is a 400 naming it.
 */
export const ProcessPdfOptionsSchema = v.pipe(
  v.unknown(),
  v.rawCheck(({ dataset, addIssue }) => {
    const input = dataset.value;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return;
    const given = input as Record<string, unknown>;
    for (const key of PRINT_ONLY_PDF_OPTIONS) {
      if (Object.hasOwn(given, key)) addIssue({ message: PRINT_ONLY_MESSAGE, path: [{ type: 'object', origin: 'value', input: given, key, value: given[key] }] });
    }
  }),
  v.pipe(ProcessPdfObjectSchema, finishingRules('existing')),
);

/** What a process request answers: the finished PDF, the document's facts, or images of its pages. */
export const PROCESS_OUTPUTS = ['PDF', 'JSON', 'PNG', 'JPEG', 'WEBP'] as const;
export type ProcessOutput = (typeof PROCESS_OUTPUTS)[number];
/** The outputs that are images of the finished pages. */
export const PAGE_IMAGE_OUTPUTS = ['PNG', 'JPEG', 'WEBP'] as const;
export type PageImageOutput = (typeof PAGE_IMAGE_OUTPUTS)[number];
export const isPageImageOutput = (output: string | null | undefined): output is PageImageOutput => (PAGE_IMAGE_OUTPUTS as readonly string[]).includes(output ?? '');

/** Resolution of a page image when neither dpi nor width is given: a screen's. */
export const DEFAULT_IMAGE_DPI = 96;
export const MIN_IMAGE_DPI = 36;
export const MAX_IMAGE_DPI = 300;
export { MAX_PAGE_IMAGE_PIXELS, MAX_PAGE_IMAGES };

const ImageOptionsSchema = closedObject({
  pages: v.nullish(
    v.pipe(
      PageRangesSchema,
      v.metadata({ default: '1', description: `The pages imaged, in pageRanges syntax ("1-3, 8"; "" for every page), after pdf.pages; at most ${MAX_PAGE_IMAGES} pages.` }),
    ),
  ),
  dpi: v.nullish(
    v.pipe(
      v.number('Must be a number'),
      v.integer('Must be an integer'),
      v.minValue(MIN_IMAGE_DPI, `Must be at least ${MIN_IMAGE_DPI}`),
      v.maxValue(MAX_IMAGE_DPI, `Must be at most ${MAX_IMAGE_DPI}`),
      v.metadata({ default: DEFAULT_IMAGE_DPI, description: 'Pixels per inch of the page (its size as shown, rotation applied). Not with width.' }),
    ),
  ),
  width: v.nullish(
    v.pipe(
      v.number('Must be a number'),
      v.integer('Must be an integer'),
      v.minValue(1, 'Must be at least 1'),
      v.maxValue(MAX_IMAGE_PIXELS, `Must be at most ${MAX_IMAGE_PIXELS}`),
      v.metadata({ description: 'Width of each image in pixels, its height in the page\'s proportions (a thumbnail). Not with dpi.' }),
    ),
  ),
  quality: v.nullish(
    v.pipe(
      v.number('Must be a number'),
      v.integer('Must be an integer'),
      v.minValue(1, 'Must be at least 1'),
      v.maxValue(100, 'Must be at most 100'),
      v.metadata({ description: "JPEG and WEBP: the encoder's quality (Chromium's default when absent); not with PNG." }),
    ),
  ),
});

const ImageSchema = v.pipe(
  ImageOptionsSchema,
  fieldRules({ conflicts: [{ when: [{ field: 'dpi', given: true }, { field: 'width', given: true }], message: 'Give dpi or width, not both', names: ['width'] }] }),
  v.metadata({
    description:
      `With output PNG, JPEG or WEBP: which pages are imaged and how large. Each image at most ${MAX_IMAGE_PIXELS} pixels a side and ` +
      `${MAX_PAGE_IMAGE_PIXELS / 1_000_000} million pixels; a page that would be larger is a 400 naming image.dpi or image.width.`,
  }),
);

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

const DocumentSchema = v.pipe(
  v.string('Must be a string'),
  // As a merge part's document: base64 as the OpenAPI pattern states it (lib/openapi/json-schema-rules.ts), decoded leniently.
  v.regex(BASE64, 'Must be a base64 PDF'),
  v.check((document) => Buffer.from(document.slice(0, 16), 'base64').subarray(0, 5).toString('latin1') === '%PDF-', 'Must be a PDF (it starts with %PDF-)'),
  v.metadata({
    description:
      'The PDF, base64, within the request body limit (use documentUrl for larger files). Held to the bounds of a merge part before it is used: ' +
      `at most ${MAX_DOCUMENT_OBJECTS} objects and ${MAX_DOCUMENT_PAGES} pages, streams inflating within bounds, nesting bounded, a page tree without loops.`,
  }),
);

const DocumentUrlSchema = v.pipe(
  publicHttpUrl('document URL'),
  v.metadata({
    description:
      `An http(s) URL the PDF is fetched from (GET, no redirects, at most ${MAX_PROCESS_URL_BYTES / 1024 / 1024} MB, within the render's time budget), ` +
      'through the same network rules as page.url: private, loopback and metadata addresses are refused.',
  }),
);

const PasswordSchema = v.pipe(
  v.string('Must be a string'),
  v.maxLength(MAX_PASSWORD_LENGTH, `Must be at most ${MAX_PASSWORD_LENGTH} characters`),
  v.metadata({ description: 'Opens an encrypted PDF (its user or owner password). Never logged, never echoed. The file is processed decrypted; pdf.protection encrypts it again.' }),
);

const OutputSchema = v.pipe(
  v.picklist(PROCESS_OUTPUTS, `Must be one of: ${PROCESS_OUTPUTS.join(', ')}`),
  v.metadata({
    default: 'PDF',
    description:
      'PDF: the finished file. JSON: the facts of the document as given (pages, metadata, encryption, attachments, outline, form fields); pdf must then be absent. ' +
      'PNG, JPEG, WEBP: images of the finished pages (see image): one page is the image itself, several a ZIP of page-001.png… in page order.',
  }),
);

const entries = {
  document: v.nullish(DocumentSchema),
  documentUrl: v.nullish(DocumentUrlSchema),
  password: v.nullish(PasswordSchema),
  pdf: v.nullish(ProcessPdfOptionsSchema),
  output: v.nullish(OutputSchema),
  image: v.nullish(ImageSchema),
};

type ProcessFields = { document?: string | null; documentUrl?: string | null };

/** Exactly one of `document` and `documentUrl`. */
function documentSourceRule<T extends ProcessFields>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const issue = (key: keyof ProcessFields) =>
      addIssue({ message: 'Give exactly one of document and documentUrl', path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
    if (input.document == null && input.documentUrl == null) issue('document');
    if (input.document != null && input.documentUrl != null) {
      issue('document');
      issue('documentUrl');
    }
  });
}

/**
 * What the answer asked for allows: no `pdf` with the JSON answer; `image`
 * only with images of the pages, its quality not with PNG; and what applies
 * to a PDF answer only (a preview, protection) not with images. Declared, so
 * the OpenAPI document states them as the service checks them.
 */
const ANSWER_RULES: FieldConflict[] = [
  {
    when: [{ field: 'output', oneOf: ['JSON'] }, { field: 'pdf', given: true }],
    message: 'The JSON answer describes the document as given: leave pdf out, or ask for output PDF',
    names: ['pdf'],
  },
  {
    when: [{ field: 'image', given: true }, { field: 'output', notOneOf: PAGE_IMAGE_OUTPUTS }],
    message: 'Applies to page images: ask for output PNG, JPEG or WEBP',
    names: ['image'],
  },
  {
    when: [{ field: 'output', oneOf: PAGE_IMAGE_OUTPUTS }, { field: 'pdf.preview', given: true }],
    message: 'The answer is images of the pages already: a preview goes beside a PDF answer',
    names: ['pdf.preview'],
  },
  {
    when: [{ field: 'output', oneOf: PAGE_IMAGE_OUTPUTS }, { field: 'pdf.protection', given: true }],
    message: 'The answer is images of the pages: protection applies to a PDF answer',
    names: ['pdf.protection'],
  },
  {
    when: [{ field: 'output', oneOf: ['PNG'] }, { field: 'image.quality', given: true }],
    message: 'quality applies to JPEG and WEBP; PNG is lossless',
    names: ['image.quality'],
  },
];

function processRequest<const E extends v.ObjectEntries>(extra: E) {
  return v.pipe(closedObject({ ...entries, ...extra }), documentSourceRule(), fieldRules({ conflicts: ANSWER_RULES }));
}

/** POST /v1/pdf/process */
export const ProcessRequestSchema = processRequest({});
/** POST /v1/pdf/process/sync */
export const ProcessSyncRequestSchema = processRequest({ storage: v.nullish(StorageOptionsSchema) });
/** POST /v1/pdf/process/async */
export const ProcessAsyncRequestSchema = processRequest({ storage: v.nullish(StorageOptionsSchema), webhook: WebhookOptionsSchema });

/** The process body schema of each delivery. */
export const PROCESS_REQUEST_SCHEMAS = { raw: ProcessRequestSchema, sync: ProcessSyncRequestSchema, async: ProcessAsyncRequestSchema } as const;

export type ImageOptionsOutput = v.InferOutput<typeof ImageOptionsSchema>;
export type ProcessPdfOptionsOutput = v.InferOutput<typeof ProcessPdfOptionsSchema>;
export type ProcessRequestOutput = v.InferOutput<typeof ProcessRequestSchema>;

/** A process request as checked: what a job stores and the plan is built from. The password is kept only as long as the job. */
export type ProcessInput = {
  output: ProcessOutput;
  image?: ImageOptionsOutput | null;
  process: { document: string } | { documentUrl: string };
  password?: string | null;
  pdf?: ProcessPdfOptionsOutput | null;
};

/** The validated body as the input the plan is built from. */
export function processInput(body: ProcessRequestOutput): ProcessInput {
  return {
    output: body.output ?? 'PDF',
    ...(body.image != null ? { image: body.image } : {}),
    process: body.document != null ? { document: body.document } : { documentUrl: body.documentUrl as string },
    ...(body.password != null ? { password: body.password } : {}),
    pdf: body.pdf ?? null,
  };
}
