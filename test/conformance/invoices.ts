/**
 * Sample e-invoices for the conformance tests: one `templateData` object that
 * fills both the visible invoice (HTML) and the CII invoice XML, as a user
 * would use `page.htmlTemplate` with `pdf.eInvoice.xmlTemplate`. One XML
 * template per profile: each profile allows (and requires) other elements.
 */
import Handlebars from 'handlebars';

/** Guideline identifiers, as the standard writes them. */
export const GUIDELINES = {
  MINIMUM: 'urn:factur-x.eu:1p0:minimum',
  'BASIC WL': 'urn:factur-x.eu:1p0:basicwl',
  BASIC: 'urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic',
  'EN 16931': 'urn:cen.eu:en16931:2017',
  EXTENDED: 'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended',
  XRECHNUNG: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
} as const;
export type Profile = keyof typeof GUIDELINES;
export const PROFILES = Object.keys(GUIDELINES) as Profile[];

/** The invoice's data: pre-formatted the way CII wants it (dates YYYYMMDD, amounts with two decimals). */
export const INVOICE_DATA = {
  number: 'INV-2041',
  issued: '20260301',
  due: '20260331',
  buyerReference: '04011000-12345-03',
  currency: 'EUR',
  seller: {
    name: "Müller & Söhne's Beratung GmbH",
    street: 'Friedrichstraße 1',
    postcode: '10115',
    city: 'Berlin',
    country: 'DE',
    vatId: 'DE123456789',
    email: 'billing@seller.example',
    contact: 'Anna Schmidt',
    phone: '+49 30 1234567',
    iban: 'DE02120300000000202051',
  },
  buyer: { name: 'Käufer AG', street: 'Marienplatz 2', postcode: '80331', city: 'München', country: 'DE', email: 'ap@buyer.example' },
  lines: [
    { id: '1', item: 'Consulting <strategy>', quantity: '2', unit: 'HUR', price: '150.00', total: '300.00' },
    { id: '2', item: 'Workshop "Archiving"', quantity: '1', unit: 'C62', price: '200.00', total: '200.00' },
  ],
  vatRate: '19.00',
  net: '500.00',
  vat: '95.00',
  gross: '595.00',
};

const NAMESPACES =
  'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" ' +
  'xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100" ' +
  'xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" ' +
  'xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
  'xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"';

const address = (party: 'seller' | 'buyer', full: boolean) =>
  full
    ? `<ram:PostalTradeAddress><ram:PostcodeCode>{{${party}.postcode}}</ram:PostcodeCode><ram:LineOne>{{${party}.street}}</ram:LineOne>` +
      `<ram:CityName>{{${party}.city}}</ram:CityName><ram:CountryID>{{${party}.country}}</ram:CountryID></ram:PostalTradeAddress>`
    : `<ram:PostalTradeAddress><ram:CountryID>{{${party}.country}}</ram:CountryID></ram:PostalTradeAddress>`;

/** The Handlebars template of the CII XML for `profile`. */
export function invoiceXmlTemplate(profile: Profile): string {
  const minimum = profile === 'MINIMUM';
  const lines = !minimum && profile !== 'BASIC WL';
  const xrechnung = profile === 'XRECHNUNG';
  const lineItems = lines
    ? '{{#each lines}}<ram:IncludedSupplyChainTradeLineItem>' +
      '<ram:AssociatedDocumentLineDocument><ram:LineID>{{id}}</ram:LineID></ram:AssociatedDocumentLineDocument>' +
      '<ram:SpecifiedTradeProduct><ram:Name>{{item}}</ram:Name></ram:SpecifiedTradeProduct>' +
      '<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>{{price}}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>' +
      '<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="{{unit}}">{{quantity}}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>' +
      '<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode>' +
      '<ram:RateApplicablePercent>{{../vatRate}}</ram:RateApplicablePercent></ram:ApplicableTradeTax>' +
      '<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>{{total}}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>' +
      '</ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>{{/each}}'
    : '';
  const sellerContact = xrechnung
    ? '<ram:DefinedTradeContact><ram:PersonName>{{seller.contact}}</ram:PersonName>' +
      '<ram:TelephoneUniversalCommunication><ram:CompleteNumber>{{seller.phone}}</ram:CompleteNumber></ram:TelephoneUniversalCommunication>' +
      '<ram:EmailURIUniversalCommunication><ram:URIID>{{seller.email}}</ram:URIID></ram:EmailURIUniversalCommunication></ram:DefinedTradeContact>'
    : '';
  const sellerUri = xrechnung ? '<ram:URIUniversalCommunication><ram:URIID schemeID="EM">{{seller.email}}</ram:URIID></ram:URIUniversalCommunication>' : '';
  const buyerUri = xrechnung ? '<ram:URIUniversalCommunication><ram:URIID schemeID="EM">{{buyer.email}}</ram:URIID></ram:URIUniversalCommunication>' : '';
  const settlementDetails = minimum
    ? ''
    : '<ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode>' +
      '<ram:PayeePartyCreditorFinancialAccount><ram:IBANID>{{seller.iban}}</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>' +
      '<ram:ApplicableTradeTax><ram:CalculatedAmount>{{vat}}</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>{{net}}</ram:BasisAmount>' +
      '<ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>{{vatRate}}</ram:RateApplicablePercent></ram:ApplicableTradeTax>' +
      '<ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">{{due}}</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>';
  const lineTotal = minimum ? '' : '<ram:LineTotalAmount>{{net}}</ram:LineTotalAmount>';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice ${NAMESPACES}>` +
    `<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${GUIDELINES[profile]}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>` +
    '<rsm:ExchangedDocument><ram:ID>{{number}}</ram:ID><ram:TypeCode>380</ram:TypeCode>' +
    '<ram:IssueDateTime><udt:DateTimeString format="102">{{issued}}</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>' +
    '<rsm:SupplyChainTradeTransaction>' +
    lineItems +
    '<ram:ApplicableHeaderTradeAgreement>' +
    (minimum || xrechnung ? '<ram:BuyerReference>{{buyerReference}}</ram:BuyerReference>' : '') +
    `<ram:SellerTradeParty><ram:Name>{{seller.name}}</ram:Name>${sellerContact}${address('seller', !minimum)}${sellerUri}` +
    '<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{{seller.vatId}}</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>' +
    `<ram:BuyerTradeParty><ram:Name>{{buyer.name}}</ram:Name>${minimum ? '' : address('buyer', true)}${buyerUri}</ram:BuyerTradeParty>` +
    '</ram:ApplicableHeaderTradeAgreement>' +
    (minimum
      ? '<ram:ApplicableHeaderTradeDelivery/>'
      : '<ram:ApplicableHeaderTradeDelivery><ram:ActualDeliverySupplyChainEvent><ram:OccurrenceDateTime>' +
        '<udt:DateTimeString format="102">{{issued}}</udt:DateTimeString></ram:OccurrenceDateTime></ram:ActualDeliverySupplyChainEvent></ram:ApplicableHeaderTradeDelivery>') +
    '<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>{{currency}}</ram:InvoiceCurrencyCode>' +
    settlementDetails +
    `<ram:SpecifiedTradeSettlementHeaderMonetarySummation>${lineTotal}<ram:TaxBasisTotalAmount>{{net}}</ram:TaxBasisTotalAmount>` +
    '<ram:TaxTotalAmount currencyID="{{currency}}">{{vat}}</ram:TaxTotalAmount><ram:GrandTotalAmount>{{gross}}</ram:GrandTotalAmount>' +
    '<ram:DuePayableAmount>{{gross}}</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>' +
    '</ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>\n'
  );
}

const xmlEscape = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The invoice XML for `profile`, filled here (not by the service): what a caller would send as `xml`. */
export function invoiceXml(profile: Profile, data: unknown = INVOICE_DATA): string {
  const env = Handlebars.create();
  // Caller-side XML escaping, so that the `xml` and `xmlTemplate` paths are checked independently.
  (env.Utils as { escapeExpression: (v: unknown) => string }).escapeExpression = xmlEscape;
  return env.compile(invoiceXmlTemplate(profile))(data);
}

/** The visible invoice, a Handlebars page filled with the same data. */
export const INVOICE_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Rechnung {{number}}</title>
<style>body{font-family:sans-serif;margin:2cm} table{border-collapse:collapse;width:100%} td,th{border-bottom:1px solid #999;padding:4px;text-align:left}</style></head>
<body><h1>Rechnung {{number}}</h1>
<p>{{seller.name}}, {{seller.street}}, {{seller.postcode}} {{seller.city}}</p>
<p>An: {{buyer.name}}, {{buyer.street}}, {{buyer.postcode}} {{buyer.city}}</p>
<table><thead><tr><th>Pos.</th><th>Leistung</th><th>Menge</th><th>Preis</th><th>Betrag</th></tr></thead>
<tbody>{{#each lines}}<tr><td>{{id}}</td><td>{{item}}</td><td>{{quantity}}</td><td>{{price}} {{../currency}}</td><td>{{total}} {{../currency}}</td></tr>{{/each}}</tbody></table>
<p>Netto {{net}} {{currency}}, USt {{vatRate}} % {{vat}} {{currency}}, <strong>Gesamt {{gross}} {{currency}}</strong></p>
<p>Zahlbar bis {{due}} auf {{seller.iban}}.</p></body></html>`;
