/**
 * The e-invoice XML as the boundary checks it (Factur-X 1.0 / ZUGFeRD 2.x):
 * well-formed UN/CEFACT CII, its profile read from the guideline identifier.
 * lib/finishing/steps/archive/e-invoice.ts makes the PDF's parts of it.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** The profiles, in the names the standard's XMP uses. */
export const E_INVOICE_PROFILES = ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'XRECHNUNG'] as const;
export type EInvoiceProfile = (typeof E_INVOICE_PROFILES)[number];

export const E_INVOICE_STANDARDS = ['Factur-X', 'ZUGFeRD'] as const;
export type EInvoiceStandard = (typeof E_INVOICE_STANDARDS)[number];

/**
 * Guideline identifiers (`ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID`)
 * of each profile. XRechnung's carries its version (2.x, 3.x): a prefix match.
 */
const GUIDELINES: Array<{ profile: EInvoiceProfile; id: string; prefix?: boolean }> = [
  { profile: 'MINIMUM', id: 'urn:factur-x.eu:1p0:minimum' },
  { profile: 'BASIC WL', id: 'urn:factur-x.eu:1p0:basicwl' },
  { profile: 'BASIC', id: 'urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic' },
  { profile: 'EN 16931', id: 'urn:cen.eu:en16931:2017' },
  { profile: 'EXTENDED', id: 'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended' },
  { profile: 'XRECHNUNG', id: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_', prefix: true },
];

/** The profile a guideline identifier names, if any. */
export function profileOfGuideline(id: string): EInvoiceProfile | undefined {
  const trimmed = id.trim();
  return GUIDELINES.find((g) => (g.prefix ? trimmed.startsWith(g.id) : trimmed === g.id))?.profile;
}

/** A problem with the invoice XML, phrased for the `fields` map of a 400. */
export type InvoiceXmlProblem = { problem: string };

/** What reading the XML found. */
export type InvoiceXmlFacts = { guideline?: string; profile?: EInvoiceProfile };

/**
 * Deepest element nesting an invoice may have. A CII invoice nests about ten
 * levels; the parser refuses deeper input itself (stated here, so an upgrade
 * cannot change it), and the refusal is a problem of the field, never a 500.
 */
export const MAX_INVOICE_XML_DEPTH = 100;

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  processEntities: false,
  // The parser counts the elements above the one it opens: the root is not among them.
  maxNestedTags: MAX_INVOICE_XML_DEPTH - 1,
});

/** The text of a parsed node that may be a string or an object with `#text`. */
function text(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object' && '#text' in node) return String((node as { '#text': unknown })['#text']);
  return undefined;
}

/**
 * Checks that `xml` is well-formed and a CII invoice (root element
 * `CrossIndustryInvoice`, in any prefix), and reads its guideline
 * identifier. Answers the problem (the parser's reason and line) or the facts.
 */
export function readInvoiceXml(xml: string): InvoiceXmlProblem | InvoiceXmlFacts {
  // One request reads its XML three times (the field's check, the profile's, the plan's): the last
  // reading is kept, as its result depends on the text alone. Parsing an invoice of a few kilobytes
  // twice more took 2.5 ms of the request's CPU.
  if (last?.xml !== xml) last = { xml, facts: readUncached(xml) };
  return last.facts;
}

let last: { xml: string; facts: InvoiceXmlProblem | InvoiceXmlFacts } | undefined;

function readUncached(xml: string): InvoiceXmlProblem | InvoiceXmlFacts {
  try {
    return readChecked(xml);
  } catch (error) {
    // The parser throws on what it refuses (nesting past its bound, and whatever a later version adds):
    // the caller's XML is at fault, so it is the field's problem, not the service's.
    const reason = error instanceof Error ? error.message : String(error);
    if (/nested/i.test(reason)) return { problem: `Must not nest elements more than ${MAX_INVOICE_XML_DEPTH} levels deep` };
    return { problem: `Not readable XML: ${reason.slice(0, 200)}` };
  }
}

function readChecked(xml: string): InvoiceXmlProblem | InvoiceXmlFacts {
  // A DOCTYPE is where entity expansion and external entities live; an invoice never needs one.
  if (/<!DOCTYPE/i.test(xml)) return { problem: 'Must not contain a DOCTYPE declaration' };
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    return { problem: `Not well-formed XML: ${verdict.err.msg} (line ${verdict.err.line}, column ${verdict.err.col})` };
  }
  const doc = parser.parse(xml) as Record<string, unknown>;
  const roots = Object.keys(doc).filter((key) => !key.startsWith('?'));
  if (roots.length !== 1 || roots[0] !== 'CrossIndustryInvoice') {
    return { problem: `The root element must be CrossIndustryInvoice (UN/CEFACT CII), not ${roots[0] ?? 'none'}` };
  }
  const root = doc.CrossIndustryInvoice as Record<string, unknown> | undefined;
  const context = (root?.ExchangedDocumentContext ?? {}) as Record<string, unknown>;
  const parameter = context.GuidelineSpecifiedDocumentContextParameter as Record<string, unknown> | undefined;
  const guideline = text(parameter?.ID);
  return { guideline, profile: guideline ? profileOfGuideline(guideline) : undefined };
}

