/**
 * The XMP packet of a finished PDF: the document information dictionary's
 * fields mirrored one for one (PDF/A requires the two to agree), the PDF/A
 * and PDF/UA identification, and the extension schemas PDF/A asks for when a
 * property is not one of XMP's predefined ones (pdfuaid in PDF/A-2, the
 * Factur-X `fx` properties).
 */

/** What the packet says; every field is optional except the dates. */
export type XmpFields = {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creator?: string;
  producer?: string;
  language?: string;
  creationDate: Date;
  modificationDate: Date;
  pdfa?: { part: 2 | 3; conformance: 'B' | 'U' };
  pdfua?: boolean;
  /** Whole `rdf:Description` elements to add (their schemas must be declared in `extensionSchemas`). */
  descriptions?: string[];
  /** `rdf:li` entries of `pdfaExtension:schemas`: one per non-predefined schema used. */
  extensionSchemas?: string[];
};

/** Escapes text for XML element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

/**
 * An XMP date at second precision in UTC: the Info dictionary's dates carry
 * seconds only, and PDF/A compares the two.
 */
export function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** One `pdfaProperty` of an extension schema. */
function property(name: string, valueType: string, description: string, category = 'internal'): string {
  return (
    '<rdf:li rdf:parseType="Resource">' +
    `<pdfaProperty:name>${name}</pdfaProperty:name>` +
    `<pdfaProperty:valueType>${valueType}</pdfaProperty:valueType>` +
    `<pdfaProperty:category>${category}</pdfaProperty:category>` +
    `<pdfaProperty:description>${escapeXml(description)}</pdfaProperty:description>` +
    '</rdf:li>'
  );
}

/** A PDF/A extension schema entry (`rdf:li` of `pdfaExtension:schemas`). */
export function extensionSchema(
  name: string,
  namespaceUri: string,
  prefix: string,
  properties: Array<[name: string, valueType: string, description: string, category?: string]>,
): string {
  return (
    '<rdf:li rdf:parseType="Resource">' +
    `<pdfaSchema:schema>${escapeXml(name)}</pdfaSchema:schema>` +
    `<pdfaSchema:namespaceURI>${escapeXml(namespaceUri)}</pdfaSchema:namespaceURI>` +
    `<pdfaSchema:prefix>${prefix}</pdfaSchema:prefix>` +
    `<pdfaSchema:property><rdf:Seq>${properties.map((p) => property(...p)).join('')}</rdf:Seq></pdfaSchema:property>` +
    '</rdf:li>'
  );
}

/** pdfuaid is not among PDF/A-2's predefined schemas, so a PDF/A + PDF/UA file declares it. */
const PDFUA_EXTENSION = extensionSchema('PDF/UA Universal Accessibility Schema', 'http://www.aiim.org/pdfua/ns/id/', 'pdfuaid', [
  ['part', 'Integer', 'Indicates, which part of ISO 14289 standard is followed'],
]);

/** Builds the XMP packet (UTF-8 text, with its xpacket wrapper) for `fields`. */
export function buildXmp(fields: XmpFields): string {
  const dc: string[] = ['<dc:format>application/pdf</dc:format>'];
  if (fields.title !== undefined) dc.push(`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(fields.title)}</rdf:li></rdf:Alt></dc:title>`);
  if (fields.author !== undefined) dc.push(`<dc:creator><rdf:Seq><rdf:li>${escapeXml(fields.author)}</rdf:li></rdf:Seq></dc:creator>`);
  if (fields.subject !== undefined) {
    dc.push(`<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(fields.subject)}</rdf:li></rdf:Alt></dc:description>`);
  }
  if (fields.language !== undefined) dc.push(`<dc:language><rdf:Bag><rdf:li>${escapeXml(fields.language)}</rdf:li></rdf:Bag></dc:language>`);

  const xmp = [
    `<xmp:CreateDate>${xmpDate(fields.creationDate)}</xmp:CreateDate>`,
    `<xmp:ModifyDate>${xmpDate(fields.modificationDate)}</xmp:ModifyDate>`,
    `<xmp:MetadataDate>${xmpDate(fields.modificationDate)}</xmp:MetadataDate>`,
  ];
  if (fields.creator !== undefined) xmp.push(`<xmp:CreatorTool>${escapeXml(fields.creator)}</xmp:CreatorTool>`);

  const pdf: string[] = [];
  if (fields.producer !== undefined) pdf.push(`<pdf:Producer>${escapeXml(fields.producer)}</pdf:Producer>`);
  if (fields.keywords !== undefined) pdf.push(`<pdf:Keywords>${escapeXml(fields.keywords)}</pdf:Keywords>`);

  const descriptions = [
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">${dc.join('')}</rdf:Description>`,
    `<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">${xmp.join('')}</rdf:Description>`,
  ];
  if (pdf.length > 0) descriptions.push(`<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">${pdf.join('')}</rdf:Description>`);
  if (fields.pdfa) {
    descriptions.push(
      '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">' +
        `<pdfaid:part>${fields.pdfa.part}</pdfaid:part><pdfaid:conformance>${fields.pdfa.conformance}</pdfaid:conformance>` +
        '</rdf:Description>',
    );
  }
  if (fields.pdfua) {
    descriptions.push('<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"><pdfuaid:part>1</pdfuaid:part></rdf:Description>');
  }
  descriptions.push(...(fields.descriptions ?? []));

  const schemas = [...(fields.pdfa && fields.pdfua ? [PDFUA_EXTENSION] : []), ...(fields.extensionSchemas ?? [])];
  if (fields.pdfa && schemas.length > 0) {
    descriptions.push(
      '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" ' +
        'xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
        `<pdfaExtension:schemas><rdf:Bag>${schemas.join('')}</rdf:Bag></pdfaExtension:schemas></rdf:Description>`,
    );
  }

  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    descriptions.join('\n') +
    '\n</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end="w"?>'
  );
}
