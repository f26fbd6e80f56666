/**
 * The `attach` step (issue 22): files embedded in the PDF (`pdf.attachments`),
 * and an e-invoice's XML, which the archive step's `eInvoice` option asks
 * for (read here through `reads`).
 */
import * as v from 'valibot';
import { base64Bytes } from '../../../validation/base64-text.js';
import { maxCharacters } from '../../../validation/character-length.js';
import { closedObject } from '../../../validation/closed-object.js';
import { documented, oneOf } from '../../../validation/field-builders.js';
import { ATTACHMENT_RELATIONSHIPS, type Attachment } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';
import { resolveInvoice, type EInvoiceOutput } from '../archive/archive-options.js';
import { invoiceAttachment } from '../archive/e-invoice.js';

/** Most files one PDF carries. */
export const MAX_ATTACHMENTS = 10;
/** Largest total of the attachments' decoded bytes. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

// A file name, not a path: no separators or control characters.
const FILE_NAME = /^[^\\/\x00-\x1f\x7f]+$/;
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;

const StringSchema = v.string('Must be a string');

/** One file of `pdf.attachments`. */
export const AttachmentSchema = closedObject({
  name: v.pipe(StringSchema, v.minLength(1, 'Must not be empty'), maxCharacters(255, 'Must be at most 255 characters'), v.regex(FILE_NAME, 'Must be a file name (no slashes or control characters)')),
  content: v.pipe(StringSchema, v.check((content) => base64Bytes(content) !== undefined, 'Must be valid base64')),
  mimeType: v.pipe(StringSchema, v.regex(MIME_TYPE, 'Must be a MIME type (type/subtype)')),
  description: v.nullish(v.pipe(StringSchema, maxCharacters(1000, 'Must be at most 1000 characters'))),
  relationship: documented(v.nullish(oneOf(ATTACHMENT_RELATIONSHIPS)), { default: 'Unspecified' }),
});

const decodedTotal = (files: ReadonlyArray<{ content: string }>) => files.reduce((sum, file) => sum + (base64Bytes(file.content) ?? 0), 0);

export const attachDefinition = defineStep({
  name: 'attach',
  options: {
    entries: {
      attachments: documented(
        v.nullish(
          v.pipe(
            v.array(AttachmentSchema, 'Must be an array'),
            v.maxLength(MAX_ATTACHMENTS, `Must have at most ${MAX_ATTACHMENTS} files`),
            v.check((files) => decodedTotal(files) <= MAX_ATTACHMENT_BYTES, `The attachments must be at most ${MAX_ATTACHMENT_BYTES} bytes decoded in total`),
          ),
        ),
        { description: `Files embedded in the PDF (at most ${MAX_ATTACHMENTS}, ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB decoded in total); with pdfa they need PDF/A-3.` },
      ),
    },
    reads: ['eInvoice'],
    refused: { part: { attachments: { message: 'Applies to the merged file: set it in the top-level pdf' } } },
    plan: ({ attachments, eInvoice }, context): Attachment[] | undefined => {
      const files: Attachment[] = (attachments ?? []).map((file) => ({
        name: file.name,
        content: Buffer.from(file.content, 'base64'),
        mimeType: file.mimeType,
        description: file.description ?? undefined,
        relationship: file.relationship ?? 'Unspecified',
      }));
      const invoice = resolveInvoice(eInvoice as EInvoiceOutput | null | undefined, context);
      if (invoice) {
        const { fileName, relationship } = invoiceAttachment(invoice.profile);
        files.push({ name: fileName, content: Buffer.from(invoice.xml, 'utf8'), mimeType: 'text/xml', description: `${invoice.standard} invoice (${invoice.profile})`, relationship });
      }
      return files.length > 0 ? files : undefined;
    },
  },
  asks: (files: Attachment[]) => files.length > 0,
  build: async (files: Attachment[], context) => (await import('./attachments.js')).attachStep(files, () => context.now),
});
