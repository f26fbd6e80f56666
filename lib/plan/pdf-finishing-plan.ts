/**
 * From a render's `pdf` options to its finishing plan (issue 22): metadata,
 * PDF/A, PDF/UA (the `archive` stage), attachments with the e-invoice XML
 * (the `attach` stage), watermark (`stamp`, issue 23), protection (`protect`),
 * page choice and rotation (`pages`), form filling and flattening (`form`, issue 32)
 * and compression (`compress`, issue 34). The invoice XML is resolved and checked here, at the
 * edge, so a bad one is a 400 and nothing renders.
 */
import { ValidationError } from '../errors.js';
import type { Attachment, PdfaLevel } from '../finishing/pipeline/finishing-plan.js';
import { invoiceAttachment, invoiceXmp, readInvoiceXml, type EInvoiceProfile } from '../finishing/steps/archive/e-invoice.js';
import type { CompressPlan, FormPlan, PagesPlan, ProtectPlan, SignPlan, StampPlan } from '../finishing/pipeline/finishing-plan.js';
import type { FinishingPlan } from '../finishing/pipeline/registry.js';
import { MAX_INVOICE_XML_BYTES, profileProblem } from '../schemas/pdf-finishing.js';
import type { SignatureOutput } from '../schemas/pdf-signature.js';
import { decodeWatermarkImage, type ProtectionOutput, type WatermarkOutput } from '../schemas/protection-watermark.js';
import { RENDER_DEFAULTS } from '../schemas/render-defaults.js';
import type { PdfOptionsOutput } from '../schemas/render-options.js';
import { needTemplates, type TemplateRenderer } from '../templates/template-engine.js';

/** The e-invoice XML of a render, ready to embed. */
export type ResolvedInvoice = { xml: string; profile: EInvoiceProfile };

/**
 * The invoice XML: `xml` decoded, or `xmlTemplate` rendered with the page's
 * `templateData` by the same Handlebars (helpers, bounds) with XML escaping,
 * then checked as the schema checks `xml` (well-formed, CII root, profile).
 */
export function resolveInvoice(
  pdf: Pick<PdfOptionsOutput, 'eInvoice'> | null | undefined,
  templateData: Record<string, unknown> | null | undefined,
  templates?: TemplateRenderer,
): ResolvedInvoice | undefined {
  const invoice = pdf?.eInvoice;
  if (!invoice) return undefined;
  const field = invoice.xml != null ? 'pdf.eInvoice.xml' : 'pdf.eInvoice.xmlTemplate';
  const xml =
    invoice.xml != null
      ? Buffer.from(invoice.xml, 'base64').toString('utf8')
      : needTemplates(templates)(invoice.xmlTemplate ?? '', templateData ?? {}, { field, xml: true });
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

const date = (value: string | null | undefined) => (value != null ? new Date(value) : undefined);

/** The finishing options of a `pdf` object: a render's, or a merge's top-level one. */
type FinishingOptions = Pick<
  PdfOptionsOutput,
  'metadata' | 'pdfa' | 'pdfua' | 'attachments' | 'eInvoice' | 'watermark' | 'protection' | 'signature' | 'pages' | 'rotate' | 'form' | 'flatten' | 'compress' | 'preview'
>;

/** The finishing plan the `pdf` options ask for; `templateData` fills an invoice `xmlTemplate` (rendered by `templates`). */
export function pdfFinishingPlan(pdf: FinishingOptions | null | undefined, templateData?: Record<string, unknown> | null, templates?: TemplateRenderer): FinishingPlan {
  if (!pdf) return {};
  const invoice = resolveInvoice(pdf, templateData, templates);
  const plan: FinishingPlan = {};
  if (pdf.metadata != null || pdf.pdfa != null || pdf.pdfua === true || invoice) {
    const meta = pdf.metadata ?? {};
    // An e-invoice is PDF/A-3: 3b unless the caller asked for 3u.
    const pdfa: PdfaLevel | undefined = invoice ? (pdf.pdfa === 'PDF/A-3u' ? 'PDF/A-3u' : 'PDF/A-3b') : (pdf.pdfa ?? undefined);
    const metadata = {
      title: meta.title ?? undefined,
      author: meta.author ?? undefined,
      subject: meta.subject ?? undefined,
      keywords: meta.keywords ?? undefined,
      creator: meta.creator ?? undefined,
      language: meta.language ?? undefined,
      creationDate: date(meta.creationDate),
      modificationDate: date(meta.modificationDate),
    };
    plan.archive = { metadata, pdfua: pdf.pdfua === true, ...(pdfa ? { pdfa } : {}), ...(invoice ? { xmp: invoiceXmp(invoice.profile) } : {}) };
  }
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
    files.push({ name: fileName, content: Buffer.from(invoice.xml, 'utf8'), mimeType: 'text/xml', description: `${standard} invoice (${invoice.profile})`, relationship });
  }
  if (files.length > 0) plan.attach = files;
  const pages = pagesPlan(pdf);
  if (pages) plan.pages = pages;
  const form = formPlan(pdf);
  if (form) plan.form = form;
  if (pdf.watermark != null) plan.stamp = stampPlan(pdf.watermark);
  if (pdf.compress != null && pdf.compress !== false) plan.compress = compressPlan(pdf.compress);
  if (pdf.protection != null) plan.protect = protectPlan(pdf.protection);
  if (pdf.signature != null) plan.sign = signPlan(pdf.signature);
  if (pdf.preview != null) plan.preview = { width: pdf.preview.width ?? RENDER_DEFAULTS.preview.width, type: pdf.preview.type ?? RENDER_DEFAULTS.preview.type };
  return plan;
}

/** The page choice and rotation, or undefined when the document keeps its pages as printed. */
function pagesPlan(pdf: Pick<FinishingOptions, 'pages' | 'rotate'>): PagesPlan | undefined {
  const order = pdf.pages != null && pdf.pages.trim() !== '' ? pdf.pages : undefined;
  if (order === undefined && pdf.rotate == null) return undefined;
  return {
    ...(order !== undefined ? { order } : {}),
    ...(pdf.rotate != null ? { rotate: { angle: pdf.rotate.angle, pages: pdf.rotate.pages ?? '' } } : {}),
  };
}

/** The values to fill and what to flatten after, or undefined when the form is left alone. */
function formPlan(pdf: Pick<FinishingOptions, 'form' | 'flatten'>): FormPlan | undefined {
  const flatten = pdf.flatten === true ? 'all' : pdf.form?.flatten === true ? 'fields' : 'none';
  if (pdf.form == null && flatten === 'none') return undefined;
  return { ...(pdf.form != null ? { fields: pdf.form.fields } : {}), flatten };
}

/** The signature with its defaults applied and its appearance image decoded (the schema has checked it). */
function signPlan(signature: SignatureOutput): SignPlan {
  const plan: SignPlan = { signer: signature.signer ?? 'default', level: signature.level ?? 'B-B' };
  for (const key of ['reason', 'location', 'contactInfo', 'name'] as const) {
    const value = signature[key];
    if (value != null) plan[key] = value;
  }
  if (signature.certify != null) plan.certify = signature.certify;
  const appearance = signature.appearance;
  if (appearance != null) {
    const { page, x, y, width, height } = appearance;
    plan.appearance = { page, x, y, width, height };
    if (appearance.text != null) plan.appearance.text = appearance.text;
    if (appearance.image != null) {
      const decoded = decodeWatermarkImage(appearance.image);
      if ('problem' in decoded) throw new ValidationError({ 'pdf.signature.appearance.image': decoded.problem });
      plan.appearance.image = decoded;
    }
  }
  return plan;
}

/** The watermark with its defaults applied and its image decoded (the schema has checked it). */
function stampPlan(watermark: WatermarkOutput): StampPlan {
  const defaults = RENDER_DEFAULTS.watermark;
  let mark: StampPlan['mark'];
  if (watermark.image != null) {
    const decoded = decodeWatermarkImage(watermark.image);
    if ('problem' in decoded) throw new ValidationError({ 'pdf.watermark.image': decoded.problem });
    mark = { image: decoded };
  } else {
    mark = { text: watermark.text ?? '', fontSize: watermark.fontSize ?? defaults.fontSize, color: watermark.color ?? defaults.color };
  }
  return {
    mark,
    opacity: watermark.opacity ?? defaults.opacity,
    rotation: watermark.rotation ?? defaults.rotation,
    position: watermark.position ?? defaults.position,
    layer: watermark.layer ?? defaults.layer,
    pages: watermark.pages ?? '',
  };
}

/** The compression settings, every default applied: `true` is all of them. */
function compressPlan(compress: true | { imageQuality?: number | null; maxImageDpi?: number | null; grayscale?: boolean | null }): CompressPlan {
  const defaults = RENDER_DEFAULTS.compress;
  const asked = compress === true ? {} : compress;
  return {
    imageQuality: asked.imageQuality ?? defaults.imageQuality,
    maxImageDpi: asked.maxImageDpi ?? defaults.maxImageDpi,
    grayscale: asked.grayscale ?? defaults.grayscale,
  };
}

/** The passwords, and every permission decided: an unset one is allowed (the table's defaults). */
function protectPlan(protection: ProtectionOutput): ProtectPlan {
  const defaults = RENDER_DEFAULTS.protectionPermissions;
  const asked = protection.permissions ?? {};
  return {
    ...(protection.userPassword != null ? { userPassword: protection.userPassword } : {}),
    ...(protection.ownerPassword != null ? { ownerPassword: protection.ownerPassword } : {}),
    permissions: {
      print: asked.print ?? defaults.print,
      modify: asked.modify ?? defaults.modify,
      copy: asked.copy ?? defaults.copy,
      annotate: asked.annotate ?? defaults.annotate,
      fillForms: asked.fillForms ?? defaults.fillForms,
      accessibility: asked.accessibility ?? defaults.accessibility,
      assemble: asked.assemble ?? defaults.assemble,
    },
  };
}
