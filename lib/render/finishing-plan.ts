/**
 * From a render's `pdf` options to the finishing steps it asks for (issue
 * 22): metadata, PDF/A, PDF/UA (the `archive` stage) and attachments with
 * the e-invoice XML (the `attach` stage). The invoice XML is resolved and
 * checked before the page loads, so a bad one is a 400 and nothing renders.
 */
import type { Page } from 'puppeteer-core';
import { ValidationError } from '../errors.js';
import { archiveStep, type PdfaLevel } from '../finishing/archive.js';
import { attachStep, type Attachment } from '../finishing/attachments.js';
import { invoiceAttachment, invoiceXmp, readInvoiceXml, type EInvoiceProfile } from '../finishing/e-invoice.js';
import type { FinishingSteps } from '../finishing/finish-pdf.js';
import { MAX_INVOICE_XML_BYTES, profileProblem } from '../schemas/pdf-finishing.js';
import type { PageOptionsOutput, PdfOptionsOutput } from '../schemas/render-options.js';
import { renderHandlebars } from './handlebars.js';

/** Names the service as the PDF's producer. */
export const PRODUCER = 'DocRender';

/** The e-invoice XML of a render, ready to embed. */
export type ResolvedInvoice = { xml: string; profile: EInvoiceProfile };

/** What the page says of itself, for metadata the caller left out. */
export type PageFacts = { title?: string; language?: string };

/** True when the `pdf` options ask for any finishing step. */
export function wantsFinishing(pdf: PdfOptionsOutput | null | undefined): boolean {
  return Boolean(pdf && (pdf.metadata != null || pdf.pdfa != null || pdf.pdfua === true || (pdf.attachments?.length ?? 0) > 0 || pdf.eInvoice != null));
}

/**
 * The invoice XML: `xml` decoded, or `xmlTemplate` rendered with the page's
 * `templateData` by the same Handlebars (helpers, bounds) with XML escaping,
 * then checked as the schema checks `xml` (well-formed, CII root, profile).
 */
export function resolveInvoice(pdf: PdfOptionsOutput | null | undefined, page: PageOptionsOutput): ResolvedInvoice | undefined {
  const invoice = pdf?.eInvoice;
  if (!invoice) return undefined;
  const field = invoice.xml != null ? 'pdf.eInvoice.xml' : 'pdf.eInvoice.xmlTemplate';
  const xml =
    invoice.xml != null
      ? Buffer.from(invoice.xml, 'base64').toString('utf8')
      : renderHandlebars(invoice.xmlTemplate ?? '', page.templateData ?? {}, { field, xml: true });
  if (Buffer.byteLength(xml) > MAX_INVOICE_XML_BYTES) throw new ValidationError({ [field]: `The invoice XML must be at most ${MAX_INVOICE_XML_BYTES} bytes` });
  const problem = profileProblem(xml, invoice.profile);
  if (problem) {
    const fields: Record<string, string> = { [field]: problem };
    if (invoice.profile && !/^(Not well-formed|The root element|Must not contain)/.test(problem)) fields['pdf.eInvoice.profile'] = problem;
    throw new ValidationError(fields);
  }
  const facts = readInvoiceXml(xml);
  return { xml, profile: ('profile' in facts && facts.profile) || (invoice.profile as EInvoiceProfile) };
}

/** Reads the page's title and language (the `lang` of its root element). */
export async function readPageFacts(page: Page): Promise<PageFacts> {
  const facts = await page.evaluate(() => ({ title: document.title, language: document.documentElement.lang }));
  return { title: facts.title || undefined, language: facts.language || undefined };
}

const date = (value: string | null | undefined) => (value != null ? new Date(value) : undefined);

/** The finishing steps the `pdf` options ask for. */
export function finishingSteps(pdf: PdfOptionsOutput | null | undefined, facts: PageFacts, invoice?: ResolvedInvoice): FinishingSteps {
  if (!pdf || !wantsFinishing(pdf)) return {};
  const meta = pdf.metadata ?? {};
  // An e-invoice is PDF/A-3: 3b unless the caller asked for 3u.
  const pdfa: PdfaLevel | undefined = invoice ? (pdf.pdfa === 'PDF/A-3u' ? 'PDF/A-3u' : 'PDF/A-3b') : (pdf.pdfa ?? undefined);
  const now = new Date();
  const steps: FinishingSteps = {
    archive: archiveStep({
      metadata: {
        title: meta.title ?? facts.title,
        author: meta.author ?? undefined,
        subject: meta.subject ?? undefined,
        keywords: meta.keywords ?? undefined,
        creator: meta.creator ?? undefined,
        language: meta.language ?? facts.language,
        creationDate: date(meta.creationDate),
        modificationDate: date(meta.modificationDate),
      },
      producer: PRODUCER,
      pdfa,
      pdfua: pdf.pdfua === true,
      xmp: invoice ? invoiceXmp(invoice.profile) : undefined,
      now: () => now,
    }),
  };
  const files: Attachment[] = (pdf.attachments ?? []).map((file) => ({
    name: file.name,
    content: Buffer.from(file.content, 'base64'),
    mimeType: file.mimeType,
    description: file.description ?? undefined,
    relationship: file.relationship ?? 'Unspecified',
  }));
  if (invoice) {
    const { fileName, relationship } = invoiceAttachment(invoice.profile);
    const standard = pdf.eInvoice?.standard ?? 'Factur-X';
    files.push({
      name: fileName,
      content: Buffer.from(invoice.xml, 'utf8'),
      mimeType: 'text/xml',
      description: `${standard} invoice (${invoice.profile})`,
      relationship,
    });
  }
  if (files.length > 0) steps.attach = attachStep(files, () => now);
  return steps;
}
