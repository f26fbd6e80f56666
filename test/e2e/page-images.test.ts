import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { imageSize } from 'image-size';
import { PDFDocument } from '@cantoo/pdf-lib';
import { imageSsim } from '../helpers/page-ssim.js';
import { pdftoppm } from '../helpers/pdf-tools.js';
import { startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Page images through POST /v1/pdf/process (output PNG, JPEG, WEBP) on the
 * API of `npm start`: each image drawn by PDF.js in the service's Chromium
 * matches poppler's `pdftoppm` of the same page at the same resolution
 * (scikit-image SSIM ≥ 0.97) over the qpdf corpus, a render with CJK text
 * and transparency, and rotated pages (as given, and rotated by pdf.rotate
 * before imaging); several pages come as a ZIP in page order; sizes and
 * formats are as asked; a huge page or too many pages is a 400 naming the field.
 */

const QPDF = new URL('../fixtures/qpdf/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, QPDF));
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** Poppler's image of page `page` (1-based) at `dpi`. */
function reference(pdf: Uint8Array, page: number, dpi: number, args: string[] = []): Buffer {
  const [image] = pdftoppm(pdf, dpi, ['-f', String(page), '-l', String(page), ...args]);
  assert.ok(image, `pdftoppm drew page ${page}`);
  return image;
}

/** The stored entries of a ZIP, in order, as its central directory lists them (sizes may sit in data descriptors). */
function unzip(zip: Buffer): Array<{ name: string; data: Buffer }> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, 'an end of central directory');
  const entries: Array<{ name: string; data: Buffer }> = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, 'a central directory entry');
    assert.equal(zip.readUInt16LE(at + 10), 0, 'stored');
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.push({ name, data: zip.subarray(start, start + size) });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/**
 * Pages whose text is in a font the file does not embed, so each engine draws a substitute of its own:
 * form-fields-and-annotations.pdf is set in Courier, which PDF.js draws with its Foxit fixed font and
 * poppler with fontconfig's Nimbus Mono PS (other widths and hinting over the whole page; 0.969 measured).
 * Held to 0.95, the rest to 0.97.
 */
const SUBSTITUTED: Record<string, number> = { 'form-fields-and-annotations.pdf': 0.95 };

const MAGIC = {
  png: (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  webp: (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

describe('POST /v1/pdf/process page images', () => {
  let service: RunningService;
  let receiver: TestServer;

  before(async () => {
    receiver = await startTestServer({
      '/hook': (_req, res) => {
        res.writeHead(200);
        res.end();
      },
    });
    service = await startService();
  });

  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const images = async (json: Record<string, unknown>) => {
    const res = await service.request('/v1/pdf/process', { json });
    assert.equal(res.status, 200, await res.clone().text());
    return { type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
  };

  it('draws page 1 of each qpdf corpus file as poppler does at 96 dpi (SSIM ≥ 0.97), encrypted ones opened with their password', async () => {
    const corpus: Array<{ name: string; password?: string }> = [
      { name: 'form-fields-and-annotations.pdf' },
      { name: 'form.pdf' },
      { name: 'rotated.pdf' },
      { name: 'page-labels-and-outlines.pdf' },
      { name: 'outlines-with-loop.pdf' },
      { name: 'enc-XI-attachments-base.pdf' },
      { name: 'enc-XI-R6,V5,U=view,attachments,cleartext-metadata.pdf', password: 'view' },
      { name: 'enc-R2,V1,U=view,O=view.pdf', password: 'view' },
      { name: 'V4-aes.pdf' },
      { name: 'compressed-metadata.pdf' },
      { name: 'qpdfjob-ctest3.pdf' },
    ];
    const pairs: Array<{ reference: Uint8Array; image: Uint8Array; extension: string; name: string }> = [];
    for (const { name, password } of corpus) {
      const pdf = fixture(name);
      const { type, body } = await images({ document: b64(pdf), output: 'PNG', ...(password ? { password } : {}) });
      assert.equal(type, 'image/png', name);
      assert.ok(MAGIC.png(body), name);
      const expected = reference(pdf, 1, 96, password ? ['-upw', password] : []);
      const size = imageSize(body);
      const want = imageSize(expected);
      assert.ok(Math.abs(size.width - want.width) <= 1 && Math.abs(size.height - want.height) <= 1, `${name}: ${size.width}×${size.height} against ${want.width}×${want.height}`);
      pairs.push({ reference: expected, image: body, extension: 'png', name });
    }
    const scores = imageSsim(pairs);
    console.log(scores.map((ssim, i) => `${pairs[i]?.name}: ${ssim.toFixed(4)}`).join('\n'));
    const low = scores.map((ssim, i) => ({ name: pairs[i]?.name as string, ssim })).filter(({ name, ssim }) => !(ssim >= (SUBSTITUTED[name] ?? 0.97)));
    assert.deepEqual(low, []);
  });

  it('draws a render with CJK text and transparency, and the pages of a stamped and rotated PDF as stamped and rotated, as poppler does (SSIM ≥ 0.97)', async () => {
    // Prepare: a page Chromium prints, with Japanese and Chinese text and translucent layers over each other.
    const html = `<!doctype html><html lang="ja"><meta charset="utf-8"><body style="margin:0;font-family:sans-serif">
      <h1 style="margin:40px">請求書 — 発行日 2026年11月27日</h1><p style="margin:40px;font-size:20px">中文测试：增值税发票，合计 ¥12,345</p>
      <div style="position:absolute;left:60px;top:220px;width:300px;height:200px;background:rgba(255,0,0,0.5)"></div>
      <div style="position:absolute;left:200px;top:300px;width:300px;height:200px;background:rgba(0,0,255,0.4);opacity:0.8"></div>
      <div style="position:absolute;left:100px;top:560px;width:400px;height:60px;background:linear-gradient(90deg,rgba(0,128,0,0.9),rgba(0,128,0,0))"></div></body></html>`;
    const printed = await service.request('/v1/pdf', { json: { page: { html: Buffer.from(html).toString('base64') }, pdf: { printBackground: true } } });
    assert.equal(printed.status, 200, await printed.clone().text());
    const cjk = new Uint8Array(await printed.arrayBuffer());
    const rotated = fixture('rotated.pdf');
    const finishing = { watermark: { text: 'COPY 7731' }, rotate: { angle: 90, pages: '1' } };
    const finished = await service.request('/v1/pdf/process', { json: { document: b64(rotated), pdf: finishing } });
    assert.equal(finished.status, 200, await finished.clone().text());
    const finishedPdf = new Uint8Array(await finished.arrayBuffer());

    // Act
    const cjkImage = await images({ document: b64(cjk), output: 'PNG', image: { dpi: 150 } });
    const zip = await images({ document: b64(rotated), output: 'PNG', image: { pages: '1-4', dpi: 72 }, pdf: finishing });

    // Assess
    assert.equal(zip.type, 'application/zip');
    const entries = unzip(zip.body);
    assert.deepEqual(entries.map((entry) => entry.name), ['page-001.png', 'page-002.png', 'page-003.png', 'page-004.png']);
    const pairs = [
      { reference: reference(cjk, 1, 150), image: cjkImage.body, extension: 'png', name: 'CJK and transparency' },
      ...entries.map((entry, i) => ({ reference: reference(finishedPdf, i + 1, 72), image: entry.data, extension: 'png', name: `rotated page ${i + 1}` })),
    ];
    for (const { reference: expected, image, name } of pairs) {
      const [size, want] = [imageSize(image), imageSize(expected)];
      // The page turned by /Rotate (90 by pdf.rotate on page 1, 90 and 270 in the file) is imaged turned: landscape against portrait.
      assert.ok(Math.abs(size.width - want.width) <= 1 && Math.abs(size.height - want.height) <= 1, `${name}: ${size.width}×${size.height} against ${want.width}×${want.height}`);
    }
    const scores = imageSsim(pairs);
    console.log(scores.map((ssim, i) => `${pairs[i]?.name}: ${ssim.toFixed(4)}`).join('\n'));
    assert.deepEqual(scores.map((ssim, i) => ({ name: pairs[i]?.name, ssim })).filter(({ ssim }) => !(ssim >= 0.97)), []);
  });

  it('answers JPEG and WEBP at the width asked, the height in the page\'s proportions, and like poppler\'s page', async () => {
    const pdf = fixture('form.pdf');
    const jpeg = await images({ document: b64(pdf), output: 'JPEG', image: { width: 300, quality: 90 } });
    const webp = await images({ document: b64(pdf), output: 'WEBP', image: { pages: '2', dpi: 50 } });
    assert.equal(jpeg.type, 'image/jpeg');
    assert.ok(MAGIC.jpeg(jpeg.body));
    assert.equal(webp.type, 'image/webp');
    assert.ok(MAGIC.webp(webp.body));
    const jpegSize = imageSize(jpeg.body);
    assert.equal(jpegSize.width, 300);
    assert.equal(jpegSize.height, Math.round((792 * 300) / 612));
    const [ssimJpeg, ssimWebp] = imageSsim([
      { reference: pdftoppm(pdf, 72, ['-f', '1', '-l', '1', '-scale-to-x', '300', '-scale-to-y', '-1'])[0] as Buffer, image: jpeg.body, extension: 'jpg' },
      { reference: reference(pdf, 2, 50), image: webp.body, extension: 'webp' },
    ]);
    assert.ok((ssimJpeg as number) >= 0.9, `JPEG ${ssimJpeg}`);
    assert.ok((ssimWebp as number) >= 0.9, `WEBP ${ssimWebp}`);
  });

  it('refuses a huge page, too many pages and contradictory options with a 400 naming the field, and serves the next request', async () => {
    // Prepare: a page of 200 by 200 inches, a document of 101 small pages, and one of 10,000.
    const huge = await PDFDocument.create();
    huge.addPage([200 * 72, 200 * 72]);
    const hugePdf = b64(await huge.save());
    const many = await PDFDocument.create();
    for (let i = 0; i < 101; i++) many.addPage([100, 100]);
    const manyPdf = b64(await many.save());
    const tenThousand = await PDFDocument.create();
    for (let i = 0; i < 10_000; i++) tenThousand.addPage([100, 100]);
    const tenThousandPdf = b64(await tenThousand.save({ useObjectStreams: true }));

    // Act
    const answers = await Promise.all(
      [
        { document: hugePdf, output: 'PNG', image: { dpi: 300 } },
        { document: hugePdf, output: 'PNG', image: { width: 16384 } },
        { document: manyPdf, output: 'PNG', image: { pages: '' } },
        { document: manyPdf, output: 'PNG', image: { pages: '102' } },
        { document: manyPdf, output: 'PNG', image: { dpi: 72, width: 100 } },
        { document: manyPdf, output: 'PDF', image: { dpi: 72 } },
        { document: manyPdf, output: 'PNG', image: { dpi: 301 } },
        { document: manyPdf, output: 'PNG', image: { quality: 80 } },
        { document: manyPdf, output: 'PNG', pdf: { protection: { ownerPassword: 'owner-9931' } } },
        // Past the pages any document may have (as a merge part): refused as the document, before any image.
        { document: tenThousandPdf, output: 'PNG', image: { pages: '1-10000' } },
      ].map(async (json) => {
        const res = await service.request('/v1/pdf/process', { json });
        return { status: res.status, fields: Object.keys(((await res.json()) as { fields?: Record<string, string> }).fields ?? {}) };
      }),
    );
    const next = await images({ document: manyPdf, output: 'PNG', image: { pages: '101' } });

    // Assess
    assert.deepEqual(answers, [
      { status: 400, fields: ['image.dpi'] },
      { status: 400, fields: ['image.width'] },
      { status: 400, fields: ['image.pages'] },
      { status: 400, fields: ['image.pages'] },
      { status: 400, fields: ['image.width'] },
      { status: 400, fields: ['image'] },
      { status: 400, fields: ['image.dpi'] },
      { status: 400, fields: ['image.quality'] },
      { status: 400, fields: ['pdf.protection'] },
      { status: 400, fields: ['document'] },
    ]);
    assert.deepEqual(imageSize(next.body), { height: 133, width: 133, type: 'png' });
  });

  it('answers /sync with the URL of the image (one page) or of the ZIP (several), and /async likewise in its job', async () => {
    const pdf = b64(fixture('rotated.pdf'));
    const one = await service.request('/v1/pdf/process/sync', { json: { document: pdf, output: 'WEBP', image: { width: 120 } } });
    const several = await service.request('/v1/pdf/process/sync', { json: { document: pdf, output: 'PNG', image: { pages: '2-3', dpi: 36 } } });
    const queued = await service.request('/v1/pdf/process/async', { json: { document: pdf, output: 'JPEG', image: { pages: '1', dpi: 36 }, webhook: { url: `${receiver.url}/hook` } } });

    assert.equal(one.status, 200, await one.clone().text());
    const oneFile = await fetch(((await one.json()) as { fileUrl: string }).fileUrl);
    const webp = Buffer.from(await oneFile.arrayBuffer());
    assert.ok(MAGIC.webp(webp));
    assert.equal(imageSize(webp).width, 120);
    assert.equal(several.status, 200, await several.clone().text());
    const zip = Buffer.from(await (await fetch(((await several.json()) as { fileUrl: string }).fileUrl)).arrayBuffer());
    assert.deepEqual(unzip(zip).map((entry) => [entry.name, MAGIC.png(entry.data)]), [['page-002.png', true], ['page-003.png', true]]);
    assert.equal(queued.status, 201, await queued.clone().text());
    const job = (await queued.json()) as { id: string };
    let record: { status: string; fileUrl?: string } = { status: 'PENDING' };
    for (let i = 0; i < 120 && !['COMPLETED', 'FAILED'].includes(record.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      record = (await (await service.request(`/v1/jobs/${job.id}`)).json()) as typeof record;
    }
    assert.equal(record.status, 'COMPLETED');
    assert.ok(MAGIC.jpeg(Buffer.from(await (await fetch(record.fileUrl as string)).arrayBuffer())));
  });

  it('answers several pages with fileUrls beside the ZIP: one image per page in page order, on /sync, the async job and its webhook', async () => {
    type PageFile = { page: number; width: number; height: number; contentType: string; fileSize: number; fileUrl: string };
    type Answer = { fileUrl: string; fileUrls?: PageFile[] };
    const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
    /** Each entry's file is the image the ZIP holds for its page, of the size and type the entry says. */
    const checkAgainstZip = async (answer: Answer, pages: number[], what: string) => {
      const entries = unzip(await download(answer.fileUrl));
      assert.deepEqual(answer.fileUrls?.map((entry) => entry.page), pages, what);
      for (const [i, entry] of (answer.fileUrls ?? []).entries()) {
        const image = await download(entry.fileUrl);
        assert.equal(entry.contentType, 'image/png', what);
        assert.ok(MAGIC.png(image), what);
        assert.equal(entry.fileSize, image.length, what);
        assert.deepEqual(imageSize(image), { width: entry.width, height: entry.height, type: 'png' }, what);
        assert.equal(entries[i]?.name, `page-${String(entry.page).padStart(3, '0')}.png`, what);
        assert.ok(entries[i]?.data.equals(image), `${what}: page ${entry.page} is the ZIP's image`);
      }
    };
    const pdf = b64(fixture('rotated.pdf'));
    const hooksBefore = receiver.requests.length;

    // Act: pages asked out of order come back in page order; one page has no fileUrls.
    const several = await service.request('/v1/pdf/process/sync', { json: { document: pdf, output: 'PNG', image: { pages: '3,1-2', dpi: 36 } } });
    const one = await service.request('/v1/pdf/process/sync', { json: { document: pdf, output: 'PNG', image: { pages: '2', dpi: 36 } } });
    const queued = await service.request('/v1/pdf/process/async', { json: { document: pdf, output: 'PNG', image: { pages: '2-3', dpi: 36 }, webhook: { url: `${receiver.url}/hook` } } });

    // Assess
    assert.equal(several.status, 200, await several.clone().text());
    await checkAgainstZip((await several.json()) as Answer, [1, 2, 3], '/sync');
    assert.equal(one.status, 200, await one.clone().text());
    assert.equal('fileUrls' in ((await one.json()) as Answer), false, 'one page: fileUrl is its image, no fileUrls');
    assert.equal(queued.status, 201, await queued.clone().text());
    const { id } = (await queued.json()) as { id: string };
    let record: Answer & { status: string } = { status: 'PENDING', fileUrl: '' };
    for (let i = 0; i < 120 && !['COMPLETED', 'FAILED'].includes(record.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      record = (await (await service.request(`/v1/jobs/${id}`)).json()) as typeof record;
    }
    assert.equal(record.status, 'COMPLETED', JSON.stringify(record));
    await checkAgainstZip(record, [2, 3], 'the job');
    let hook: (Answer & { id: string }) | undefined;
    for (let i = 0; i < 60 && !hook; i++) {
      hook = receiver.requests.slice(hooksBefore).map((request) => JSON.parse(request.body) as Answer & { id: string }).find((body) => body.id === id);
      if (!hook) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(hook, 'the webhook was called');
    await checkAgainstZip(hook, [2, 3], 'the webhook');
  });
});
