import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pdfsig, validatePades } from '../helpers/pades.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { INVOICE_DATA, INVOICE_PAGE, invoiceXml } from './invoices.js';
import { mustang, veraPdf, type MustangResult, type VeraResult } from './validators/run-validators.js';

/**
 * Signing keeps an archival file conformant (PDF/A-2 and -3 allow PAdES
 * signatures): a PDF/A-3b document signed at B-LT (the DSS added by an
 * incremental update after the signature) with a visible signature, one at
 * B-LTA (a document timestamp in one more update) and an
 * e-invoice certified at B-B stay valid for veraPDF and Mustang, and their
 * signatures for pyHanko (PAdES-LT validation for the B-LT one) and pdfsig. Needs Java 17 and Maven.
 */
describe('signed archival documents (veraPDF, Mustang, pyHanko)', () => {
  let service: RunningService;
  let caPem: string;
  let dir: string;
  const files: Record<'pdfa' | 'pdfaLta' | 'invoice', string> = { pdfa: '', pdfaLta: '', invoice: '' };
  let vera: VeraResult[] = [];
  let invoice: MustangResult | undefined;

  before(async () => {
    const signing = tempDir('signing-conformance-');
    dir = tempDir('docrender-signed-');
    service = await startService({ DEV_SIGNING_DIR: signing });
    caPem = readFileSync(join(signing, 'ca.cert.pem'), 'utf8');
    const requests = {
      pdfa: {
        page: { html: b64('<html lang="en"><head><title>Signed report</title></head><body><h1>Annual report</h1><p>Figures.</p></body></html>') },
        pdf: { pdfa: 'PDF/A-3b', signature: { level: 'B-LT', reason: 'Archived', appearance: { page: 1, x: 320, y: 40, width: 220, height: 60 } } },
      },
      pdfaLta: {
        page: { html: b64('<html lang="en"><head><title>Archived report</title></head><body><h1>Archive</h1><p>Kept for years.</p></body></html>') },
        pdf: { pdfa: 'PDF/A-3b', signature: { level: 'B-LTA', reason: 'Archived for the long term' } },
      },
      invoice: {
        page: { htmlTemplate: b64(INVOICE_PAGE), templateData: INVOICE_DATA },
        pdf: { format: 'a4', eInvoice: { xml: b64(invoiceXml('EN 16931')) }, signature: { certify: 'noChanges', reason: 'Invoice' } },
      },
    };
    for (const [name, json] of Object.entries(requests) as Array<[keyof typeof files, unknown]>) {
      const res = await service.request('/v1/pdf', { json });
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200, `${name}: ${Buffer.from(body).toString().slice(0, 300)}`);
      files[name] = join(dir, `${name}.pdf`);
      writeFileSync(files[name], body);
    }
    vera = await veraPdf([
      ['PDF/A-3b', files.pdfa],
      ['PDF/A-3b', files.pdfaLta],
      ['PDF/A-3b', files.invoice],
    ]);
    [invoice] = await mustang([files.invoice]);
  });
  after(() => service?.stop());

  it('pdfaLta: veraPDF finds the file with its document timestamp PDF/A-3b compliant, pyHanko it PAdES-LTA', () => {
    const result = vera.find((entry) => entry.file === files.pdfaLta);
    assert.ok(result?.compliant, JSON.stringify(result?.failed ?? result?.error));
    const statuses = validatePades(new Uint8Array(readFileSync(files.pdfaLta)), caPem, undefined, 'pades-lta').statuses ?? [];
    const signature = statuses.find((status) => !status.docTimeStamp);
    const archive = statuses.find((status) => status.docTimeStamp);
    assert.ok(signature?.intact && signature.trusted && signature.modificationLevel === 'LTA_UPDATES', signature?.summary);
    assert.ok(archive?.intact && archive.trusted && archive.coverage === 'ENTIRE_FILE', archive?.summary);
  });

  for (const name of ['pdfa', 'invoice'] as const) {
    it(`${name}: veraPDF finds the signed file PDF/A-3b compliant, pyHanko and pdfsig its signature valid`, () => {
      const result = vera.find((entry) => entry.file === files[name]);
      assert.ok(result?.compliant, JSON.stringify(result?.failed ?? result?.error));
      const pdf = new Uint8Array(readFileSync(files[name]));
      const [status] = (name === 'pdfa' ? validatePades(pdf, caPem, undefined, 'pades-lt') : validatePades(pdf, caPem)).statuses ?? [];
      assert.ok(status?.intact && status.trusted, status?.summary);
      // B-LT: the signature covers its revision, the DSS update after it is LTV-only.
      if (name === 'pdfa') assert.ok(status.coverage === 'ENTIRE_REVISION' && status.modificationLevel === 'LTA_UPDATES', status.summary);
      else assert.equal(status.coverage, 'ENTIRE_FILE', status.summary);
      assert.match(pdfsig(pdf).stdout, /Signature is Valid\./);
    });
  }

  it('the signed e-invoice is still valid for Mustang', () => {
    assert.ok(invoice?.valid, invoice?.report.slice(0, 2000));
  });
});
