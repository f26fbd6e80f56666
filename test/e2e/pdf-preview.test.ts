import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { imageSize } from 'image-size';
import { imageSsim } from '../helpers/page-ssim.js';
import { pdftoppm } from '../helpers/pdf-tools.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * `pdf.preview` (issue 34) on the API of `npm start`: the image of the
 * finished PDF's first page stored beside it, answered as `previewUrl` on
 * /v1/pdf, templates, merges and /v1/pdf/process (sync; async in the job and
 * its webhook). Its pixels are poppler's `pdftoppm` of the same PDF's page 1
 * at the same width (scikit-image SSIM ≥ 0.97); a protected PDF is imaged
 * opened with its password; the caller's upload URL gets the PDF alone; a
 * raw request is a 400 naming pdf.preview.
 */

/** A first page with text, colour and a translucent layer, and a second page the preview never shows. */
const PAGE = b64(`<!doctype html><html><meta charset="utf-8"><body style="margin:0;font-family:sans-serif">
<div style="padding:40px"><h1 style="font-size:42px;color:#123456">Quarterly report</h1>
<div style="position:relative;height:260px"><div style="position:absolute;left:0;top:0;width:300px;height:200px;background:#e63946"></div>
<div style="position:absolute;left:150px;top:80px;width:300px;height:160px;background:rgba(29,53,87,.6)"></div></div>
<p style="font-size:20px">Revenue grew in every region; the table below has the figures.</p></div>
<h1 style="break-before:page;font-size:80px">Page two</h1></body></html>`);

const MAGIC = {
  png: (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  webp: (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

const download = async (url: string) => {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return Buffer.from(await res.arrayBuffer());
};

/** Poppler's image of page 1 of `pdf`, `width` pixels wide (height in proportion). */
const popplerPage1 = (pdf: Uint8Array, width: number, args: string[] = []) => {
  const [image] = pdftoppm(pdf, 72, ['-f', '1', '-l', '1', '-scale-to-x', String(width), '-scale-to-y', '-1', ...args]);
  assert.ok(image, 'pdftoppm drew page 1');
  return image;
};

describe('pdf.preview', () => {
  let service: RunningService;
  let receiver: TestServer;

  before(async () => {
    const ok = (_req: unknown, res: { writeHead: (status: number) => void; end: () => void }) => {
      res.writeHead(200);
      res.end();
    };
    receiver = await startTestServer({ '/hook': ok, '/upload': ok });
    service = await startService();
  });

  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  type SyncAnswer = { fileUrl: string; previewUrl?: string; signedUrlStatus: string };
  const sync = async (path: string, json: unknown): Promise<SyncAnswer> => {
    const res = await service.request(path, { json });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as SyncAnswer;
  };

  it('stores a PNG of the first page at the width asked, beside the PDF, whose pixels are poppler\'s of that page (SSIM ≥ 0.97); the caller\'s URL gets the PDF alone', async () => {
    // Act
    const uploadsBefore = receiver.requests.filter((r) => r.url === '/upload').length;
    const answer = await sync('/v1/pdf/sync', { page: { html: PAGE }, pdf: { printBackground: true, preview: { width: 300 } }, storage: { preSignedUrl: `${receiver.url}/upload` } });
    const plain = await sync('/v1/pdf/sync', { page: { html: PAGE } });

    // Assess
    assert.equal(answer.signedUrlStatus, 'UPLOADED');
    const uploads = receiver.requests.filter((r) => r.url === '/upload').slice(uploadsBefore);
    assert.deepEqual(uploads.map((r) => r.headers['content-type']), ['application/pdf'], 'one PUT, the PDF');
    assert.equal('previewUrl' in plain, false, 'no preview unless asked');
    const pdf = await download(answer.fileUrl);
    const preview = await download(answer.previewUrl as string);
    assert.ok(MAGIC.png(preview));
    const reference = popplerPage1(pdf, 300);
    const size = imageSize(preview);
    const want = imageSize(reference);
    assert.equal(size.width, 300);
    assert.ok(Math.abs(size.height - want.height) <= 1, `${size.width}×${size.height} against poppler's ${want.width}×${want.height}`);
    const [ssim] = imageSsim([{ reference, image: preview, extension: 'png' }]);
    assert.ok((ssim ?? 0) >= 0.97, `SSIM ${ssim}`);
    // Page 2 is not what the preview shows.
    const [page2] = pdftoppm(pdf, 72, ['-f', '2', '-l', '2', '-scale-to-x', '300', '-scale-to-y', '-1']);
    const [other] = imageSsim([{ reference: page2 as Buffer, image: preview, extension: 'png' }]);
    assert.ok((other ?? 1) < 0.9, `page 2 differs (SSIM ${other})`);
  });

  it('answers previewUrl on templates, merges and processed PDFs (default: PNG 400 px wide), as JPEG and WEBP when asked', async () => {
    // Prepare
    const created = await service.request('/v1/templates', { json: { name: 'Preview', variables: { page: { html: PAGE }, pdf: { preview: { type: 'jpeg' } } } } });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const rendered = await download((await sync('/v1/pdf/sync', { page: { html: PAGE } })).fileUrl);

    // Act
    const template = await sync(`/v1/template/${id}/sync`, {});
    const merged = await sync('/v1/pdf/merge/sync', { parts: [{ page: { html: PAGE } }, { document: rendered.toString('base64') }], pdf: { preview: { type: 'webp', width: 200 } } });
    const processed = await sync('/v1/pdf/process/sync', { document: rendered.toString('base64'), pdf: { rotate: { angle: 90 }, preview: {} } });

    // Assess
    const jpeg = await download(template.previewUrl as string);
    assert.ok(MAGIC.jpeg(jpeg));
    assert.equal(imageSize(jpeg).width, 400);
    const webp = await download(merged.previewUrl as string);
    assert.ok(MAGIC.webp(webp));
    assert.equal(imageSize(webp).width, 200);
    // The preview is of the finished PDF: the processed page turned a quarter, landscape.
    const png = await download(processed.previewUrl as string);
    const pdf = await download(processed.fileUrl);
    assert.ok(MAGIC.png(png));
    const size = imageSize(png);
    assert.equal(size.width, 400);
    assert.ok(size.height < size.width, `rotated: ${size.width}×${size.height}`);
    // pdftoppm's -scale-to-x is of the page before its rotation; -scale-to is of its longer side, here its width as shown.
    const [reference] = pdftoppm(pdf, 72, ['-f', '1', '-l', '1', '-scale-to', '400']);
    assert.equal(imageSize(reference as Buffer).width, size.width);
    assert.ok(Math.abs(imageSize(reference as Buffer).height - size.height) <= 1, 'poppler rounds the height up');
    const [ssim] = imageSsim([{ reference: reference as Buffer, image: png, extension: 'png' }]);
    assert.ok((ssim ?? 0) >= 0.97, `SSIM ${ssim}`);
  });

  it('images a protected PDF opened with its user password, as a reader who opens it sees it', async () => {
    const answer = await sync('/v1/pdf/sync', { page: { html: PAGE }, pdf: { printBackground: true, protection: { userPassword: 'open-sesame' }, preview: { width: 250 } } });
    const pdf = await download(answer.fileUrl);
    const preview = await download(answer.previewUrl as string);
    const [ssim] = imageSsim([{ reference: popplerPage1(pdf, 250, ['-upw', 'open-sesame']), image: preview, extension: 'png' }]);
    assert.ok((ssim ?? 0) >= 0.97, `SSIM ${ssim}`);
  });

  it('gives previewUrl in an async job and its webhook', async () => {
    const hooksBefore = receiver.requests.length;
    const queued = await service.request('/v1/pdf/async', { json: { page: { html: PAGE }, pdf: { preview: { width: 120, type: 'jpeg' } }, webhook: { url: `${receiver.url}/hook` } } });
    assert.equal(queued.status, 201, await queued.clone().text());
    const { id } = (await queued.json()) as { id: string };
    let record: { status: string; previewUrl?: string } = { status: 'PENDING' };
    for (let i = 0; i < 120 && !['COMPLETED', 'FAILED'].includes(record.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      record = (await (await service.request(`/v1/jobs/${id}`)).json()) as typeof record;
    }
    assert.equal(record.status, 'COMPLETED', JSON.stringify(record));
    const fromJob = await download(record.previewUrl as string);
    assert.ok(MAGIC.jpeg(fromJob));
    assert.equal(imageSize(fromJob).width, 120);
    let hook: { id: string; previewUrl?: string } | undefined;
    for (let i = 0; i < 60 && !hook; i++) {
      hook = receiver.requests.slice(hooksBefore).map((r) => JSON.parse(r.body) as { id: string; previewUrl?: string }).find((body) => body.id === id);
      if (!hook) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(hook?.previewUrl, 'the webhook has previewUrl');
    assert.ok((await download(hook.previewUrl)).equals(fromJob));
  });

  it('refuses pdf.preview on raw requests, on page images and out of bounds with a 400 naming the field', async () => {
    const created = await service.request('/v1/templates', { json: { name: 'Raw preview', variables: { page: { html: PAGE }, pdf: { preview: {} } } } });
    const { id } = (await created.json()) as { id: string };
    const document = (await download((await sync('/v1/pdf/sync', { page: { html: PAGE } })).fileUrl)).toString('base64');
    const cases: Array<[string, unknown, string]> = [
      ['/v1/pdf', { page: { html: PAGE }, pdf: { preview: {} } }, 'pdf.preview'],
      [`/v1/template/${id}`, {}, 'pdf.preview'],
      ['/v1/pdf/merge', { parts: [{ page: { html: PAGE } }], pdf: { preview: {} } }, 'pdf.preview'],
      ['/v1/pdf/process', { document, pdf: { preview: {} } }, 'pdf.preview'],
      ['/v1/pdf/process/sync', { document, output: 'PNG', pdf: { preview: {} } }, 'pdf.preview'],
      ['/v1/pdf/merge/sync', { parts: [{ page: { html: PAGE }, pdf: { preview: {} } }] }, 'parts.0.pdf.preview'],
      // A batch's manifest lists each item's file: no place for a preview, whether the item or a template asks.
      ['/v1/batches', { items: [{ page: { html: PAGE } }, { page: { html: PAGE }, pdf: { preview: {} } }] }, 'items.1.pdf.preview'],
      ['/v1/batches', { items: [{ templateId: id }] }, 'items.0.pdf.preview'],
      ['/v1/pdf/sync', { page: { html: PAGE }, pdf: { preview: { width: 4000 } } }, 'pdf.preview.width'],
      ['/v1/pdf/sync', { page: { html: PAGE }, pdf: { preview: { type: 'gif' } } }, 'pdf.preview.type'],
      // 400 px wide on a page 1 px wide and 200 in tall: past the pixel bound, before anything is drawn.
      ['/v1/pdf/sync', { page: { html: PAGE }, pdf: { width: '1px', height: '200in', preview: {} } }, 'pdf.preview.width'],
    ];
    for (const [path, json, field] of cases) {
      const res = await service.request(path, { json });
      const body = (await res.json()) as { fields?: Record<string, string> };
      assert.equal(res.status, 400, `${path} ${JSON.stringify(json).slice(0, 80)}: ${JSON.stringify(body)}`);
      assert.ok(body.fields?.[field], `${path}: names ${field}: ${JSON.stringify(body)}`);
    }
    // And the service goes on.
    assert.ok((await sync('/v1/pdf/sync', { page: { html: PAGE }, pdf: { preview: { width: 64 } } })).previewUrl);
  });
});
