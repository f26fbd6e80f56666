import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { closedPort } from '../helpers/closed-port.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { outlineOf, pageCountOf, pdfinfo, pdftoppm, pdftotext, pdftotextPages, qpdf } from '../helpers/pdf-tools.js';
import { spawnSync } from 'node:child_process';
import { PNG } from 'pngjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invoiceXml } from '../conformance/invoices.js';

/**
 * Protect, stamp and assemble through the API of `npm start`, with the
 * layer's fonts: a merged, watermarked, encrypted document opens with its
 * password and shows everything; quota is one unit per rendered part and
 * nothing for a failed merge; fields are named; passwords reach no log line,
 * error body, job or webhook.
 */

const USER_PASSWORD = 'Cust0mer-Pa55word-7731';
const OWNER_PASSWORD = 'Own3r-Secret-0042';

type Usage = { quota: { used: number } };

/** A coarse 16×16 ink map of a page: two different glyphs differ, two tofu boxes do not. */
function inkMap(png: Buffer): string {
  const image = PNG.sync.read(png);
  const cells: number[] = [];
  for (let cy = 0; cy < 16; cy += 1) {
    for (let cx = 0; cx < 16; cx += 1) {
      let ink = 0;
      for (let y = Math.floor((cy * image.height) / 16); y < Math.floor(((cy + 1) * image.height) / 16); y += 2) {
        for (let x = Math.floor((cx * image.width) / 16); x < Math.floor(((cx + 1) * image.width) / 16); x += 2) {
          if ((image.data[(y * image.width + x) * 4] as number) < 128) ink += 1;
        }
      }
      cells.push(ink > 4 ? 1 : 0);
    }
  }
  return cells.join('');
}

async function termsPdf(): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const n of [1, 2]) doc.addPage([595, 842]).drawText(`General terms, clause ${n}`, { x: 50, y: 780, font, size: 14 });
  return Buffer.from(await doc.save()).toString('base64');
}

/** The XMP packet of a PDF, as poppler reads it. */
const pdfinfoMeta = (pdf: Uint8Array) => pdfinfo(pdf, ['-meta']).stdout;

/** Font names `pdffonts` lists in a PDF. */
function fontNames(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'fonts-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    return spawnSync('pdffonts', [join(dir, 'in.pdf')], { encoding: 'utf8' }).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('protect, stamp and assemble through the API', () => {
  let service: RunningService;
  let receiver: TestServer;
  let token: string;
  let terms: string;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    receiver = await startTestServer({ '/hook/merge': ok });
    service = await startService();
    token = (await service.tokens('create', '--limit', '100')).stdout.trim();
    terms = await termsPdf();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const post = (path: string, json: unknown) => service.request(path, { json, token });
  const used = async () => ((await (await service.request('/v1/usage', { token })).json()) as Usage).quota.used;

  it('merges a cover, a template and an existing PDF, stamps and encrypts it: it opens with its password and shows everything', async () => {
    // Prepare
    const created = await post('/v1/templates', { name: 'Report', variables: { page: { htmlTemplate: b64('<title>Report</title><h1>Report for {{name}}</h1>') } } });
    const { id } = (await created.json()) as { id: string };
    const before = await used();

    // Act
    const res = await post('/v1/pdf/merge', {
      parts: [
        { page: { html: b64('<h1>Cover sheet</h1>') }, title: 'Cover' },
        { templateId: id, page: { templateData: { name: 'ACME' } } },
        { document: terms, title: 'Terms' },
      ],
      pdf: { watermark: { text: 'CONFIDENTIAL', pages: '2-' }, protection: { userPassword: USER_PASSWORD, ownerPassword: OWNER_PASSWORD } },
    });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.equal(qpdf(pdf, ['--check']).status, 2, 'no way in without the password');
    const password = [`--password=${USER_PASSWORD}`];
    assert.equal(qpdf(pdf, ['--check', ...password]).status, 0);
    assert.match(qpdf(pdf, ['--show-encryption', ...password]).stdout, /^R = 6$/m);
    assert.equal(pageCountOf(pdf, ['-upw', USER_PASSWORD]), 4);
    const pages = pdftotextPages(pdf, 4, ['-upw', USER_PASSWORD]);
    [/Cover sheet/, /Report for ACME/, /clause 1/, /clause 2/].forEach((text, i) => assert.match(pages[i] ?? '', text, `page ${i + 1}`));
    assert.deepEqual(pages.map((text) => /CONFIDENTIAL/.test(text)), [false, true, true, true]);
    assert.deepEqual(outlineOf(pdf, password).map((item) => item.title), ['Cover', 'Report', 'Terms']);
    assert.equal(await used(), before + 2, 'one unit per rendered part; the existing PDF is free');
  });

  it('draws a CJK and emoji watermark with the layer\'s fonts, as real text', async () => {
    // Act
    const res = await post('/v1/pdf', { page: { html: b64('<p>Invoice 17</p>') }, pdf: { watermark: { text: '支払済み 已付 😀', rotation: 30 } } });
    const glyph = async (text: string) => {
      const one = await post('/v1/pdf', { page: { html: b64('<p></p>') }, pdf: { watermark: { text, fontSize: 400, opacity: 1, color: '#000' } } });
      assert.equal(one.status, 200);
      return inkMap(pdftoppm(new Uint8Array(await one.arrayBuffer()), 36)[0] as Buffer);
    };

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const pdf = new Uint8Array(await res.arrayBuffer());
    assert.match(pdftotext(pdf, ['-raw']).stdout.replace(/\s+/g, ''), /支払済み已付/);
    // Chromium embeds the layer's Noto CJK (OpenType CFF) and colour emoji glyphs as Type 3 fonts; Open Sans has neither.
    assert.match(fontNames(pdf), /Type 3/);
    // No tofu: two different characters draw two different shapes (missing glyphs would draw the same box).
    const [first, second, blank] = [await glyph('支'), await glyph('払'), inkMap(pdftoppm(pdf, 36)[0] as Buffer)];
    assert.notEqual(first, second);
    assert.ok(first.includes('1') && blank.includes('1'));
  });

  it('charges nothing for a failed merge and names the failing part', async () => {
    // Prepare
    const before = await used();

    // Act
    const unreachable = await post('/v1/pdf/merge', {
      parts: [{ page: { html: b64('<p>ok</p>') } }, { page: { url: `http://127.0.0.1:${await closedPort()}/` } }],
    });
    const notPdf = await post('/v1/pdf/merge', {
      parts: [{ page: { html: b64('<p>ok</p>') } }, { document: Buffer.from('%PDF-1.7 not really a pdf').toString('base64') }],
    });

    // Assess
    assert.equal(unreachable.status, 400, (await unreachable.clone().text()) + service.output().split('\n').filter((l) => /"level":"(ERROR|WARN)"/.test(l)).slice(-5).join('\n'));
    const failure = (await unreachable.json()) as { code: string; fields: Record<string, string> };
    assert.equal(failure.code, 'merge.part');
    assert.deepEqual(Object.keys(failure.fields), ['parts.1.page.url']);
    assert.equal(notPdf.status, 400);
    assert.deepEqual(Object.keys(((await notPdf.json()) as { fields: object }).fields), ['parts.1.document']);
    assert.equal(await used(), before, 'nothing spent');
  });

  it('answers 400 naming the field, and never repeats a password', async () => {
    // Act
    const noOwner = await post('/v1/pdf', { page: { html: b64('<p>x</p>') }, pdf: { protection: { userPassword: USER_PASSWORD, permissions: { copy: false } } } });
    const tooLong = await post('/v1/pdf', { page: { html: b64('<p>x</p>') }, pdf: { protection: { userPassword: `${USER_PASSWORD}${'x'.repeat(130)}` } } });
    const badImage = await post('/v1/pdf/merge', { parts: [{ page: { html: b64('<p>x</p>') } }], pdf: { watermark: { image: b64('GIF89a not an image') } } });
    const partProtection = await post('/v1/pdf/merge', { parts: [{ page: { html: b64('<p>x</p>') }, pdf: { protection: { userPassword: USER_PASSWORD } } }] });

    // Assess
    const bodies = await Promise.all([noOwner, tooLong, badImage, partProtection].map((res) => res.text()));
    assert.deepEqual([noOwner.status, tooLong.status, badImage.status, partProtection.status], [400, 400, 400, 400]);
    assert.deepEqual(Object.keys(JSON.parse(bodies[0] as string).fields), ['pdf.protection.ownerPassword']);
    assert.deepEqual(Object.keys(JSON.parse(bodies[1] as string).fields), ['pdf.protection.userPassword']);
    assert.deepEqual(Object.keys(JSON.parse(bodies[2] as string).fields), ['pdf.watermark.image']);
    assert.deepEqual(Object.keys(JSON.parse(bodies[3] as string).fields), ['parts.0.pdf.protection']);
    for (const body of bodies) assert.ok(!body.includes(USER_PASSWORD), body);
  });

  it('refuses on a part what applies to the merged file, naming parts.<i>.pdf.<field>, a template\'s own settings included', async () => {
    // Prepare: a template made to be rendered alone, as an archived e-invoice with its metadata.
    const eInvoice = { xml: b64(invoiceXml('MINIMUM')) };
    const created = await post('/v1/templates', {
      name: 'Archived invoice',
      variables: { page: { html: b64('<title>Invoice</title><h1>Invoice</h1>') }, pdf: { pdfa: 'PDF/A-3b', metadata: { title: 'Invoice' } } },
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const page = { html: b64('<p>x</p>') };
    const before = await used();

    // Act
    const onParts = await post('/v1/pdf/merge', {
      parts: [
        { page, pdf: { pdfa: 'PDF/A-3b' } },
        { page, pdf: { eInvoice } },
        { page, pdf: { metadata: { title: 'Part' }, pdfua: true } },
        { page, pdf: { attachments: [{ name: 'a.txt', content: b64('a'), mimeType: 'text/plain' }], watermark: { text: 'DRAFT' } } },
        { templateId: id, pdf: { eInvoice } },
      ],
    });
    const fromTemplate = await post('/v1/pdf/merge', { parts: [{ page }, { templateId: id }] });
    const spentOnRefusals = (await used()) - before;
    const cleared = await post('/v1/pdf/merge', { parts: [{ page }, { templateId: id, pdf: { pdfa: null, metadata: null } }], pdf: { pdfa: 'PDF/A-3b' } });

    // Assess: a part's watermark is its own; everything else is the merged file's, and nothing was spent on a refusal.
    assert.equal(onParts.status, 400);
    assert.deepEqual(Object.keys(((await onParts.json()) as { fields: object }).fields).sort(), [
      'parts.0.pdf.pdfa',
      'parts.1.pdf.eInvoice',
      'parts.2.pdf.metadata',
      'parts.2.pdf.pdfua',
      'parts.3.pdf.attachments',
      'parts.4.pdf.eInvoice',
    ]);
    assert.equal(fromTemplate.status, 400);
    const refused = (await fromTemplate.json()) as { fields: Record<string, string> };
    assert.deepEqual(Object.keys(refused.fields).sort(), ['parts.1.pdf.metadata', 'parts.1.pdf.pdfa']);
    assert.match(refused.fields['parts.1.pdf.pdfa'] ?? '', /Set by the template.*top-level pdf/);
    assert.equal(spentOnRefusals, 0, 'nothing spent on a refused merge');
    assert.equal(cleared.status, 200, await cleared.clone().text());
    assert.match(pdfinfoMeta(new Uint8Array(await cleared.arrayBuffer())), /<pdfaid:part>3<\/pdfaid:part>/, 'the top-level pdfa still applies');
  });

  it('refuses protection with pdfa or an e-invoice (PDF/A forbids encryption), naming every field involved', async () => {
    // Prepare
    const page = { html: b64('<p>x</p>') };
    const protection = { userPassword: USER_PASSWORD, ownerPassword: OWNER_PASSWORD };
    const eInvoice = { xml: b64(invoiceXml('MINIMUM')) };

    // Act
    const answers = await Promise.all([
      post('/v1/pdf', { page, pdf: { protection, eInvoice } }),
      post('/v1/pdf', { page, pdf: { protection, pdfa: 'PDF/A-2b' } }),
      post('/v1/pdf', { page, pdf: { protection, pdfa: 'PDF/A-3u', eInvoice } }),
      post('/v1/pdf/merge', { parts: [{ page }], pdf: { protection, eInvoice } }),
      post('/v1/pdf/merge/sync', { parts: [{ page }], pdf: { protection, pdfa: 'PDF/A-3b' } }),
      post('/v1/templates', { name: 'Encrypted invoice', variables: { page, pdf: { protection, eInvoice } } }),
    ]);

    // Assess
    const bodies = await Promise.all(answers.map((res) => res.text()));
    const shown = bodies.map((body) => body.replaceAll(USER_PASSWORD, '…').replaceAll(OWNER_PASSWORD, '…').slice(0, 300));
    assert.deepEqual(answers.map((res) => res.status), [400, 400, 400, 400, 400, 400], shown.join('\n'));
    const fields = bodies.map((body) => Object.keys((JSON.parse(body) as { fields: object }).fields).sort());
    assert.deepEqual(fields, [
      ['pdf.eInvoice', 'pdf.protection'],
      ['pdf.pdfa', 'pdf.protection'],
      ['pdf.eInvoice', 'pdf.pdfa', 'pdf.protection'],
      ['pdf.eInvoice', 'pdf.protection'],
      ['pdf.pdfa', 'pdf.protection'],
      ['variables.pdf.eInvoice', 'variables.pdf.protection'],
    ]);
    for (const body of bodies) {
      assert.match(body, /PDF\/A forbids encryption/);
      assert.ok(!body.includes(USER_PASSWORD) && !body.includes(OWNER_PASSWORD), body);
    }
  });

  it('merges existing PDFs only for free, delivered by /sync', async () => {
    // Prepare
    const before = await used();

    // Act
    const res = await post('/v1/pdf/merge/sync', { parts: [{ document: terms }, { document: terms, title: 'Copy' }] });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    const { fileUrl } = (await res.json()) as { fileUrl: string };
    const pdf = new Uint8Array(await (await fetch(fileUrl)).arrayBuffer());
    assert.equal(pageCountOf(pdf), 4);
    assert.deepEqual(outlineOf(pdf).map((item) => [item.title, item.destpageposfrom1]), [['Part 1', 1], ['Copy', 3]]);
    assert.equal(await used(), before, 'no part rendered, nothing spent');
  });

  it('returns a template\'s stored password on read, as saved (docs/finishing.md: why)', async () => {
    // Act
    const created = await post('/v1/templates', { name: 'Statement', variables: { pdf: { protection: { userPassword: 'stored-pass' } } } });
    const { id } = (await created.json()) as { id: string };
    const read = (await (await service.request(`/v1/templates/${id}`, { token })).json()) as { variables: { pdf: { protection: unknown } } };

    // Assess
    assert.deepEqual(read.variables.pdf.protection, { userPassword: 'stored-pass' });
  });

  it('merges asynchronously: the webhook gets the encrypted file, and no password reaches the job, the webhook or a log line', async () => {
    // Act
    const res = await post('/v1/pdf/merge/async', {
      parts: [{ page: { html: b64('<h1>Statement</h1>') } }, { document: terms }],
      pdf: { protection: { userPassword: USER_PASSWORD } },
      webhook: { url: `${receiver.url}/hook/merge`, receiveType: 'base64' },
    });

    // Assess
    assert.equal(res.status, 201, await res.clone().text());
    const { id } = (await res.json()) as { id: string };
    const call = await waitFor('the merge webhook', () => receiver.requests.find((r) => r.url === '/hook/merge'), 120_000);
    const payload = JSON.parse(call.body) as { status: string; fileBase64: string };
    assert.equal(payload.status, 'COMPLETED', call.body.slice(0, 500));
    const pdf = new Uint8Array(Buffer.from(payload.fileBase64, 'base64'));
    assert.equal(pageCountOf(pdf, ['-upw', USER_PASSWORD]), 3);
    assert.match(pdftotext(pdf, ['-upw', USER_PASSWORD]).stdout, /Statement[\s\S]*clause 2/);
    const job = await (await service.request(`/v1/jobs/${id}`, { token })).text();
    for (const text of [call.body, job, service.output()]) {
      assert.ok(!text.includes(USER_PASSWORD) && !text.includes(OWNER_PASSWORD), 'a password leaked');
    }
  });
});
