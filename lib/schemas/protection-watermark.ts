/**
 * Schemas of the finishing options of `pdf` (issue 23): `protection`
 * (AES-256 encryption and permissions) and `watermark` (text or image
 * stamped over or under the pages). They are entries of the `pdf` object of
 * every PDF render and of the top-level `pdf` of a merge, where they apply to
 * the merged file.
 */
import * as v from 'valibot';
import { documented } from '../validation/field-builders.js';
import { imageKind, pngDataProblem, readImageHeader } from '../input/image-header.js';
import { closedObject } from '../validation/closed-object.js';
import { PageRangesSchema } from '../validation/page-ranges.js';
import { RENDER_DEFAULTS } from './render-defaults.js';

const WATERMARK_DEFAULTS = RENDER_DEFAULTS.watermark;
const PERMISSION_DEFAULTS = RENDER_DEFAULTS.protectionPermissions;

/** PDF passwords are cut at 127 bytes of UTF-8 (ISO 32000-2 §7.6.4.3.3); longer ones would silently mean less. */
export const MAX_PASSWORD_BYTES = 127;
/** Largest watermark image, decoded. */
export const MAX_WATERMARK_IMAGE_BYTES = 1024 * 1024;
/**
 * Most pixels a watermark image may declare (16 megapixels, 4096 × 4096: a
 * full page at 300 dpi is 8.7). pdf-lib decodes a PNG to 4 bytes a pixel and
 * splits that again: at this bound a 16-bit RGBA PNG took 3.4 s and 260 MB
 * to embed and save (8-bit grey 1.0 s and 140 MB; docs/security.md).
 */
export const MAX_WATERMARK_IMAGE_PIXELS = 4096 * 4096;
/** Longest side of a watermark image in pixels: 85 inches at the 96 dpi it is drawn at. */
export const MAX_WATERMARK_IMAGE_EDGE = 8192;
/** Longest watermark text: a stamp, not a document. */
export const MAX_WATERMARK_TEXT = 500;

/** The nine anchors a watermark is placed at. */
export const WATERMARK_POSITIONS = ['center', 'top', 'bottom', 'left', 'right', 'topLeft', 'topRight', 'bottomLeft', 'bottomRight'] as const;

const BooleanSchema = v.boolean('Must be a boolean');

// The message never repeats the value: a password must not reach an error body or a log line.
const PasswordSchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.check((password) => Buffer.byteLength(password) <= MAX_PASSWORD_BYTES, `Must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (127 ASCII characters)`),
);

const PermissionsSchema = closedObject({
  print: documented(v.nullish(v.picklist(['none', 'lowResolution', 'highResolution'], 'Must be one of: none, lowResolution, highResolution')), {
    default: PERMISSION_DEFAULTS.print,
  }),
  modify: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.modify, description: 'Change the content (other than annotations, forms and assembly).' }),
  copy: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.copy, description: 'Copy or extract text and images.' }),
  annotate: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.annotate, description: 'Add or change annotations.' }),
  fillForms: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.fillForms, description: 'Fill in form fields.' }),
  accessibility: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.accessibility, description: 'Extract text for accessibility.' }),
  assemble: documented(v.nullish(BooleanSchema), { default: PERMISSION_DEFAULTS.assemble, description: 'Insert, rotate or delete pages, create bookmarks.' }),
});

/** `pdf.protection`: AES-256 (PDF 2.0, revision 6) with at least one password; permissions need the owner password. */
export const ProtectionSchema = v.pipe(
  closedObject({
    userPassword: documented(v.nullish(PasswordSchema), { description: 'Needed to open the document.' }),
    ownerPassword: documented(v.nullish(PasswordSchema), { description: 'Unlocks everything; required with permissions.' }),
    permissions: documented(v.nullish(PermissionsSchema), { description: 'What a reader with the user password (or none) may do; unset means allowed.' }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { userPassword, ownerPassword, permissions } = dataset.value;
    if (userPassword == null && ownerPassword == null) {
      addIssue({ message: 'Give userPassword, ownerPassword or both' });
    } else if (permissions != null && ownerPassword == null) {
      const input = dataset.value;
      addIssue({
        message: 'Required when permissions are set: without it the user password unlocks everything',
        path: [{ type: 'object', origin: 'value', input, key: 'ownerPassword', value: undefined }],
      });
    }
  }),
);

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * Decodes a watermark image: PNG or JPEG bytes with their kind, or why not.
 * Its header is read and held to the limits before anything decodes its
 * pixels (lib/input/image-header.ts), and a PNG's compressed data to what its
 * header declares. The last answer is kept: the schema's check, its message
 * and the plan ask about the same text.
 */
export function decodeWatermarkImage(encoded: string): { kind: 'png' | 'jpeg'; bytes: Buffer } | { problem: string } {
  if (lastImage?.encoded !== encoded) lastImage = { encoded, decoded: decodeUncached(encoded) };
  return lastImage.decoded;
}

let lastImage: { encoded: string; decoded: ReturnType<typeof decodeUncached> } | undefined;

function decodeUncached(encoded: string): { kind: 'png' | 'jpeg'; bytes: Buffer } | { problem: string } {
  if (!BASE64.test(encoded)) return { problem: 'Must be valid base64' };
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length > MAX_WATERMARK_IMAGE_BYTES) return { problem: 'Must be at most 1 MB decoded' };
  if (imageKind(bytes) === undefined) return { problem: 'Must be a base64 PNG or JPEG image' };
  const header = readImageHeader(bytes);
  if ('problem' in header) return header;
  const { kind, width, height } = header;
  if (width > MAX_WATERMARK_IMAGE_EDGE || height > MAX_WATERMARK_IMAGE_EDGE || width * height > MAX_WATERMARK_IMAGE_PIXELS) {
    return { problem: `Must be at most ${MAX_WATERMARK_IMAGE_EDGE} pixels on each side and ${MAX_WATERMARK_IMAGE_PIXELS} pixels in all; it declares ${width} × ${height}` };
  }
  const dataProblem = kind === 'png' ? pngDataProblem(bytes) : undefined;
  return dataProblem ? { problem: dataProblem } : { kind, bytes };
}

export const ImageSchema = v.pipe(
  v.string('Must be a string'),
  // Checked on the encoded length first: decoding 5 MB only to refuse it is work for nothing.
  v.maxLength(Math.ceil(MAX_WATERMARK_IMAGE_BYTES / 3) * 4 + 1024, 'Must be at most 1 MB decoded'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const decoded = decodeWatermarkImage(dataset.value);
    if ('problem' in decoded) addIssue({ message: decoded.problem });
  }),
);

const numberBetween = (min: number, max: number) =>
  v.pipe(v.number('Must be a number'), v.minValue(min, `Must be at least ${min}`), v.maxValue(max, `Must be at most ${max}`));

/** `pdf.watermark`: text (real, selectable text in any script) or a PNG/JPEG image, stamped on the selected pages. */
export const WatermarkSchema = v.pipe(
  closedObject({
    text: documented(v.nullish(v.pipe(v.string('Must be a string'), v.minLength(1, 'Must not be empty'), v.maxLength(MAX_WATERMARK_TEXT, `Must be at most ${MAX_WATERMARK_TEXT} characters`))), {
      description: 'Text in any script (CJK and emoji included); stays selectable and searchable. One of text or image.',
    }),
    image: documented(v.nullish(ImageSchema), {
      description:
        `Base64 PNG or JPEG, at most 1 MB, declaring at most ${MAX_WATERMARK_IMAGE_EDGE} pixels a side and ${MAX_WATERMARK_IMAGE_PIXELS} in all ` +
        '(read from its header before it is decoded; a PNG\'s data must inflate to what its header declares, not animated); drawn at 96 dpi, shrunk to fit the page. One of text or image.',
    }),
    opacity: documented(v.nullish(numberBetween(0, 1)), { default: WATERMARK_DEFAULTS.opacity }),
    rotation: documented(v.nullish(numberBetween(-360, 360)), { default: WATERMARK_DEFAULTS.rotation, description: 'Degrees, counter-clockwise.' }),
    fontSize: documented(v.nullish(numberBetween(1, 500)), { default: WATERMARK_DEFAULTS.fontSize, description: 'Points; text only.' }),
    color: documented(v.nullish(v.pipe(v.string('Must be a string'), v.regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'Must be a hex colour such as "#c00" or "#cc0000"'))), {
      default: WATERMARK_DEFAULTS.color,
      description: 'Text only.',
    }),
    position: documented(v.nullish(v.picklist(WATERMARK_POSITIONS, `Must be one of: ${WATERMARK_POSITIONS.join(', ')}`)), { default: WATERMARK_DEFAULTS.position }),
    pages: documented(v.nullish(PageRangesSchema), { description: 'Pages to stamp, in pageRanges syntax; default all. Applies after a merge, so it counts the merged pages.' }),
    layer: documented(v.nullish(v.picklist(['over', 'under'], 'Must be one of: over, under')), { default: WATERMARK_DEFAULTS.layer }),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const at = (key: string): [v.IssuePathItem] => [{ type: 'object', origin: 'value', input, key, value: undefined }];
    const hasText = input.text != null;
    const hasImage = input.image != null;
    if (hasText === hasImage) {
      const message = hasText ? 'Only one of text or image may be given' : 'One of text or image is required';
      addIssue({ message, path: at('text') });
      addIssue({ message, path: at('image') });
    }
    if (hasImage && input.fontSize != null) addIssue({ message: 'Only used with text', path: at('fontSize') });
    if (hasImage && input.color != null) addIssue({ message: 'Only used with text', path: at('color') });
  }),
);

/** The finishing entries of a `pdf` object. */
export const PDF_FINISHING_ENTRIES = {
  protection: documented(v.nullish(ProtectionSchema), { description: 'Encrypts the PDF (AES-256) with passwords and permissions.' }),
  watermark: documented(v.nullish(WatermarkSchema), { description: 'Stamps text or an image over or under the pages.' }),
};

/**
 * PDF/A forbids encryption: `protection` with the archival option `pdfa`
 * (or `eInvoice`, which is PDF/A-3) is a 400 naming both. Read by name, so it holds whichever of the two
 * options a `pdf` schema carries.
 */
export function protectionConflictRule<T extends object>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value as Record<string, unknown>;
    if (input.protection == null) return;
    // An e-invoice is a PDF/A-3 file, so it conflicts alike.
    for (const archival of ['pdfa', 'eInvoice']) {
      if (input[archival] == null) continue;
      const message = `protection and ${archival} cannot be combined: PDF/A forbids encryption`;
      for (const key of ['protection', archival]) {
        addIssue({ message, path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
      }
    }
  });
}

export type ProtectionOutput = v.InferOutput<typeof ProtectionSchema>;
export type WatermarkOutput = v.InferOutput<typeof WatermarkSchema>;
