/**
 * Rules of the request schemas that @valibot/to-json-schema cannot read
 * (custom checks, rules between fields), written out in JSON Schema for the
 * OpenAPI document: exactly one of two fields, a field only with another,
 * the bytes an existing file must start with. Each is keyed by the valibot
 * schema or action that enforces it, and the conversion (request-schemas.ts)
 * adds it where that schema or action appears. What JSON Schema cannot say
 * at all (UTF-8 inside base64, ICU time zones, sums of sizes…) stays in
 * words and is listed in test/api-fuzz/hooks.py.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { base64TextPattern } from '../validation/base64-text.js';
import { BatchRequestSchema } from '../schemas/batch-requests.js';
import { FontUploadSchema } from '../schemas/font-requests.js';
import { CSS_VALUE } from '../validation/css-value.js';
import { HTTP_URL_PATTERN, S3_KEY_PATTERN } from '../validation/http-url-pattern.js';
import { JS_WHITESPACE } from '../validation/js-whitespace.js';
import { DocumentPartSchema } from '../schemas/merge-requests.js';
import { PROCESS_REQUEST_SCHEMAS } from '../schemas/process-requests.js';
import { MAX_PAGE_DIGITS, PageOrderSchema, PageRangesSchema } from '../validation/page-ranges.js';
import { EInvoiceSchema } from '../finishing/steps/archive/archive-options.js';
import { AttachmentSchema } from '../finishing/steps/attach/definition.js';
import { ProtectionSchema } from '../finishing/steps/protect/definition.js';
import { AppearanceSchema } from '../finishing/steps/sign/signature-options.js';
import { WatermarkSchema } from '../finishing/steps/stamp/definition.js';
import { fieldRulesJsonSchema } from '../validation/field-rules.js';
import {
  BandSchema,
  BandVariantSchema,
  HEADER_NAME,
  OverlaySchema,
  PageOptionsSchema,
  PageOverridesSchema,
  PdfOptionsSchema,
  RESERVED_HEADERS,
  WEBHOOK_SIGNATURE_HEADERS,
  WebhookOptionsSchema,
} from '../schemas/render-options.js';
import { PageWithSourceSchema, TemplatePageSchema } from '../schemas/render-requests.js';

type Schema = Record<string, unknown>;

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A pattern for base64 whose decoded bytes start with `magic`: the
 * characters those bytes fix, then a class for the last one they fix only
 * partly. The rest is the loose base64 the service reads (whitespace anywhere,
 * up to two `=` at the end).
 */
export function base64StartingWith(...magics: number[][]): string {
  const prefixes = magics.map((magic) => {
    const bits = magic.map((byte) => byte.toString(2).padStart(8, '0')).join('');
    let prefix = '';
    for (let at = 0; at + 6 <= bits.length; at += 6) prefix += BASE64_ALPHABET[parseInt(bits.slice(at, at + 6), 2)];
    const rest = bits.slice(bits.length - (bits.length % 6));
    if (rest) prefix += `[${[...BASE64_ALPHABET].filter((_, index) => index.toString(2).padStart(6, '0').startsWith(rest)).join('')}]`;
    return prefix.replaceAll('+', '\\+');
  });
  return `^(?:${prefixes.join('|')})[A-Za-z0-9+/${JS_WHITESPACE}]*={0,2}[${JS_WHITESPACE}]*$`;
}

/** A field that is given: present and not null. */
const given = (field: string, type: string): Schema => ({ required: [field], properties: { [field]: { type } } });

/** Exactly one of two fields is given. */
const exactlyOne = (a: [string, string], b: [string, string]): Schema => ({ oneOf: [given(...a), given(...b)] });

/** The string schema of a nullable field (`anyOf: [string, null]`), to add keywords to. */
function stringOf(object: Schema, field: string): Schema {
  const property = (object.properties as Record<string, Schema>)[field]!;
  const branches = property.anyOf as Schema[] | undefined;
  return branches ? branches.find((branch) => branch.type === 'string')! : property;
}

/** A page's templateDataUrl: an http(s) URL or an s3://bucket/key (render-options.ts, upload-url.ts). */
function templateDataUrlPattern(page: Schema): Schema {
  Object.assign(stringOf(page, 'templateDataUrl'), { anyOf: [{ pattern: HTTP_URL }, { pattern: S3_KEY_PATTERN.source }] });
  return page;
}

/** Adds rules to an object schema, beside what it already says. */
const withRules = (object: Schema, ...rules: Schema[]): Schema => ({ ...object, allOf: [...((object.allOf as Schema[]) ?? []), ...rules] });

/** The last item of a schema's pipe: the check that runs after its object is read. */
const lastOf = (schema: GenericSchema): unknown => (schema as GenericSchema & { pipe: unknown[] }).pipe.at(-1);

const WS = `[${JS_WHITESPACE}]*`;
const C = `[A-Za-z0-9+/]${WS}`;

/**
 * Base64 as the attachment check reads it (pdf-finishing.ts `base64Bytes`):
 * whitespace anywhere before the padding, at most two `=`, and a length with
 * the padding that is not one more than a multiple of four.
 */
const LOOSE_BASE64 = `^${WS}(?:(?:${C}){4})*(?:(?:==)?|${C}={1,2}|(?:${C}){2}={0,2}|(?:${C}){3}=?)${WS}$`;

/** Letters of `word` in either case: JSON Schema patterns take no flags. */
const caseless = (word: string) => [...word].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toUpperCase()}${ch.toLowerCase()}]` : ch)).join('');

/** The names a caller may give a header: an HTTP token, none of the reserved ones (any case). */
function headerNames(extraReserved: ReadonlySet<string>): Schema {
  const reserved = [...RESERVED_HEADERS, ...extraReserved].map(caseless);
  return { type: 'string', pattern: HEADER_NAME.source, not: { pattern: `^(?:${reserved.join('|')}|${caseless('proxy-')}.*)$` } };
}

/** `headers` of an object: its names as headerNames says. */
function headersOf(extraReserved: ReadonlySet<string> = new Set()) {
  return (object: Schema): Schema => {
    Object.assign(objectOf(object, 'headers'), { propertyNames: headerNames(extraReserved) });
    return object;
  };
}

/** The object schema of a nullable field. */
function objectOf(object: Schema, field: string): Schema {
  const property = (object.properties as Record<string, Schema>)[field]!;
  const branches = property.anyOf as Schema[] | undefined;
  return branches ? branches.find((branch) => branch.type === 'object')! : property;
}

/** A valid page number (1 to MAX_PAGE_NUMBER, leading zeros allowed) and one comma-separated part of pageRanges. */
const PAGE = `0*[1-9][0-9]{0,${MAX_PAGE_DIGITS - 1}}`;
const PAGE_RANGE_PART = `${WS}(?:${PAGE}(?:-(?:${PAGE})?)?|-${PAGE})${WS}`;

/** A CSS value of the overlay (css-value.ts): its characters, and no url(). */
const CSS_VALUE_SCHEMA: Schema = { pattern: CSS_VALUE.source, not: { pattern: `${caseless('url')}${WS}\\(` } };

/** An http(s) URL as the service takes it (http-url-pattern.ts): the pattern http-url.ts enforces. */
const HTTP_URL = HTTP_URL_PATTERN.source;

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];

/** By the schema or action that enforces it: what it adds to the JSON Schema converted so far. */
const RULES = new Map<unknown, (converted: Schema) => Schema>([
  // merge part {document}: base64 of a file that starts with %PDF- (lib/schemas/merge-requests.ts).
  [
    lastOf(DocumentPartSchema),
    (part) => {
      Object.assign(stringOf(part, 'document'), { pattern: base64StartingWith(PDF_MAGIC), contentEncoding: 'base64', contentMediaType: 'application/pdf' });
      return part;
    },
  ],
  // pdf.watermark: one of text or image; fontSize, color and fontFamily only with text; the image a PNG or a JPEG.
  [
    lastOf(WatermarkSchema),
    (watermark) => {
      Object.assign(stringOf(watermark, 'image'), { pattern: base64StartingWith(PNG_MAGIC, JPEG_MAGIC), contentEncoding: 'base64' });
      return withRules(watermark, exactlyOne(['text', 'string'], ['image', 'string']), {
        if: given('image', 'string'),
        then: { properties: { fontSize: { type: 'null' }, color: { type: 'null' }, fontFamily: { type: 'null' } } },
      });
    },
  ],
  // pdf.signature.appearance: a page counted from 1 or from -1 at the end, never 0; text or image, not both; the image a PNG or a JPEG.
  [
    lastOf(AppearanceSchema),
    (appearance) => {
      Object.assign((appearance.properties as Record<string, Schema>).page!, { not: { const: 0 } });
      Object.assign(stringOf(appearance, 'image'), { pattern: base64StartingWith(PNG_MAGIC, JPEG_MAGIC), contentEncoding: 'base64' });
      return withRules(appearance, { not: { allOf: [given('text', 'string'), given('image', 'string')] } });
    },
  ],
  // pdf.protection: a password at least; permissions need the owner password.
  [
    lastOf(ProtectionSchema),
    (protection) =>
      withRules(protection, { anyOf: [given('userPassword', 'string'), given('ownerPassword', 'string')] }, {
        if: given('permissions', 'object'),
        then: given('ownerPassword', 'string'),
      }),
  ],
  // pdf.eInvoice: exactly one of xml and xmlTemplate, each base64 text.
  [
    lastOf(EInvoiceSchema),
    (invoice) => {
      for (const field of ['xml', 'xmlTemplate']) Object.assign(stringOf(invoice, field), { pattern: base64TextPattern(false), contentEncoding: 'base64' });
      return withRules(invoice, exactlyOne(['xml', 'string'], ['xmlTemplate', 'string']));
    },
  ],
  // pdf.attachments[].content: base64.
  [
    lastOf(AttachmentSchema),
    (attachment) => {
      Object.assign((attachment.properties as Record<string, Schema>).content!, { pattern: LOOSE_BASE64, contentEncoding: 'base64' });
      return attachment;
    },
  ],
  // pdf.header, pdf.footer and their variants: exactly one of html and htmlTemplate.
  [lastOf(BandSchema), (band) => withRules(band, exactlyOne(['html', 'string'], ['htmlTemplate', 'string']))],
  [lastOf(BandVariantSchema), (band) => withRules(band, exactlyOne(['html', 'string'], ['htmlTemplate', 'string']))],
  // Exactly one of document (base64 of a file starting %PDF-) and documentUrl (what the answer allows is declared: process-requests.ts ANSWER_RULES).
  ...Object.values(PROCESS_REQUEST_SCHEMAS).map((schema): [unknown, (converted: Schema) => Schema] => [
    (schema.pipe as readonly unknown[])[1],
    (body) => {
      Object.assign(stringOf(body, 'document'), { pattern: base64StartingWith(PDF_MAGIC), contentEncoding: 'base64', contentMediaType: 'application/pdf' });
      return withRules(body, exactlyOne(['document', 'string'], ['documentUrl', 'string']));
    },
  ]),
  // A page given as HTML has no site: each cookie names its url or domain, and a Cookie header, which would
  // be for the page's site, stays empty (lib/plan, cookiePlan and cookiesOfHeader).
  // templateDataUrl only with htmlTemplate, and not beside templateData.
  [
    lastOf(PageWithSourceSchema),
    (page) =>
      withRules(page, { if: given('templateDataUrl', 'string'), then: given('htmlTemplate', 'string') }, { not: { allOf: [given('templateData', 'object'), given('templateDataUrl', 'string')] } }, {
        if: { not: given('url', 'string') },
        then: {
          properties: {
            headers: { anyOf: [{ type: 'null' }, { type: 'object', patternProperties: { [`^${caseless('cookie')}$`]: { maxLength: 0 } } }] },
            cookies: {
              anyOf: [
                { type: 'null' },
                { type: 'array', items: { anyOf: [given('url', 'string'), { required: ['domain'], properties: { domain: { type: 'string', minLength: 1 } } }] } },
              ],
            },
          },
        },
      }),
  ],
  // A template's page: at most one source (the request may bring it).
  [
    lastOf(TemplatePageSchema),
    (page) =>
      withRules(page, {
        not: {
          anyOf: [
            ['url', 'html'],
            ['url', 'htmlTemplate'],
            ['html', 'htmlTemplate'],
          ].map(([a, b]) => ({ allOf: [given(a!, 'string'), given(b!, 'string')] })),
        },
      }),
  ],
  // Header names: an HTTP token, not one the service sets itself.
  // ...and templateDataUrl an http(s) URL or an s3://bucket/key, as itemsUrl.
  [lastOf(PageOptionsSchema), (page) => templateDataUrlPattern(headersOf()(page))],
  [lastOf(PageOverridesSchema), (page) => templateDataUrlPattern(headersOf()(page))],
  [lastOf(WebhookOptionsSchema), headersOf(WEBHOOK_SIGNATURE_HEADERS)],
  // pageRanges and watermark.pages: pages and ranges separated by commas, numbered from 1.
  [lastOf(PageRangesSchema), (ranges) => ({ ...ranges, pattern: `^(?:${WS}|${PAGE_RANGE_PART}(?:,${PAGE_RANGE_PART})*)$` })],
  // pdf.pages: the same syntax, read in order (a page named twice is a rule beyond a pattern: test/api-fuzz/hooks.py).
  [lastOf(PageOrderSchema), (order) => ({ ...order, pattern: `^(?:${WS}|${PAGE_RANGE_PART}(?:,${PAGE_RANGE_PART})*)$` })],
  // overlay.filter a CSS value; overlay.background a CSS value or an http(s) image URL (the page.url pattern; cookie
  // urls, page.url, webhook.url, storage.preSignedUrl and documentUrl carry it themselves, from http-url.ts's v.regex).
  [
    lastOf(OverlaySchema),
    (overlay) => {
      Object.assign(stringOf(overlay, 'filter'), CSS_VALUE_SCHEMA);
      Object.assign(stringOf(overlay, 'background'), { anyOf: [CSS_VALUE_SCHEMA, { pattern: HTTP_URL }] });
      return overlay;
    },
  ],
  // POST /v1/fonts as JSON: exactly one of file and fileUrl (font-requests.ts).
  [lastOf(FontUploadSchema), (body) => withRules(body, exactlyOne(['file', 'string'], ['fileUrl', 'string']))],
  // A batch: exactly one of items and itemsUrl; itemsUrl an http(s) URL or an s3://bucket/key (batch-requests.ts).
  [
    lastOf(BatchRequestSchema),
    (body) => {
      Object.assign(stringOf(body, 'itemsUrl'), { anyOf: [{ pattern: HTTP_URL }, { pattern: S3_KEY_PATTERN.source }] });
      return withRules(body, exactlyOne(['items', 'array'], ['itemsUrl', 'string']));
    },
  ],
]);

/**
 * The conversion's hook: the JSON Schema of `key` (a valibot schema or
 * action) with its rules added, if it has any: those written out here, or
 * those a `fieldRules` check states itself (lib/validation/field-rules.ts:
 * the finishing steps' conflicts and refusals).
 */
export function withJsonSchemaRules(key: unknown, converted: JsonSchema): JsonSchema | undefined {
  const stated = fieldRulesJsonSchema(key);
  if (stated) return stated.length > 0 ? (withRules(converted as Schema, ...stated) as JsonSchema) : converted;
  return RULES.get(key)?.(converted as Schema) as JsonSchema | undefined;
}
