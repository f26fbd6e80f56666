/**
 * Hybrid e-invoices (Factur-X 1.0 / ZUGFeRD 2.x, one format under two
 * names): the UN/CEFACT CII invoice XML checked before anything renders,
 * its profile read from the guideline identifier, and what the standard
 * prescribes for the PDF: the embedded file's name and relationship and the
 * `fx` XMP properties with their PDF/A extension schema.
 */
import { E_INVOICE_PROFILES, type EInvoiceProfile } from './invoice-xml.js';
import { extensionSchema } from './xmp.js';
import { escapeXml } from './xmp.js';

export { E_INVOICE_PROFILES, E_INVOICE_STANDARDS, profileOfGuideline, readInvoiceXml } from './invoice-xml.js';
export type { EInvoiceProfile, EInvoiceStandard } from './invoice-xml.js';

/** The relationship of the invoice XML to the PDF, and the name it is embedded under. */
export function invoiceAttachment(profile: EInvoiceProfile): { fileName: string; relationship: 'Alternative' | 'Data' } {
  return {
    // XRechnung files carry their own name so receivers do not read them as plain Factur-X.
    fileName: profile === 'XRECHNUNG' ? 'xrechnung.xml' : 'factur-x.xml',
    // MINIMUM and BASIC WL are no full invoice (no lines): the PDF stays the invoice and the XML is data.
    relationship: profile === 'MINIMUM' || profile === 'BASIC WL' ? 'Data' : 'Alternative',
  };
}

const FX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';

/** The `fx` XMP properties and the extension schema PDF/A needs to accept them. */
export function invoiceXmp(profile: EInvoiceProfile): { descriptions: string[]; extensionSchemas: string[] } {
  const { fileName } = invoiceAttachment(profile);
  return {
    descriptions: [
      `<rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}">` +
        '<fx:DocumentType>INVOICE</fx:DocumentType>' +
        `<fx:DocumentFileName>${escapeXml(fileName)}</fx:DocumentFileName>` +
        '<fx:Version>1.0</fx:Version>' +
        `<fx:ConformanceLevel>${escapeXml(profile)}</fx:ConformanceLevel>` +
        '</rdf:Description>',
    ],
    extensionSchemas: [
      extensionSchema('Factur-X PDFA Extension Schema', FX_NAMESPACE, 'fx', [
        ['DocumentFileName', 'Text', 'name of the embedded XML invoice file', 'external'],
        ['DocumentType', 'Text', 'INVOICE', 'external'],
        ['Version', 'Text', 'The actual version of the Factur-X XML schema', 'external'],
        ['ConformanceLevel', 'Text', 'The conformance level of the embedded Factur-X data', 'external'],
      ]),
    ],
  };
}
