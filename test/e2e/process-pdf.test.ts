import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { degrees, PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { applicationForm } from '../helpers/acroform.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { pdfinfo, pdftotext, qpdf, qpdfJson } from '../helpers/pdf-tools.js';
import { deepNestingPdf, encryptedObjectStreamBombPdf, kidsLoopPdf, objectStreamBombPdf, referenceChainPdf } from '../helpers/hostile-pdfs.js';

/**
 * POST /v1/pdf/process through the API of `npm start`: an existing PDF
 * (ghostscript's, pdf-lib's, encrypted by qpdf) stamped and encrypted, its
 * facts as JSON checked against qpdf and pdfinfo, bad documents and
 * passwords named with a 400 that charges nothing, print options refused,
 * a PDF/A it cannot reach a 422, documentUrl fetched, sync and async answered
 * as /v1/pdf's; the input's password reaches no log line.
 */

const INPUT_PASSWORD = 'Inp4t-Pa55word-9917';
const USER_PASSWORD = 'Out-Pa55word-2231';

type Usage = { quota: { used: number } };

/** A two-page PDF with text in a font that is not embedded (Helvetica), a form, an attachment and an outline-free catalog. */
async function formPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const first = doc.addPage([595, 842]);
  first.drawText('Application form', { x: 50, y: 780, size: 20, font });
  const second = doc.addPage([842, 595]);
  second.setRotation(degrees(90));
  const form = doc.getForm();
  const name = form.createTextField('applicant.name');
  name.setText('Ada');
  name.enableRequired();
  name.addToPage(first, { x: 50, y: 700, width: 200, height: 20, font });
  const agree = form.createCheckBox('agree');
  agree.addToPage(first, { x: 50, y: 650, width: 15, height: 15 });
  const country = form.createDropdown('country');
  country.addOptions(['France', 'Japan']);
  country.select('Japan');
  country.enableReadOnly();
  country.addToPage(first, { x: 50, y: 600, width: 120, height: 20, font });
  await doc.attach(Buffer.from('a,b\n1,2\n'), 'data.csv', { mimeType: 'text/csv', description: 'The data' });
  doc.setTitle('Form to fill');
  return doc.save();
}

describe('POST /v1/pdf/process', () => {
  let service: RunningService;
  let server: TestServer;
  let form: Uint8Array;
  let plain: Uint8Array;
  let encrypted: Uint8Array;

  before(async () => {
    form = await formPdf();
    const doc = await PDFDocument.create();
    doc.addPage([300, 300]).drawText('Quarterly statement', { x: 20, y: 200, size: 14, font: await doc.embedFont(StandardFonts.Courier) });
    plain = await doc.save();
    // qpdf encrypts it (AES-256), with a user password.
    const dir = tempDir('docrender-process-');
    writeFileSync(join(dir, 'in.pdf'), plain);
    execFileSync('qpdf', ['--encrypt', INPUT_PASSWORD, 'owner-of-input', '256', '--', join(dir, 'in.pdf'), join(dir, 'enc.pdf')]);
    encrypted = readFileSync(join(dir, 'enc.pdf'));
    server = await startTestServer({
      '/statement.pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(Buffer.from(plain));
      },
      // Says it is 60 MB: refused on the header, before a byte of it is read.
      '/huge.pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(60 * 1024 * 1024) });
        res.write('%PDF-1.7\n');
      },
      // 51 MB without a length: refused once the cap is passed.
      '/endless.pdf': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        for (let i = 0; i < 51; i++) res.write(chunk);
        res.end();
      },
      '/moved.pdf': (_req, res) => {
        res.writeHead(302, { location: '/statement.pdf' });
        res.end();
      },
    });
    service = await startService();
  });

  after(async () => {
    await service?.stop();
    await server?.close();
  });

  const usage = async () => ((await (await service.request('/v1/usage')).json()) as Usage).quota.used;
  const b64pdf = (pdf: Uint8Array) => Buffer.from(pdf).toString('base64');

  it('lists a form\'s fields as JSON, then fills it from JSON and flattens it: no field remains, the values (CJK too) are page text', async () => {
    // Prepare
    const application = b64pdf(await applicationForm());

    // Act
    const listed = await service.request('/v1/pdf/process', { json: { document: application, output: 'JSON' } });
    const filled = await service.request('/v1/pdf/process', {
      json: {
        document: application,
        pdf: { form: { fields: { 'applicant.name': 'Jane Doe', 'applicant.city': '東京都', agree: true, plan: 'premium', languages: ['en', 'ja'] }, flatten: true } },
      },
    });
    const unknown = await service.request('/v1/pdf/process', { json: { document: application, pdf: { form: { fields: { 'applicant.age': '42' } } } } });

    // Assess
    assert.equal(listed.status, 200, await listed.clone().text());
    const facts = (await listed.json()) as { form: { fields: Array<{ name: string; type: string }> } };
    assert.deepEqual(
      facts.form.fields.map((field) => field.name).sort(),
      ['agree', 'applicant.city', 'applicant.name', 'country', 'languages', 'plan'],
    );
    assert.equal(filled.status, 200, await filled.clone().text());
    const pdf = new Uint8Array(await filled.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 0);
    const { acroform } = qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { hasacroform: boolean; fields: unknown[] } };
    assert.deepEqual([acroform.hasacroform, acroform.fields.length], [false, 0]);
    const text = pdftotext(pdf).stdout;
    for (const value of ['Application form', 'Jane Doe', '東京都']) assert.ok(text.includes(value), `${value} in: ${text}`);
    assert.equal(unknown.status, 400);
    assert.deepEqual(Object.keys(((await unknown.json()) as { fields: Record<string, string> }).fields), ['pdf.form.fields.applicant.age']);
  });

  it('stamps and encrypts a PDF it is given: qpdf clean, the stamp in the text, AES-256, one unit', async () => {
    const used = await usage();
    const res = await service.request('/v1/pdf/process', {
      json: { document: b64pdf(plain), pdf: { watermark: { text: 'COPY 7731' }, protection: { userPassword: USER_PASSWORD } } },
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const out = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(out, ['--check', `--password=${USER_PASSWORD}`]).status, 0);
    assert.match(qpdf(out, ['--show-encryption', `--password=${USER_PASSWORD}`]).stdout, /AESv3|256/);
    const text = pdftotext(out, ['-upw', USER_PASSWORD]).stdout;
    assert.match(text, /Quarterly statement/);
    assert.match(text, /COPY 7731/);
    assert.equal(await usage(), used + 1);
  });

  it("answers a form's facts as JSON, agreeing with qpdf and pdfinfo", async () => {
    const res = await service.request('/v1/pdf/process', { json: { document: b64pdf(form), output: 'JSON' } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const facts = (await res.json()) as {
      pageCount: number;
      pages: Array<{ width: number; height: number; rotation: number }>;
      metadata: { info: Record<string, string> };
      encryption: unknown;
      attachments: Array<{ name: string; size: number | null; mimeType: string | null; description: string | null; page: number | null }>;
      form: { fields: Array<{ name: string; type: string; value: unknown; options?: string[]; required: boolean; readOnly: boolean }> };
    };
    const info = pdfinfo(form).stdout;
    assert.equal(facts.pageCount, Number(/Pages:\s+(\d+)/.exec(info)?.[1]));
    assert.deepEqual(facts.pages.map((p) => [p.width, p.height, p.rotation]), [[595, 842, 0], [842, 595, 90]]);
    assert.equal(facts.metadata.info.Title, 'Form to fill');
    assert.equal(facts.encryption, null);
    assert.deepEqual(facts.attachments.map((a) => [a.name, a.size, a.description, a.page]), [['data.csv', 8, 'The data', null]]);
    const qpdfFields = (qpdfJson(form) as { acroform: { fields: Array<{ fullname: string; fieldtype: string }> } }).acroform.fields;
    assert.deepEqual(facts.form.fields.map((f) => f.name).sort(), [...new Set(qpdfFields.map((f) => f.fullname))].sort());
    const byName = Object.fromEntries(facts.form.fields.map((f) => [f.name, f]));
    assert.deepEqual(byName['applicant.name'], { name: 'applicant.name', type: 'text', value: 'Ada', required: true, readOnly: false });
    assert.deepEqual(byName.agree, { name: 'agree', type: 'checkbox', value: false, required: false, readOnly: false });
    assert.deepEqual(byName.country, { name: 'country', type: 'dropdown', value: ['Japan'], options: ['France', 'Japan'], required: false, readOnly: true });
  });

  it('opens an encrypted PDF with its password (not with none or a wrong one: 400 on password, nothing charged), never logging it', async () => {
    const used = await usage();
    for (const password of [undefined, 'wrong-password']) {
      const res = await service.request('/v1/pdf/process', { json: { document: b64pdf(encrypted), ...(password ? { password } : {}) } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { code: string; fields: Record<string, string> };
      assert.equal(body.code, 'process.document');
      assert.deepEqual(Object.keys(body.fields), ['password']);
    }
    assert.equal(await usage(), used);
    const json = await service.request('/v1/pdf/process', { json: { document: b64pdf(encrypted), password: INPUT_PASSWORD, output: 'JSON' } });
    const facts = (await json.json()) as { encryption: { version: number; keyBits: number; permissions: { print: string } } };
    assert.equal(facts.encryption.version, 5);
    assert.equal(facts.encryption.keyBits, 256);
    const res = await service.request('/v1/pdf/process', { json: { document: b64pdf(encrypted), password: INPUT_PASSWORD, pdf: { metadata: { title: 'Opened' } } } });
    assert.equal(res.status, 200, await res.clone().text());
    const out = new Uint8Array(await res.arrayBuffer());
    assert.match(qpdf(out, ['--show-encryption']).stdout, /File is not encrypted/);
    assert.equal(qpdf(out, ['--check']).status, 0);
    assert.match(pdfinfo(out).stdout, /Title:\s+Opened/);
    assert.ok(!service.output().includes(INPUT_PASSWORD), 'the password reached a log line');
  });

  it('names a bad document, a print option, pdfua and a missing source with a 400; a PDF/A it cannot reach is a 422 with the reasons', async () => {
    const used = await usage();
    const cases: Array<[unknown, string]> = [
      [{ document: Buffer.from('%PDF-1.7\nnot really').toString('base64') }, 'document'],
      [{ document: Buffer.from('hello').toString('base64') }, 'document'],
      [{ document: b64pdf(plain), pdf: { outline: true } }, 'pdf.outline'],
      [{ document: b64pdf(plain), pdf: { format: 'a4' } }, 'pdf.format'],
      [{ document: b64pdf(plain), pdf: { pdfua: true } }, 'pdf.pdfua'],
      [{}, 'document'],
      [{ document: b64pdf(plain), output: 'JSON', pdf: { metadata: { title: 'x' } } }, 'pdf'],
      [{ documentUrl: 'http://169.254.169.254/latest/meta-data' }, 'documentUrl'],
    ];
    for (const [json, field] of cases) {
      const res = await service.request('/v1/pdf/process', { json });
      assert.equal(res.status, 400, JSON.stringify(json).slice(0, 80));
      const body = (await res.json()) as { fields: Record<string, string> };
      assert.ok(field in body.fields, `${field} in ${JSON.stringify(body.fields)}`);
    }
    const res = await service.request('/v1/pdf/process', { json: { document: b64pdf(form), pdf: { pdfa: 'PDF/A-3b' } } });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; fields: Record<string, string> };
    assert.equal(body.code, 'pdf.conformance');
    assert.match(body.fields['pdf.pdfa'] ?? '', /Helvetica is not embedded/);
    assert.equal(await usage(), used);
  });

  it('holds hostile files to the input bounds (a 400 naming document, nothing charged) and serves the next request as ever', async () => {
    const used = await usage();
    const cases: Array<[string, Buffer, RegExp]> = [
      ['an object stream inflating to 200 MB', objectStreamBombPdf(200_000_000), /inflate to at most 32 MB/],
      ['the same bomb encrypted (found once decrypted)', encryptedObjectStreamBombPdf(200_000_000), /inflate to at most 32 MB/],
      ['arrays nested 100,000 deep', deepNestingPdf(100_000), /more than 64 levels deep/],
      ['a page tree that loops', kidsLoopPdf(), /page tree loops/],
      ['a chain of 5,000 references', referenceChainPdf(5_000), /more than 1000 levels of references/],
    ];
    for (const [label, bytes, problem] of cases) {
      for (const output of ['PDF', 'JSON']) {
        const res = await service.request('/v1/pdf/process', { json: { document: bytes.toString('base64'), output } });
        assert.equal(res.status, 400, `${label} (${output})`);
        assert.match(((await res.json()) as { fields: Record<string, string> }).fields.document ?? '', problem, label);
      }
    }
    assert.equal(await usage(), used);
    const res = await service.request('/v1/pdf/process', { json: { document: b64pdf(plain), output: 'JSON' } });
    assert.equal(res.status, 200);
  });

  it('refuses a documentUrl past 50 MB (declared or read) and a redirect, naming documentUrl, nothing charged', async () => {
    const used = await usage();
    for (const [path, problem] of [['/huge.pdf', /at most 50 MB/], ['/endless.pdf', /at most 50 MB/], ['/moved.pdf', /302 \(redirects are not followed\)/]] as const) {
      const res = await service.request('/v1/pdf/process', { json: { documentUrl: `${server.url}${path}` } });
      assert.equal(res.status, 400, path);
      const body = (await res.json()) as { code: string; fields: Record<string, string> };
      assert.equal(body.code, 'process.document');
      assert.match(body.fields.documentUrl ?? '', problem, path);
    }
    assert.equal(await usage(), used);
  });

  it('fetches documentUrl; a URL that answers 404 is a 400 on documentUrl; sync and async answer as /v1/pdf does', async () => {
    const res = await service.request('/v1/pdf/process', { json: { documentUrl: `${server.url}/statement.pdf`, output: 'JSON' } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { pageCount: number }).pageCount, 1);
    const missing = await service.request('/v1/pdf/process', { json: { documentUrl: `${server.url}/missing.pdf` } });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { fields: Record<string, string> }).fields.documentUrl ?? '', /404/);
    const sync = await service.request('/v1/pdf/process/sync', { json: { documentUrl: `${server.url}/statement.pdf`, pdf: { watermark: { text: 'SYNC' } } } });
    assert.equal(sync.status, 200);
    const result = (await sync.json()) as { status: string; fileUrl: string; signedUrlStatus: string };
    assert.equal(result.status, 'COMPLETED');
    assert.equal(result.signedUrlStatus, 'NOT_PROVIDED');
    const file = new Uint8Array(await (await fetch(result.fileUrl)).arrayBuffer());
    assert.match(pdftotext(file).stdout, /SYNC/);
    const queued = await service.request('/v1/pdf/process/async', { json: { document: b64pdf(plain), output: 'JSON', webhook: { url: `${server.url}/hook` } } });
    assert.equal(queued.status, 201);
    const job = (await queued.json()) as { id: string; status: string };
    assert.equal(job.status, 'PENDING');
    let record: { status: string; fileUrl?: string } = { status: 'PENDING' };
    for (let i = 0; i < 120 && !['COMPLETED', 'FAILED'].includes(record.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      record = (await (await service.request(`/v1/jobs/${job.id}`)).json()) as typeof record;
    }
    assert.equal(record.status, 'COMPLETED');
    const facts = (await (await fetch(record.fileUrl as string)).json()) as { pageCount: number };
    assert.equal(facts.pageCount, 1);
  });
});
