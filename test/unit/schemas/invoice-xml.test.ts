import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readInvoiceXml } from '../../../lib/schemas/invoice-xml.js';
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
