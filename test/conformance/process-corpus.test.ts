import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pdfsig } from '../helpers/pades.js';
import { pdfinfo, pdftotext, qpdf, qpdfJson, outlineOf, type OutlineItem, type ToolRun } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { invoiceXml } from './invoices.js';
import { mustang, veraPdf, type Level } from './validators/run-validators.js';
import { spawnSync } from 'node:child_process';

/**
 * The existing-PDF half of issue 32, proven on PDFs no one here wrote: the
 * qpdf project's test files (test/fixtures/qpdf, Apache-2.0, see its README)
 * go through POST /v1/pdf/process with every finishing option. Independent
 * tools judge the outputs: qpdf --check is clean on every file; the JSON
 * answer agrees with pdfinfo, pdfdetach -list and qpdf --json; the stamp is
 * in pdftotext's text, the metadata in pdfinfo's, the attachment in
 * pdfdetach's list, the encryption in qpdf --show-encryption, the signature
 * in pdfsig; a PDF/A asked of a file is either refused with its reasons
 * (422) or passes veraPDF, and a processed simple PDF passes PDF/A-2b and
 * -3b. Needs Java 17 and Maven for veraPDF (as the other conformance suites).
 */

const CORPUS = fileURLToPath(new URL('../fixtures/qpdf/', import.meta.url));
/** The passwords of the encrypted files, as their names say (qpdf's encryption tests use them). */
const PASSWORDS: Record<string, string> = {
  'enc-XI-R6,V5,U=view,attachments,cleartext-metadata.pdf': 'view',
  'enc-R2,V1,U=view,O=view.pdf': 'view',
};
const OUTPUT_PASSWORD = 'Corpus-0ut-Pa55';

type Facts = {
  pdfVersion: string;
  pageCount: number;
  pages: Array<{ number: number; width: number; height: number; rotation: number }>;
  metadata: { info: Record<string, string>; xmp: string | null };
  encryption: { version: number; keyBits: number } | null;
  attachments: Array<{ name: string; page: number | null }>;
  outline: Array<{ title: string; children: Facts['outline'] }>;
  form: { fields: Array<{ name: string; type: string }> };
};

const corpus = readdirSync(CORPUS).filter((name) => name.endsWith('.pdf')).sort();

/** `pdfdetach -list` of a file (its user password given), names in order. */
function pdfdetachList(pdf: Uint8Array, password?: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'detach-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const out = spawnSync('pdfdetach', [...(password ? ['-upw', password] : []), '-list', file], { encoding: 'utf8' });
    return out.stdout.split('\n').flatMap((line) => /^\d+: (.*)$/.exec(line)?.[1] ?? []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const titles = (items: Facts['outline']): unknown[] => items.map((item) => [item.title, titles(item.children)]);
const qpdfTitles = (items: OutlineItem[]): unknown[] => items.map((item) => [item.title, qpdfTitles(item.kids)]);

describe('POST /v1/pdf/process on a corpus of real PDFs (qpdf test files)', () => {
  let service: RunningService;
  let dir: string;
  const toValidate: Array<[Level, string, string]> = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docrender-process-corpus-'));
    service = await startService();
  });

  after(async () => {
    await service?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const process = (file: string, body: Record<string, unknown>) =>
    service.request('/v1/pdf/process', {
      json: { document: readFileSync(join(CORPUS, file)).toString('base64'), ...(PASSWORDS[file] ? { password: PASSWORDS[file] } : {}), ...body },
    });

  it('answers facts that agree with pdfinfo, pdfdetach -list and qpdf --json on every file', async () => {
    assert.ok(corpus.length >= 10, `corpus of ${corpus.length}`);
    for (const file of corpus) {
      const pdf = readFileSync(join(CORPUS, file));
      const password = PASSWORDS[file];
      const res = await process(file, { output: 'JSON' });
      assert.equal(res.status, 200, `${file}: ${await res.clone().text()}`);
      const facts = (await res.json()) as Facts;
      const info = pdfinfo(pdf, ['-f', '1', '-l', '9999', ...(password ? ['-upw', password] : [])]).stdout;
      assert.equal(facts.pageCount, Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]), `${file}: pages`);
      assert.equal(facts.pdfVersion, /^PDF version:\s+(\S+)/m.exec(info)?.[1], `${file}: version`);
      for (const page of facts.pages) {
        const size = new RegExp(`^Page\\s+${page.number} size:\\s+([\\d.]+) x ([\\d.]+) pts`, 'm').exec(info);
        const rot = new RegExp(`^Page\\s+${page.number} rot:\\s+(\\d+)`, 'm').exec(info);
        // pdfinfo prints six significant digits; the answer keeps three decimals.
        assert.ok(Math.abs(page.width - Number(size?.[1])) < 0.01 && Math.abs(page.height - Number(size?.[2])) < 0.01, `${file}: page ${page.number} ${page.width}×${page.height}, pdfinfo ${size?.[0]}`);
        assert.equal(page.rotation, Number(rot?.[1]), `${file}: page ${page.number} rotation`);
      }
      assert.equal(facts.encryption !== null, /^Encrypted:\s+yes/m.test(info), `${file}: encrypted`);
      if (facts.metadata.info.Title) assert.match(info, new RegExp(`^Title:\\s+${facts.metadata.info.Title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'), `${file}: title`);
      assert.deepEqual(
        facts.attachments.map((attachment) => attachment.name),
        pdfdetachList(pdf, password),
        `${file}: attachments`,
      );
      const qpdfArgs = password ? [`--password=${password}`] : [];
      const acroform = (qpdfJson(pdf, [...qpdfArgs, '--json-key=acroform']) as { acroform?: { fields?: Array<{ fullname: string }> } }).acroform;
      assert.deepEqual(
        facts.form.fields.map((field) => field.name).sort(),
        [...new Set((acroform?.fields ?? []).map((field) => field.fullname))].sort(),
        `${file}: form fields`,
      );
      assert.deepEqual(titles(facts.outline), qpdfTitles(outlineOf(pdf, qpdfArgs)), `${file}: outline`);
    }
  });

  it('puts every file through each finishing option: qpdf --check clean on every output, each option read back by its own tool', async () => {
    const check = (label: string, out: Uint8Array, args: string[] = []) => {
      const run: ToolRun = qpdf(out, ['--check', ...args]);
      assert.equal(run.status, 0, `${label}: qpdf --check\n${run.stdout}${run.stderr}`);
    };
    for (const [index, file] of corpus.entries()) {
      const stamp = `PROCESSED ${index + 1}`;
      const stamped = await process(file, { pdf: { watermark: { text: stamp, fontSize: 24 } } });
      assert.equal(stamped.status, 200, `${file} watermark: ${await stamped.clone().text()}`);
      const stampedPdf = new Uint8Array(await stamped.arrayBuffer());
      check(`${file} watermark`, stampedPdf);
      assert.match(pdftotext(stampedPdf, ['-l', '1']).stdout, new RegExp(stamp), `${file}: the stamp on page 1`);

      const described = await process(file, { pdf: { metadata: { title: `Corpus ${index + 1}`, author: 'Process test' } } });
      const describedPdf = new Uint8Array(await described.arrayBuffer());
      check(`${file} metadata`, describedPdf);
      assert.match(pdfinfo(describedPdf).stdout, new RegExp(`^Title:\\s+Corpus ${index + 1}$[\\s\\S]*^Author:\\s+Process test$`, 'm'), file);

      const attached = await process(file, { pdf: { attachments: [{ name: 'note.txt', content: b64('from the corpus test'), mimeType: 'text/plain' }] } });
      const attachedPdf = new Uint8Array(await attached.arrayBuffer());
      check(`${file} attachments`, attachedPdf);
      assert.ok(pdfdetachList(attachedPdf).includes('note.txt'), `${file}: note.txt attached`);

      const protectedRes = await process(file, { pdf: { protection: { userPassword: OUTPUT_PASSWORD } } });
      const protectedPdf = new Uint8Array(await protectedRes.arrayBuffer());
      check(`${file} protection`, protectedPdf, [`--password=${OUTPUT_PASSWORD}`]);
      assert.match(qpdf(protectedPdf, ['--show-encryption', `--password=${OUTPUT_PASSWORD}`]).stdout, /R = 6[\s\S]*AESv3/, `${file}: AES-256`);
      assert.notEqual(pdfinfo(protectedPdf).status, 0, `${file}: opens without the password`);

      const signed = await process(file, { pdf: { signature: { reason: 'Processed' } } });
      assert.equal(signed.status, 200, `${file} signature: ${await signed.clone().text()}`);
      const signedPdf = new Uint8Array(await signed.arrayBuffer());
      check(`${file} signature`, signedPdf);
      assert.match(pdfsig(signedPdf).stdout, /Signature #1[\s\S]*Total document signed[\s\S]*Signature is Valid/, `${file}: pdfsig validates the signature over the whole file`);

      const archived = await process(file, { pdf: { pdfa: 'PDF/A-3b' } });
      if (archived.status === 422) {
        const body = (await archived.json()) as { code: string; fields: Record<string, string> };
        assert.equal(body.code, 'pdf.conformance', file);
        assert.ok((body.fields['pdf.pdfa'] ?? '').length > 0, `${file}: the reasons are named`);
        continue;
      }
      assert.equal(archived.status, 200, `${file} pdfa: ${await archived.clone().text()}`);
      const archivedPdf = new Uint8Array(await archived.arrayBuffer());
      check(`${file} pdfa`, archivedPdf);
      const path = join(dir, `${index}.pdf`);
      writeFileSync(path, archivedPdf);
      toValidate.push(['PDF/A-3b', path, file]);
    }
  });

  it('makes a processed simple PDF PDF/A-2b and -3b that veraPDF passes (and every corpus file it did not refuse), and an e-invoice Mustang passes', async () => {
    // The pdfTeX file embeds its font: it is made PDF/A-3b, and veraPDF judges it with the rest.
    assert.ok(toValidate.some(([, , file]) => file === 'qpdfjob-ctest3.pdf'), 'the pdfTeX file was made PDF/A');
    // A simple PDF, printed by the service and then processed as a file someone already has.
    const printed = await service.request('/v1/pdf', { json: { page: { html: b64('<html lang="en"><title>Simple</title><body><h1>Simple</h1><p>An existing PDF.</p></body></html>') } } });
    const simple = Buffer.from(await printed.arrayBuffer());
    for (const level of ['PDF/A-2b', 'PDF/A-3b'] as const) {
      const res = await service.request('/v1/pdf/process', { json: { document: simple.toString('base64'), pdf: { pdfa: level, watermark: { text: 'ARCHIVED' } } } });
      assert.equal(res.status, 200, await res.clone().text());
      const path = join(dir, `simple-${level.replace(/\W/g, '')}.pdf`);
      writeFileSync(path, Buffer.from(await res.arrayBuffer()));
      toValidate.push([level, path, `simple ${level}`]);
    }
    const results = await veraPdf(toValidate.map(([level, path]) => [level, path]));
    for (const [i, result] of results.entries()) {
      assert.ok(result.compliant, `${toValidate[i]?.[2]}: ${JSON.stringify(result.failed ?? result.error)}`);
    }

    // The same simple PDF made a Factur-X e-invoice (EN 16931) after the fact: Mustang validates the PDF/A-3, the XMP and the XML.
    const invoiced = await service.request('/v1/pdf/process', { json: { document: simple.toString('base64'), pdf: { eInvoice: { xml: b64(invoiceXml('EN 16931')) } } } });
    assert.equal(invoiced.status, 200, await invoiced.clone().text());
    const invoicePath = join(dir, 'simple-einvoice.pdf');
    writeFileSync(invoicePath, Buffer.from(await invoiced.arrayBuffer()));
    const [verdict] = await mustang([invoicePath]);
    assert.ok(verdict?.valid, verdict?.report.slice(0, 2000));
  });
});
