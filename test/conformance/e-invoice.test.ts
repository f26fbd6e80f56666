import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { INVOICE_DATA, INVOICE_PAGE, PROFILES, invoiceXml, invoiceXmlTemplate, type Profile } from './invoices.js';
import { mustang, type MustangResult } from './validators/run-validators.js';

/**
 * Hybrid e-invoices of every supported profile, made by the running service
 * from one `templateData` (the visible invoice from `page.htmlTemplate`, the
 * XML from `xml` or from `xmlTemplate`), are valid for Mustang, the ZUGFeRD
 * community's validator: the PDF/A-3 file, its XMP and the XML (schema and
 * schematron of the profile). Needs Java 17 and Maven.
 */

type Made = { profile: Profile; source: 'xml' | 'xmlTemplate'; file: string; embedded: { name: string; xml: string } };

describe('e-invoices (Mustang)', () => {
  let service: RunningService;
  let dir: string;
  const made: Made[] = [];
  let results = new Map<string, MustangResult>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-einvoice-'));
    service = await startService();
    for (const profile of PROFILES) {
      for (const source of ['xml', 'xmlTemplate'] as const) {
        const eInvoice = source === 'xml' ? { xml: b64(invoiceXml(profile)) } : { xmlTemplate: b64(invoiceXmlTemplate(profile)), profile };
        const res = await service.request('/v1/pdf', {
          json: { page: { htmlTemplate: b64(INVOICE_PAGE), templateData: INVOICE_DATA }, pdf: { format: 'a4', eInvoice } },
        });
        const body = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.status, 200, `${profile} ${source}: ${Buffer.from(body).toString().slice(0, 300)}`);
        const file = join(dir, `${profile.replace(/\W/g, '')}-${source}.pdf`);
        writeFileSync(file, body);
        const [attachment] = (await PDFDocument.load(body)).getAttachments();
        assert.ok(attachment, `${profile} ${source}: an embedded file`);
        made.push({ profile, source, file, embedded: { name: attachment.name, xml: Buffer.from(attachment.data).toString('utf8') } });
      }
    }
    results = new Map((await mustang(made.map((m) => m.file))).map((r) => [r.file, r]));
  });

  after(async () => {
    await service?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const profile of PROFILES) {
    for (const source of ['xml', 'xmlTemplate'] as const) {
      it(`${profile} from ${source}: Mustang finds the PDF/A-3 and the XML valid`, () => {
        // Assess
        const entry = made.find((m) => m.profile === profile && m.source === source);
        assert.ok(entry, 'rendered');
        const result = results.get(entry.file);
        assert.ok(result, 'validated');
        const errors = result.report.match(/<error[^>]*>[\s\S]*?<\/error>/g) ?? [];
        assert.ok(result.valid, `Mustang: ${errors.join('\n') || result.report.slice(0, 2000)}`);
        assert.equal(entry.embedded.name, profile === 'XRECHNUNG' ? 'xrechnung.xml' : 'factur-x.xml');
      });
    }
  }

  it('an xmlTemplate that renders malformed XML answers 400 naming it, with the parser reason and line', async () => {
    // Act
    const res = await service.request('/v1/pdf', {
      json: { page: { htmlTemplate: b64(INVOICE_PAGE), templateData: INVOICE_DATA }, pdf: { eInvoice: { xmlTemplate: b64('<rsm:CrossIndustryInvoice xmlns:rsm="u">\n<a>{{number}}</b>\n</rsm:CrossIndustryInvoice>') } } },
    });
    // Assess
    assert.equal(res.status, 400);
    const body = (await res.json()) as { fields: Record<string, string> };
    assert.deepEqual(Object.keys(body.fields), ['pdf.eInvoice.xmlTemplate']);
    assert.match(body.fields['pdf.eInvoice.xmlTemplate'] ?? '', /^Not well-formed XML: .*line 2/);
  });

  it('an xmlTemplate of another profile than the one given answers 400 naming both fields', async () => {
    // Act
    const res = await service.request('/v1/pdf', {
      json: { page: { htmlTemplate: b64(INVOICE_PAGE), templateData: INVOICE_DATA }, pdf: { eInvoice: { profile: 'EXTENDED', xmlTemplate: b64(invoiceXmlTemplate('BASIC')) } } },
    });
    // Assess
    assert.equal(res.status, 400);
    const body = (await res.json()) as { fields: Record<string, string> };
    assert.deepEqual(Object.keys(body.fields).sort(), ['pdf.eInvoice.profile', 'pdf.eInvoice.xmlTemplate']);
  });

  it('a stored template carries the e-invoice: rendering it with data embeds the filled XML', async () => {
    // Prepare
    const created = await service.request('/v1/templates', {
      json: { name: 'E-invoice', variables: { page: { htmlTemplate: b64(INVOICE_PAGE) }, pdf: { metadata: { author: 'Billing' }, eInvoice: { xmlTemplate: b64(invoiceXmlTemplate('EN 16931')) } } } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    // Act
    const res = await service.request(`/v1/template/${id}`, { json: { page: { templateData: INVOICE_DATA } } });
    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const doc = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()), { updateMetadata: false });
    assert.equal(Buffer.from(doc.getAttachments()[0]?.data ?? []).toString('utf8'), invoiceXml('EN 16931'));
    assert.equal(doc.getAuthor(), 'Billing');
    assert.equal(doc.getTitle(), 'Rechnung INV-2041', 'the title defaults to the page title');
  });

  it('xmlTemplate filled by the service is the same XML the caller would write (XML escaping, not HTML)', () => {
    for (const profile of PROFILES) {
      const fromTemplate = made.find((m) => m.profile === profile && m.source === 'xmlTemplate');
      assert.equal(fromTemplate?.embedded.xml, invoiceXml(profile), profile);
    }
    assert.match(made[0]?.embedded.xml ?? '', /Müller &amp; Söhne&apos;s/);
  });
});
