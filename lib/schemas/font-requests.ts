/** Bodies of the user-font endpoints (issue 46). A raw font body (Content-Type font/…) is not JSON and is read by the endpoint itself. */
import * as v from 'valibot';
import { MAX_FAMILY_CHARACTERS, MAX_FONT_FILE_BYTES } from '../fonts/user-fonts/font-limits.js';
import { closedObject } from '../validation/closed-object.js';
import { ITEMS_UPLOAD_PREFIX } from './batch-requests.js';

/** The prefix of the caller's own uploads in the files bucket, as a batch's itemsUrl reads them. */
export const FONT_UPLOAD_PREFIX = ITEMS_UPLOAD_PREFIX;

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

const FileSchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.regex(BASE64, 'Must be a base64 font file'),
  v.metadata({
    description:
      'The font file (TrueType, OpenType, WOFF or WOFF2), base64, within the request body limit: ' +
      `Lambda takes at most 6 MB in a request, so larger files go up as fileUrl (at most ${MAX_FONT_FILE_BYTES / 1024 / 1024} MB).`,
  }),
);

const FileUrlSchema = v.pipe(
  v.string('Must be a string'),
  v.regex(/^s3:\/\/[^/]+\/.+$/i, 'Must be s3://<bucket>/<key>'),
  v.metadata({
    description:
      `A font file you uploaded to the service's files bucket under ${FONT_UPLOAD_PREFIX}<your account id>/ (s3://<bucket>/${FONT_UPLOAD_PREFIX}<account>/<key>), ` +
      `at most ${MAX_FONT_FILE_BYTES / 1024 / 1024} MB. Only your own account's uploads are read, never an http(s) URL: a font is kept for good, and the service does not fetch what it keeps from elsewhere.`,
  }),
);

/** A family name as given; the full rule (letters, digits, spaces, `-_.`, not a generic family) is the font reader's. */
export const FamilySchema = v.pipe(
  v.string('Must be a string'),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(MAX_FAMILY_CHARACTERS, `Must be at most ${MAX_FAMILY_CHARACTERS} characters`),
  v.metadata({
    description:
      "The family pages name the font by in CSS (font-family), instead of the typographic family in the font's name table. " +
      'Letters, digits, spaces, "-", "_" and "." only; not a generic family (serif, sans-serif, monospace…).',
  }),
);

type UploadFields = { file?: string | null; fileUrl?: string | null; family?: string | null };

/** POST /v1/fonts with a JSON body: exactly one of file and fileUrl, and optionally the family. */
export const FontUploadSchema = v.pipe(
  closedObject({
    file: v.nullish(FileSchema),
    fileUrl: v.nullish(FileUrlSchema),
    family: v.nullish(FamilySchema),
  }),
  v.rawCheck<UploadFields>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    const issue = (key: 'file' | 'fileUrl') =>
      addIssue({ message: 'Give exactly one of file and fileUrl', path: [{ type: 'object', origin: 'value', input, key, value: input[key] }] });
    if (input.file == null && input.fileUrl == null) issue('file');
    if (input.file != null && input.fileUrl != null) {
      issue('file');
      issue('fileUrl');
    }
  }),
);

export type FontUploadOutput = v.InferOutput<typeof FontUploadSchema>;

/** The Content-Types of a raw font body, and the format each announces. */
export const FONT_CONTENT_TYPES = ['font/ttf', 'font/otf', 'font/woff', 'font/woff2'] as const;
