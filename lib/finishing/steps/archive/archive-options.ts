/**
 * The options the `archive` step owns (issue 22): `metadata` (the Info
 * dictionary and XMP, kept equal), `pdfa`, `pdfua` and `eInvoice` (a hybrid
 * e-invoice, Factur-X / ZUGFeRD: PDF/A-3 with the invoice XML embedded,
 * which the `attach` step reads). The invoice XML is resolved and checked
 * when the plan is made, so a bad one is a 400 and nothing renders.
 */
import * as v from 'valibot';
import { OptionError } from '../../../pdf/errors.js';
import { base64Bytes, tryDecodeBase64Text } from '../../../validation/base64-text.js';
import { maxCharacters } from '../../../validation/character-length.js';
import { closedObject } from '../../../validation/closed-object.js';
import { documented, oneOf } from '../../../validation/field-builders.js';
import type { PlanContext } from '../../pipeline/step-definition.js';
import { E_INVOICE_PROFILES, E_INVOICE_STANDARDS, MAX_INVOICE_XML_DEPTH, readInvoiceXml, type EInvoiceProfile } from './invoice-xml.js';

/** Largest invoice XML (decoded). */
export const MAX_INVOICE_XML_BYTES = 1024 * 1024;

const StringSchema = v.string('Must be a string');

function text(max: number) {
  return v.pipe(StringSchema, maxCharacters(max, `Must be at most ${max} characters`));
}

// RFC 5646 in its common shapes: language, optional script, region, variants (en, en-GB, zh-Hant-TW, de-CH-1996).
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z\d]{5,8}|\d[A-Za-z\d]{3}))*$/;

const DateTimeSchema = v.pipe(StringSchema, v.isoTimestamp('Must be an ISO 8601 date-time with a time zone (2026-03-01T09:30:00Z)'));

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

/** `pdf.eInvoice`. */
export const EInvoiceSchema = v.pipe(
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

export type EInvoiceOutput = v.InferOutput<typeof EInvoiceSchema>;

/** The e-invoice XML of a render, ready to embed. */
export type ResolvedInvoice = { xml: string; profile: EInvoiceProfile; standard: string };

/** Each plan context's invoice, resolved once: the archive and attach steps both read it. */
const resolved = new WeakMap<PlanContext, ResolvedInvoice>();

/**
 * The invoice XML: `xml` decoded, or `xmlTemplate` rendered with the page's
 * `templateData` (XML-escaped), then checked as the schema checks `xml`
 * (at most 1 MB, well-formed, CII root, profile).
 */
export function resolveInvoice(invoice: EInvoiceOutput | null | undefined, context: PlanContext): ResolvedInvoice | undefined {
  if (!invoice) return undefined;
  const known = resolved.get(context);
  if (known) return known;
  const field = invoice.xml != null ? 'eInvoice.xml' : 'eInvoice.xmlTemplate';
  let xml: string;
  if (invoice.xml != null) xml = Buffer.from(invoice.xml, 'base64').toString('utf8');
  else if (context.renderXmlTemplate) xml = context.renderXmlTemplate(invoice.xmlTemplate ?? '', context.templateData ?? {});
  else throw new OptionError({ [field]: 'An existing PDF has no page.templateData to fill a template with: give the invoice XML itself (xml)' });
  if (Buffer.byteLength(xml) > MAX_INVOICE_XML_BYTES) throw new OptionError({ [field]: `The invoice XML must be at most ${MAX_INVOICE_XML_BYTES} bytes` });
  const problem = profileProblem(xml, invoice.profile);
  if (problem) {
    const fields: Record<string, string> = { [field]: problem };
    if (invoice.profile && !/^(Not well-formed|The root element|Must not contain)/.test(problem)) fields['eInvoice.profile'] = problem;
    throw new OptionError(fields);
  }
  const facts = readInvoiceXml(xml);
  const answer = { xml, profile: ('profile' in facts && facts.profile) || (invoice.profile as EInvoiceProfile), standard: invoice.standard ?? 'Factur-X' };
  resolved.set(context, answer);
  return answer;
}
