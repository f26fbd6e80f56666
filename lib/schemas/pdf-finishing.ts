/**
 * The `pdf` fields of the finishing stage (issue 22): `metadata`, `pdfa`,
 * `pdfua`, `attachments`, `eInvoice`, and the rules between them. Kept in
 * their own module so `PdfOptionsSchema` only spreads the entries and pipes
 * the checks.
 */
import * as v from 'valibot';
import { ATTACHMENT_RELATIONSHIPS, PDFA_LEVELS } from '../finishing/pipeline/finishing-plan.js';
import { documented, oneOf } from '../validation/field-builders.js';
import { E_INVOICE_PROFILES, E_INVOICE_STANDARDS, MAX_INVOICE_XML_DEPTH, readInvoiceXml } from '../finishing/steps/archive/invoice-xml.js';
import { tryDecodeBase64Text } from '../validation/base64-text.js';
import { maxCharacters } from '../validation/character-length.js';
import { closedObject } from '../validation/closed-object.js';
import { RENDER_DEFAULTS } from './render-defaults.js';



/** Most files one PDF carries. */
export const MAX_ATTACHMENTS = 10;
/** Largest total of the attachments' decoded bytes. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** Largest invoice XML (decoded). */
export const MAX_INVOICE_XML_BYTES = 1024 * 1024;

const StringSchema = v.string('Must be a string');

function text(max: number) {
  return v.pipe(StringSchema, maxCharacters(max, `Must be at most ${max} characters`));
}

// RFC 5646 in its common shapes: language, optional script, region, variants (en, en-GB, zh-Hant-TW, de-CH-1996).
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z\d]{5,8}|\d[A-Za-z\d]{3}))*$/;

const DateTimeSchema = v.pipe(
  StringSchema,
  v.isoTimestamp('Must be an ISO 8601 date-time with a time zone (2026-03-01T09:30:00Z)'),
);

/** Document metadata: Info dictionary and XMP, kept equal. */
export const PdfMetadataSchema = closedObject({
  title: v.nullish(text(1000)),
  author: v.nullish(text(1000)),
  subject: v.nullish(text(4000)),
  keywords: v.nullish(v.pipe(v.array(text(200), 'Must be an array of strings'), v.maxLength(50, 'Must have at most 50 keywords'))),
  creator: v.nullish(text(1000)),
  language: documented(v.nullish(v.pipe(StringSchema, v.regex(LANGUAGE_TAG, 'Must be a BCP 47 language tag (en, de-DE, zh-Hant)'))), {
    description: "Defaults to the page's lang attribute.",
  }),
  creationDate: v.nullish(DateTimeSchema),
  modificationDate: v.nullish(DateTimeSchema),
});

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Decoded size of valid base64 (whitespace ignored), or undefined when it is not base64. */
export function base64Bytes(encoded: string): number | undefined {
  if (!BASE64.test(encoded)) return undefined;
  const compact = encoded.replace(/\s+/g, '');
  if (compact.length % 4 === 1) return undefined;
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.floor((compact.length * 3) / 4) - padding;
}

// A file name, not a path: no separators or control characters.
const FILE_NAME = /^[^\\/\x00-\x1f\x7f]+$/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;

const AttachmentSchema = closedObject({
  name: v.pipe(StringSchema, v.minLength(1, 'Must not be empty'), maxCharacters(255, 'Must be at most 255 characters'), v.regex(FILE_NAME, 'Must be a file name (no slashes or control characters)')),
  content: v.pipe(StringSchema, v.check((content) => base64Bytes(content) !== undefined, 'Must be valid base64')),
  mimeType: v.pipe(StringSchema, v.regex(MIME_TYPE, 'Must be a MIME type (type/subtype)')),
  description: v.nullish(text(1000)),
  relationship: documented(v.nullish(oneOf(ATTACHMENT_RELATIONSHIPS)), { default: 'Unspecified' }),
});

/** Why base64 invoice XML is refused, or undefined when it is a CII invoice. */
function invoiceXmlProblem(encoded: string): string | undefined {
  const bytes = base64Bytes(encoded);
  if (bytes !== undefined && bytes > MAX_INVOICE_XML_BYTES) return `Must be at most ${MAX_INVOICE_XML_BYTES} bytes decoded`;
  const decoded = tryDecodeBase64Text(encoded);
  if (!decoded.ok) return decoded.problem;
  const facts = readInvoiceXml(decoded.text);
  return 'problem' in facts ? facts.problem : undefined;
}

/** The XML's profile matches `profile` (when both are known); otherwise the reason. */
export function profileProblem(xml: string, profile: string | null | undefined): string | undefined {
  const facts = readInvoiceXml(xml);
  if ('problem' in facts) return facts.problem;
  if (!facts.profile) {
    return profile
      ? `Its guideline identifier (${facts.guideline ?? 'none'}) is no ${profile} profile`
      : `Its guideline identifier (${facts.guideline ?? 'none'}) names no supported profile (${E_INVOICE_PROFILES.join(', ')})`;
  }
  if (profile && facts.profile !== profile) return `Its guideline identifier names the ${facts.profile} profile, not ${profile}`;
  return undefined;
}

const EInvoiceSchema = v.pipe(
  closedObject({
    standard: documented(v.nullish(oneOf(E_INVOICE_STANDARDS)), { default: 'Factur-X' }),
    profile: documented(v.nullish(oneOf(E_INVOICE_PROFILES)), { description: "Defaults to the profile the XML's guideline identifier names; when given it must match it." }),
    xml: documented(
      v.nullish(v.pipe(StringSchema, v.check((xml) => invoiceXmlProblem(xml) === undefined, (issue) => invoiceXmlProblem(issue.input as string) ?? 'Must be a CII invoice'))),
      { description: `The UN/CEFACT CII invoice XML, base64 (at most 1 MB decoded), without a DOCTYPE, its elements nested at most ${MAX_INVOICE_XML_DEPTH} deep.` },
    ),
    xmlTemplate: documented(
      v.nullish(v.pipe(StringSchema, v.check((template) => tryDecodeBase64Text(template).ok, 'Must be valid base64'))),
      {
        description:
          `A Handlebars template of the invoice XML, base64, rendered with page.templateData (XML-escaped); the XML it makes is held to what xml is (at most 1 MB, no DOCTYPE, nested at most ${MAX_INVOICE_XML_DEPTH} deep).`,
      },
    ),
  }),
  v.forward(
    v.partialCheck([['xml'], ['xmlTemplate']], (e) => (e.xml == null) !== (e.xmlTemplate == null), 'Give exactly one of xml and xmlTemplate'),
    ['xml'],
  ),
  v.forward(
    v.partialCheck([['xml'], ['xmlTemplate']], (e) => (e.xml == null) !== (e.xmlTemplate == null), 'Give exactly one of xml and xmlTemplate'),
    ['xmlTemplate'],
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed || dataset.value.xml == null || invoiceXmlProblem(dataset.value.xml) !== undefined) return;
    const invoice = dataset.value;
    const problem = profileProblem(Buffer.from(invoice.xml as string, 'base64').toString('utf8'), invoice.profile);
    if (!problem) return;
    // A mismatch involves both fields; an unknown guideline only the XML.
    for (const key of invoice.profile ? (['profile', 'xml'] as const) : (['xml'] as const)) {
      addIssue({ message: problem, path: [{ type: 'object', origin: 'value', input: invoice, key, value: invoice[key] }] });
    }
  }),
);

function integerBetween(min: number, max: number) {
  return v.pipe(v.number('Must be a number'), v.integer('Must be a whole number'), v.minValue(min, `Must be at least ${min}`), v.maxValue(max, `Must be at most ${max}`));
}

/** `pdf.compress`'s settings when given as an object (issue 34); `true` takes every default. */
export const CompressSchema = closedObject({
  imageQuality: documented(v.nullish(integerBetween(1, 100)), { default: RENDER_DEFAULTS.compress.imageQuality, description: 'JPEG quality of the re-encoded images.' }),
  maxImageDpi: documented(v.nullish(integerBetween(72, 600)), {
    default: RENDER_DEFAULTS.compress.maxImageDpi,
    description: 'Images shown at a higher resolution than this are downsampled to it, at the size they are drawn (never enlarged).',
  }),
  grayscale: documented(v.nullish(v.boolean('Must be a boolean')), { default: RENDER_DEFAULTS.compress.grayscale, description: 'Turns colour images grey.' }),
});

/** Bounds of `pdf.preview.width`, in pixels: a thumbnail to a screen-wide preview. */
export const MIN_PREVIEW_WIDTH = 16;
export const MAX_PREVIEW_WIDTH = 2000;
export const PREVIEW_TYPES = ['png', 'jpeg', 'webp'] as const;

/** `pdf.preview` (issue 34): an image of the finished PDF's first page, stored beside it (sync and async answers). */
export const PreviewSchema = closedObject({
  width: documented(v.nullish(integerBetween(MIN_PREVIEW_WIDTH, MAX_PREVIEW_WIDTH)), {
    default: RENDER_DEFAULTS.preview.width,
    description: 'Width of the image in pixels; its height follows the page (at most 25 million pixels in all, 16384 a side).',
  }),
  type: documented(v.nullish(oneOf(PREVIEW_TYPES)), { default: RENDER_DEFAULTS.preview.type, description: 'Image format.' }),
});

/** The entries `PdfOptionsSchema` spreads. */
export const pdfFinishingEntries = {
  metadata: documented(v.nullish(PdfMetadataSchema), { description: 'Document information and XMP metadata; title defaults to the page title, language to its lang.' }),
  pdfa: documented(v.nullish(oneOf(PDFA_LEVELS)), { description: 'Makes the PDF conform to this PDF/A part and level.' }),
  pdfua: documented(v.nullish(v.boolean('Must be a boolean')), { default: false, description: 'PDF/UA-1: tagged output with the title shown and the language set.' }),
  attachments: documented(
    v.nullish(v.pipe(v.array(AttachmentSchema, 'Must be an array'), v.maxLength(MAX_ATTACHMENTS, `Must have at most ${MAX_ATTACHMENTS} files`))),
    { description: `Files embedded in the PDF (at most ${MAX_ATTACHMENTS}, ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB decoded in total); with pdfa they need PDF/A-3.` },
  ),
  compress: documented(v.nullish(v.union([v.boolean('Must be a boolean'), CompressSchema], 'Must be true, false or an object (imageQuality, maxImageDpi, grayscale)')), {
    default: false,
    description:
      'Makes the PDF smaller (true for the defaults): images drawn at more than maxImageDpi are downsampled, re-encoded as JPEG at imageQuality unless transparent, and kept as they were when that is not smaller; identical images and fonts are stored once, in object streams. Runs before protection and the signature, and keeps PDF/A conformant.',
  }),
  preview: documented(v.nullish(PreviewSchema), {
    description:
      'Stores an image of the finished PDF\'s first page (after every other pdf option; a protected PDF is opened with its password) beside the PDF, as a temporary file like it: its URL is previewUrl in the /sync answer, the job (GET /v1/jobs/{id}) and the webhook. /sync and /async only: a raw request or a batch item with it is a 400. With storage, the PDF alone goes to the pre-signed URL.',
  }),
  eInvoice: documented(v.nullish(EInvoiceSchema), { description: 'Makes a hybrid e-invoice (Factur-X / ZUGFeRD): PDF/A-3 with the invoice XML embedded.' }),
};

type FinishingFields = {
  pdfa?: string | null;
  attachments?: Array<{ content: string }> | null;
  eInvoice?: unknown;
};

const isPart2 = (pdfa: string | null | undefined) => pdfa != null && pdfa.startsWith('PDF/A-2');

/** Why the finishing fields cannot go together, with every field involved. */
export function finishingConflicts(o: FinishingFields): Array<{ fields: Array<keyof FinishingFields>; message: string }> {
  const conflicts: Array<{ fields: Array<keyof FinishingFields>; message: string }> = [];
  const total = (o.attachments ?? []).reduce((sum, a) => sum + (base64Bytes(a.content) ?? 0), 0);
  if (total > MAX_ATTACHMENT_BYTES) {
    conflicts.push({ fields: ['attachments'], message: `The attachments must be at most ${MAX_ATTACHMENT_BYTES} bytes decoded in total` });
  }
  if (isPart2(o.pdfa) && (o.attachments?.length ?? 0) > 0) {
    conflicts.push({ fields: ['pdfa', 'attachments'], message: 'PDF/A-2 cannot carry attachments: use PDF/A-3b or PDF/A-3u' });
  }
  if (isPart2(o.pdfa) && o.eInvoice != null) {
    conflicts.push({ fields: ['pdfa', 'eInvoice'], message: 'An e-invoice is a PDF/A-3 document: use PDF/A-3b or PDF/A-3u, or leave pdfa out' });
  }
  return conflicts;
}

/** The rules between the finishing fields as one check of the `pdf` object: a 400 on every field involved. */
export function pdfFinishingCheck<T extends FinishingFields>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    for (const conflict of finishingConflicts(input)) {
      for (const key of conflict.fields) {
        addIssue({ message: conflict.message, path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
      }
    }
  });
}

export { ATTACHMENT_RELATIONSHIPS, PDFA_LEVELS };
export type { AttachmentRelationship, PdfaLevel } from '../finishing/pipeline/finishing-plan.js';
