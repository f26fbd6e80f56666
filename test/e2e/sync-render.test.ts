import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readImage, readPdf } from '../helpers/documents.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type SyncResult = { id: string; status: string; fileUrl: string; signedUrlStatus: string };

/** A page of random pixels: it compresses so badly that its PNG is larger than a Lambda answer can carry. */
const NOISE_PAGE = `<style>body{margin:0}</style><canvas id="c" width="1600" height="1200"></canvas><script>
const canvas = document.getElementById('c');
const context = canvas.getContext('2d');
const image = context.createImageData(1600, 1200);
for (let i = 0; i < image.data.length; i += 65536) crypto.getRandomValues(image.data.subarray(i, Math.min(i + 65536, image.data.length)));
for (let i = 3; i < image.data.length; i += 4) image.data[i] = 255;
context.putImageData(image, 0, 0);
</script>`;

describe('sync rendering and large raw files', () => {
  let service: RunningService;
  let receiver: TestServer;

  before(async () => {
    receiver = await startTestServer({
      '/accept': (_req, res) => res.writeHead(200).end(),
      '/refuse': (_req, res) => res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error>SignatureDoesNotMatch</Error>'),
    });
    service = await startService();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const download = async (url: string) => {
    const res = await fetch(url);
    assert.equal(res.status, 200, `GET fileUrl answered ${res.status}`);
    return { contentType: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
  };

  it('answers 200 {id, status, fileUrl, signedUrlStatus: NOT_PROVIDED} without storage, and the fileUrl serves the PDF', async () => {
    // Act
    const res = await service.request('/v1/pdf/sync', { json: { page: { html: b64('<h1>Quarterly report</h1>') }, pdf: { format: 'a4' } } });

    // Assess
    assert.equal(res.status, 200);
    const body = (await res.json()) as SyncResult;
    assert.deepEqual(Object.keys(body).sort(), ['fileUrl', 'id', 'signedUrlStatus', 'status']);
    assert.match(body.id, /^job_/);
    assert.equal(body.status, 'COMPLETED');
    assert.equal(body.signedUrlStatus, 'NOT_PROVIDED');
    assert.match(body.fileUrl, /X-Amz-Expires=3600/);
    const file = await download(body.fileUrl);
    assert.equal(file.contentType, 'application/pdf');
    const pdf = await readPdf(file.bytes);
    assert.ok(Math.abs((pdf.pages[0]?.width ?? 0) - 8.27) < 0.02, `A4 width, got ${pdf.pages[0]?.width} in`);
    assert.match(pdf.text.join(' '), /Quarterly report/);
  });

  it('PUTs the file to the caller’s pre-signed URL with its Content-Type (UPLOADED), and keeps the temporary copy too', async () => {
    // Act
    const res = await service.request('/v1/screenshot/sync', {
      json: {
        page: { html: b64('<body style="background:#0a0">green</body>') },
        screenshot: { viewport: { width: 400, height: 300 } },
        storage: { preSignedUrl: `${receiver.url}/accept?X-Amz-Signature=abc` },
      },
    });

    // Assess
    assert.equal(res.status, 200);
    const body = (await res.json()) as SyncResult;
    assert.equal(body.signedUrlStatus, 'UPLOADED');
    const upload = receiver.requests.find((r) => r.url.startsWith('/accept'));
    assert.ok(upload, 'the receiver got the upload');
    assert.equal(upload.method, 'PUT');
    assert.equal(upload.headers['content-type'], 'image/png');
    const file = await download(body.fileUrl);
    assert.deepEqual(readImage(file.bytes), { type: 'png', width: 400, height: 300 });
    assert.equal(Number(upload.headers['content-length']), file.bytes.length);
  });

  it('reports FAILED when the caller’s URL refuses the upload, and the fileUrl still serves the file', async () => {
    // Act
    const res = await service.request('/v1/screenshot/sync', {
      json: {
        page: { html: b64('<p>kept safe</p>') },
        screenshot: { type: 'jpeg', viewport: { width: 320, height: 200 } },
        storage: { preSignedUrl: `${receiver.url}/refuse` },
      },
    });

    // Assess
    assert.equal(res.status, 200);
    const body = (await res.json()) as SyncResult;
    assert.equal(body.status, 'COMPLETED');
    assert.equal(body.signedUrlStatus, 'FAILED');
    assert.ok(receiver.requests.some((r) => r.url === '/refuse' && r.method === 'PUT'));
    const file = await download(body.fileUrl);
    assert.equal(file.contentType, 'image/jpeg');
    assert.deepEqual(readImage(file.bytes), { type: 'jpg', width: 320, height: 200 });
  });

  it('renders a saved template to a fileUrl, the request merged over it; another account’s template is 404', async () => {
    // Prepare
    const created = await service.request('/v1/templates', {
      json: { name: 'Badge', variables: { page: { html: b64('<p>badge</p>') }, screenshot: { viewport: { width: 200, height: 100 } } } },
    });
    const { id } = (await created.json()) as { id: string };
    const other = (await service.tokens('create')).stdout.trim();

    // Act
    const res = await service.request(`/v1/template/${id}/sync`, { json: { screenshot: { type: 'webp' } } });
    const asOther = await service.request(`/v1/template/${id}/sync`, { json: {}, token: other });

    // Assess
    assert.equal(res.status, 200);
    const file = await download(((await res.json()) as SyncResult).fileUrl);
    assert.equal(file.contentType, 'image/webp');
    assert.deepEqual(readImage(file.bytes), { type: 'webp', width: 200, height: 100 });
    assert.equal(asOther.status, 404);
  });

  it('refuses a webhook on a sync endpoint as an unknown field', async () => {
    const res = await service.request('/v1/pdf/sync', { json: { page: { html: b64('x') }, webhook: { url: 'https://hooks.example' } } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { fields: Record<string, string> }).fields.webhook, 'Unknown field');
  });

  it('answers a raw render too large for a Lambda response with 303 to a temporary copy of the file', async () => {
    // Act
    const res = await service.request('/v1/screenshot', {
      json: { page: { html: b64(NOISE_PAGE) }, screenshot: { viewport: { width: 1600, height: 1200 } } },
    });

    // Assess
    assert.equal(res.status, 303, `expected 303, got ${res.status}: ${await res.clone().text()}`);
    const location = res.headers.get('location');
    assert.ok(location, 'Location header');
    assert.match(String(((await res.json()) as { message: string }).message), /too large/);
    const file = await download(location);
    assert.equal(file.contentType, 'image/png');
    assert.deepEqual(readImage(file.bytes), { type: 'png', width: 1600, height: 1200 });
    assert.ok(file.bytes.length > 4.7e6, `${file.bytes.length} bytes: more than fits base64-encoded in 6 MB`);
  });
});
