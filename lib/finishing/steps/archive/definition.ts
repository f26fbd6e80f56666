/**
 * The `archive` step (issue 22): the document's metadata, PDF/A and PDF/UA
 * identification, and an e-invoice's XMP. Its options are in archive-options.ts.
 */
import * as v from 'valibot';
import { documented, oneOf } from '../../../validation/field-builders.js';
import { PDFA_LEVELS, PRODUCER, type ArchivePlan, type PdfaLevel } from '../../pipeline/finishing-plan.js';
import { defineStep } from '../../pipeline/step-definition.js';
import { EInvoiceSchema, PdfMetadataSchema, resolveInvoice } from './archive-options.js';
import { invoiceXmp } from './e-invoice.js';

/** The PDF/A-2 levels: they cannot embed files, so neither attachments nor an e-invoice. */
const PART_2 = PDFA_LEVELS.filter((level) => level.startsWith('PDF/A-2'));

const date = (value: string | null | undefined) => (value != null ? new Date(value) : undefined);

const MERGED_FILE = 'Applies to the merged file: set it in the top-level pdf';

export const archiveDefinition = defineStep({
  name: 'archive',
  options: {
    entries: {
      metadata: documented(v.nullish(PdfMetadataSchema), { description: 'Document information and XMP metadata; title defaults to the page title, language to its lang.' }),
      pdfa: documented(v.nullish(oneOf(PDFA_LEVELS)), { description: 'Makes the PDF conform to this PDF/A part and level.' }),
      pdfua: documented(v.nullish(v.boolean('Must be a boolean')), { default: false, description: 'PDF/UA-1: tagged output with the title shown and the language set.' }),
      eInvoice: documented(v.nullish(EInvoiceSchema), { description: 'Makes a hybrid e-invoice (Factur-X / ZUGFeRD): PDF/A-3 with the invoice XML embedded.' }),
    },
    conflicts: [
      { when: [{ field: 'pdfa', oneOf: PART_2 }, { field: 'attachments', given: true }], message: 'PDF/A-2 cannot carry attachments: use PDF/A-3b or PDF/A-3u' },
      {
        when: [{ field: 'pdfa', oneOf: PART_2 }, { field: 'eInvoice', given: true }],
        message: 'An e-invoice is a PDF/A-3 document: use PDF/A-3b or PDF/A-3u, or leave pdfa out',
      },
    ],
    refused: {
      part: { metadata: { message: MERGED_FILE }, pdfa: { message: MERGED_FILE }, pdfua: { message: MERGED_FILE }, eInvoice: { message: MERGED_FILE } },
      existing: {
        pdfua: {
          message: 'Does not apply to an existing PDF: PDF/UA needs the structure a print of the page writes, which cannot be checked on a file that exists',
        },
        eInvoice: { field: 'xmlTemplate', message: 'An existing PDF has no page.templateData to fill a template with: give the invoice XML itself (xml)' },
      },
    },
    plan: ({ metadata, pdfa, pdfua, eInvoice }, context): ArchivePlan | undefined => {
      const invoice = resolveInvoice(eInvoice, context);
      if (metadata == null && pdfa == null && pdfua !== true && !invoice) return undefined;
      const meta = metadata ?? {};
      // An e-invoice is PDF/A-3: 3b unless the caller asked for 3u.
      const level: PdfaLevel | undefined = invoice ? (pdfa === 'PDF/A-3u' ? 'PDF/A-3u' : 'PDF/A-3b') : (pdfa ?? undefined);
      return {
        metadata: {
          title: meta.title ?? undefined,
          author: meta.author ?? undefined,
          subject: meta.subject ?? undefined,
          keywords: meta.keywords ?? undefined,
          creator: meta.creator ?? undefined,
          language: meta.language ?? undefined,
          creationDate: date(meta.creationDate),
          modificationDate: date(meta.modificationDate),
        },
        pdfua: pdfua === true,
        ...(level ? { pdfa: level } : {}),
        ...(invoice ? { xmp: invoiceXmp(invoice.profile) } : {}),
      };
    },
  },
  build: async ({ metadata, pdfa, pdfua, xmp }: ArchivePlan, context) =>
    (await import('./archive.js')).archiveStep({
      metadata: { ...metadata, title: metadata.title ?? context.facts.title, language: metadata.language ?? context.facts.language },
      producer: PRODUCER,
      ...(pdfa ? { pdfa } : {}),
      pdfua,
      ...(xmp ? { xmp } : {}),
      now: () => context.now,
    }),
});
