import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { pngPixel, readImage } from '../helpers/documents.js';

const page = { html: b64('<body style="margin:0;background:#fff"><div id="box" style="margin:40px;width:300px;height:150px;background:#00f"></div><p>hello</p></body>') };
const oneX = { width: 800, height: 600, deviceScaleFactor: 1 };

describe('POST /v1/screenshot (raw)', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await service?.stop();
  });

  const shoot = async (body: Record<string, unknown>) => {
    const res = await service.request('/v1/screenshot', { json: body });
    const data = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) assert.fail(`status ${res.status}: ${Buffer.from(data).toString()}`);
    return { data, contentType: res.headers.get('content-type'), ...readImage(data) };
  };

  it('defaults to a PNG of the Macbook Pro 16 preset (1536×960 at 2×)', async () => {
    const shot = await shoot({ page });
    assert.equal(shot.contentType, 'image/png');
    assert.deepEqual([shot.type, shot.width, shot.height], ['png', 3072, 1920]);
  });

  it('uses a device preset: iPhone 15 Pro is 1179 px wide, and its landscape variant is wider than tall', async () => {
    const portrait = await shoot({ page, screenshot: { device: 'iPhone 15 Pro' } });
    assert.equal(portrait.width, 1179);
    const landscape = await shoot({ page, screenshot: { device: 'iPhone 15 Pro landscape' } });
    assert.ok(landscape.width > landscape.height);
  });

  it('lets a custom viewport win over the device', async () => {
    const shot = await shoot({ page, screenshot: { device: 'iPhone 15 Pro', viewport: oneX } });
    assert.deepEqual([shot.width, shot.height], [800, 600]);
  });

  for (const [type, mime] of [['jpeg', 'image/jpeg'], ['webp', 'image/webp']] as const) {
    it(`encodes ${type}`, async () => {
      const shot = await shoot({ page, screenshot: { type, viewport: oneX } });
      assert.equal(shot.contentType, mime);
      assert.equal(shot.type, type === 'jpeg' ? 'jpg' : type);
    });
  }

  it('trades size for quality', async () => {
    const noisy = { html: b64('<body style="margin:0;background:linear-gradient(45deg,#f06,#48f,#0c6)"><h1>quality</h1></body>') };
    const low = await shoot({ page: noisy, screenshot: { type: 'jpeg', quality: 5, viewport: oneX } });
    const high = await shoot({ page: noisy, screenshot: { type: 'jpeg', quality: 95, viewport: oneX } });
    assert.ok(low.data.length * 2 < high.data.length, `${low.data.length} vs ${high.data.length}`);
  });

  it('captures the full page with fullPage, lazy images included', async () => {
    const long = { html: b64(`<body style="margin:0"><div style="height:3000px">top</div>
      <img loading="lazy" id="lazy" width="100" height="100" src="data:image/svg+xml;base64,${b64('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#0f0"/></svg>')}">
      <script>document.getElementById('lazy').addEventListener('load', () => document.body.dataset.lazy = 'loaded')</script></body>`) };
    const shot = await shoot({ page: long, screenshot: { fullPage: true, viewport: oneX } });
    assert.equal(shot.width, 800);
    assert.ok(shot.height >= 3100, `full height, got ${shot.height}`);
    const [r, g, b] = pngPixel(shot.data, 50, 3050);
    assert.deepEqual([r, g, b], [0, 255, 0], 'the lazy image was loaded and painted');
  });

  it('captures a clip region', async () => {
    const shot = await shoot({ page, screenshot: { viewport: oneX, clip: { x: 10, y: 20, width: 200, height: 100 } } });
    assert.deepEqual([shot.width, shot.height], [200, 100]);
  });

  it('captures one element, overriding clip', async () => {
    const shot = await shoot({ page, screenshot: { viewport: oneX, element: '#box', clip: { x: 0, y: 0, width: 10, height: 10 } } });
    assert.deepEqual([shot.width, shot.height], [300, 150]);
    assert.deepEqual(pngPixel(shot.data, 150, 75).slice(0, 3), [0, 0, 255]);
  });

  it('answers 400 on screenshot.element when no element becomes visible', async () => {
    const res = await service.request('/v1/screenshot', {
      json: { page: { html: b64('<p>none</p>') }, screenshot: { element: '#missing', viewport: oneX } },
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { fields: Record<string, string> };
    assert.ok(body.fields['screenshot.element']);
  });

  it('keeps transparency with omitBackground', async () => {
    const clear = { html: b64('<body style="margin:0"><p>see-through</p></body>') };
    const opaque = await shoot({ page: clear, screenshot: { viewport: oneX } });
    assert.equal(pngPixel(opaque.data, 700, 500)[3], 255);
    const transparent = await shoot({ page: clear, screenshot: { viewport: oneX, omitBackground: true } });
    assert.equal(pngPixel(transparent.data, 700, 500)[3], 0);
  });

  it('accepts fromSurface, optimizeForSpeed and captureBeyondViewport', async () => {
    const shot = await shoot({ page, screenshot: { viewport: oneX, fromSurface: false, optimizeForSpeed: false, captureBeyondViewport: true } });
    assert.deepEqual([shot.width, shot.height], [800, 600]);
  });

  it('composes an overlay around the shot with margin and a browser frame', async () => {
    const plain = await shoot({ page, screenshot: { viewport: oneX } });
    const framed = await shoot({
      page,
      screenshot: { viewport: oneX, overlay: { background: '#123456', margin: 50, browser: 'dark', screenshotBorderRadius: 12, filter: 'grayscale(1)' } },
    });
    assert.ok(framed.width >= plain.width + 100, `${framed.width} wide`);
    assert.ok(framed.height >= plain.height + 100, `${framed.height} high`);
    // The filter greys the backdrop (#123456 → about 47 on each channel), not the shot.
    const [r, g, b] = pngPixel(framed.data, 5, 5);
    assert.ok(Math.abs(r! - g!) <= 3 && Math.abs(g! - b!) <= 3 && Math.abs(g! - 47) <= 6, `backdrop ${[r, g, b]} should be grey`);
  });

  it('emulates the dark colour scheme in the image', async () => {
    const themed = { html: b64('<style>body{margin:0;background:#fff} @media (prefers-color-scheme: dark){body{background:#000}}</style><p>t</p>') };
    const light = await shoot({ page: themed, screenshot: { viewport: oneX } });
    assert.deepEqual(pngPixel(light.data, 700, 500).slice(0, 3), [255, 255, 255]);
    const res = await shoot({ page: { ...themed, colorScheme: 'dark' }, screenshot: { viewport: oneX } });
    assert.deepEqual(pngPixel(res.data, 700, 500).slice(0, 3), [0, 0, 0]);
  });
});
