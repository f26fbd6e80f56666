import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_INVOICE_XML_DEPTH, readInvoiceXml } from '../../../lib/finishing/steps/archive/invoice-xml.js';
import { invoiceXml } from '../../conformance/invoices.js';

describe('readInvoiceXml', () => {
  it('answers each text its own facts, whichever was read before it (the last reading is kept)', () => {
    // Prepare
    const basic = invoiceXml('BASIC');
    const en16931 = invoiceXml('EN 16931');
    const broken = `${en16931.slice(0, -20)}`;

    // Act: alternating texts, and the same text again as a new string.
    const readings = [basic, en16931, broken, `${basic}`, basic, en16931].map((xml) => readInvoiceXml(xml));

    // Assess
    const profiles = readings.map((facts) => ('problem' in facts ? 'problem' : facts.profile));
    assert.deepEqual(profiles, ['BASIC', 'EN 16931', 'problem', 'BASIC', 'BASIC', 'EN 16931']);
    const problem = readings[2] as { problem: string };
    assert.match(problem.problem, /^Not well-formed XML/);
  });
});

describe('readInvoiceXml on deeply nested XML', () => {
  /** A MINIMUM invoice with `levels` elements nested inside its root (so `levels + 1` deep in all). */
  const nested = (levels: number) => invoiceXml('MINIMUM').replace('</rsm:CrossIndustryInvoice>', `${'<x>'.repeat(levels)}${'</x>'.repeat(levels)}</rsm:CrossIndustryInvoice>`);

  it(`reads an invoice nested ${MAX_INVOICE_XML_DEPTH} elements deep`, () => {
    const facts = readInvoiceXml(nested(MAX_INVOICE_XML_DEPTH - 1));
    assert.deepEqual(facts, { guideline: 'urn:factur-x.eu:1p0:minimum', profile: 'MINIMUM' });
  });

  for (const levels of [MAX_INVOICE_XML_DEPTH, 1_000, 50_000]) {
    it(`answers a problem naming the bound, and throws nothing, for ${levels + 1} levels`, () => {
      const facts = readInvoiceXml(nested(levels));
      assert.deepEqual(facts, { problem: `Must not nest elements more than ${MAX_INVOICE_XML_DEPTH} levels deep` });
    });
  }
});

describe('readInvoiceXml on any text', () => {
  it('answers facts or a problem, and never throws, whatever the text (tags in any order and depth)', () => {
    const piece = fc.constantFrom('<a>', '</a>', '<b x="1">', '</b>', '<c/>', '<!--', '-->', '<![CDATA[', ']]>', '<?xml version="1.0"?>', '&amp;', '&', 'text', '<', '>', '"');
    const text = fc.oneof(fc.array(piece, { maxLength: 300 }).map((pieces) => pieces.join('')), fc.string({ maxLength: 300 }));
    fc.assert(
      fc.property(text, fc.nat({ max: 300 }), (body, depth) => {
        const xml = `<CrossIndustryInvoice>${'<d>'.repeat(depth)}${body}${'</d>'.repeat(depth)}</CrossIndustryInvoice>`;
        const facts = readInvoiceXml(xml);
        assert.equal(typeof facts, 'object');
      }),
    );
  });
});
