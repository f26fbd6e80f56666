import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import type { Renderer } from '../../../lib/render/index.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { pngPixel } from '../../helpers/documents.js';
import { b64, oneX, renderImage, renderRequest } from './render-fixtures.js';

const boxPage = { html: b64('<body style="margin:0;background:#fff"><div id="box" style="margin:40px;width:300px;height:150px;background:#00f"></div><p>hello</p></body>') };
const green = b64('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#0f0"/></svg>');

describe('renderer › screenshot output', () => {
  let renderer: Renderer;
  before(async () => {
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  it('takes a PNG of the Macbook Pro 16 screen by default (3072×1920 pixels)', async () => {
    // Act
    const shot = await renderImage(renderer, boxPage);

    // Assess
    assert.equal(shot.contentType, 'image/png');
    assert.deepEqual([shot.type, shot.width, shot.height], ['png', 3072, 1920]);
  });

  it('emulates a device: iPhone 15 Pro is 1179 pixels wide and gets the phone\'s user agent', async () => {
    // Prepare
    const uaPage = { html: b64('<body style="margin:0"><script>document.body.style.background = /iPhone/.test(navigator.userAgent) ? "#0f0" : "#f00"</script></body>') };

    // Act
    const shot = await renderImage(renderer, uaPage, { device: 'iPhone 15 Pro' });
    const landscape = await renderImage(renderer, boxPage, { device: 'iPhone 15 Pro landscape' });

    // Assess
    assert.equal(shot.width, 1179);
    assert.deepEqual(pngPixel(shot.data, 10, 10).slice(0, 3), [0, 255, 0], 'the page saw an iPhone user agent');
    assert.ok(landscape.width > landscape.height);
  });

  it('lets a custom viewport win over the device', async () => {
    // Act
    const shot = await renderImage(renderer, boxPage, { device: 'iPhone 15 Pro', viewport: oneX });
    const doubled = await renderImage(renderer, boxPage, { viewport: { width: 400, height: 300, deviceScaleFactor: 2 } });

    // Assess
    assert.deepEqual([shot.width, shot.height], [800, 600]);
    assert.deepEqual([doubled.width, doubled.height], [800, 600]);
  });

  it('encodes JPEG and WebP, and trades size for quality', async () => {
    // Prepare
    const noisy = { html: b64('<body style="margin:0;background:linear-gradient(45deg,#f06,#48f,#0c6)"><h1>quality</h1></body>') };

    // Act
    const jpeg = await renderImage(renderer, boxPage, { type: 'jpeg', viewport: oneX });
    const webp = await renderImage(renderer, boxPage, { type: 'webp', viewport: oneX });
    const low = await renderImage(renderer, noisy, { type: 'jpeg', quality: 5, viewport: oneX });
    const high = await renderImage(renderer, noisy, { type: 'jpeg', quality: 95, viewport: oneX });

    // Assess
    assert.deepEqual([jpeg.contentType, jpeg.type, jpeg.width], ['image/jpeg', 'jpg', 800]);
    assert.deepEqual([webp.contentType, webp.type, webp.width], ['image/webp', 'webp', 800]);
    assert.ok(low.data.length * 2 < high.data.length, `${low.data.length} vs ${high.data.length}`);
  });

  it('captures a clip region, scaled by clip.scale', async () => {
    // Act
    const shot = await renderImage(renderer, boxPage, { viewport: oneX, clip: { x: 40, y: 40, width: 200, height: 100 } });
    const scaled = await renderImage(renderer, boxPage, { viewport: oneX, clip: { x: 40, y: 40, width: 200, height: 100, scale: 2 } });

    // Assess
    assert.deepEqual([shot.width, shot.height], [200, 100]);
    assert.deepEqual(pngPixel(shot.data, 100, 50).slice(0, 3), [0, 0, 255], 'the clip starts at the box');
    assert.deepEqual([scaled.width, scaled.height], [400, 200]);
  });

  it('captures one element, overriding clip', async () => {
    // Act
    const shot = await renderImage(renderer, boxPage, { viewport: oneX, element: '#box', clip: { x: 0, y: 0, width: 10, height: 10 } });

    // Assess
    assert.deepEqual([shot.width, shot.height], [300, 150]);
    assert.deepEqual(pngPixel(shot.data, 150, 75).slice(0, 3), [0, 0, 255]);
  });

  it('waits for the element to appear', async () => {
    // Prepare
    const late = { html: b64('<script>setTimeout(() => { const d = document.createElement("div"); d.id = "late"; d.style.cssText = "width:120px;height:80px;background:#0f0"; document.body.append(d) }, 400)</script>'), waitUntil: 'load' as const };

    // Act
    const shot = await renderImage(renderer, late, { viewport: oneX, element: '#late' });

    // Assess
    assert.deepEqual([shot.width, shot.height], [120, 80]);
  });

  it('answers 400 on screenshot.element when no element becomes visible', async () => {
    // Act
    const attempt = renderRequest(renderer, { output: 'IMAGE', page: { html: b64('<p>none</p>') }, screenshot: { element: '#missing', viewport: oneX } }, { timeoutMs: 3_000 });

    // Assess
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.match(error.fields['screenshot.element'] ?? '', /No visible element matches the selector/);
      return true;
    });
  });

  it('captures the full page with fullPage, lazy images scrolled into loading', async () => {
    // Prepare
    const long = { html: b64(`<body style="margin:0"><div style="height:3000px">top</div>
      <img loading="lazy" width="100" height="100" src="data:image/svg+xml;base64,${green}"></body>`) };

    // Act
    const shot = await renderImage(renderer, long, { fullPage: true, viewport: oneX });

    // Assess
    assert.equal(shot.width, 800);
    assert.ok(shot.height >= 3100, `full height, got ${shot.height}`);
    assert.deepEqual(pngPixel(shot.data, 50, 3050).slice(0, 3), [0, 255, 0], 'the lazy image was loaded and painted');
  });

  it('cuts a full page off at 16384 CSS pixels', async () => {
    // Prepare
    const endless = { html: b64('<body style="margin:0"><div style="height:40000px;background:linear-gradient(#fff,#000)"></div></body>') };

    // Act
    const shot = await renderImage(renderer, endless, { fullPage: true, type: 'jpeg', viewport: { width: 200, height: 300, deviceScaleFactor: 1 } });

    // Assess
    assert.deepEqual([shot.width, shot.height], [200, 16384]);
  });

  it('keeps transparency with omitBackground', async () => {
    // Prepare
    const clear = { html: b64('<body style="margin:0"><p>see-through</p></body>') };

    // Act
    const opaque = await renderImage(renderer, clear, { viewport: oneX });
    const transparent = await renderImage(renderer, clear, { viewport: oneX, omitBackground: true });

    // Assess
    assert.equal(pngPixel(opaque.data, 700, 500)[3], 255);
    assert.equal(pngPixel(transparent.data, 700, 500)[3], 0);
  });

  it('accepts fromSurface, optimizeForSpeed and captureBeyondViewport', async () => {
    // Act
    const shot = await renderImage(renderer, boxPage, { viewport: oneX, fromSurface: false, optimizeForSpeed: false, captureBeyondViewport: true });

    // Assess
    assert.deepEqual([shot.width, shot.height], [800, 600]);
  });

  it('composes the overlay around the shot', async () => {
    // Act
    const framed = await renderImage(renderer, boxPage, {
      viewport: oneX,
      overlay: { background: '#123456', margin: 50, browser: 'dark', screenshotBorderRadius: 12 },
    });

    // Assess
    assert.ok(framed.width >= 900 && framed.height >= 700, `${framed.width}×${framed.height}`);
    assert.deepEqual(pngPixel(framed.data, 5, 5).slice(0, 3), [0x12, 0x34, 0x56]);
  });

  it('keeps the overlay margin and frame bar at their CSS size on the default 2× device', async () => {
    // Act
    const plain = await renderImage(renderer, boxPage, { overlay: { margin: 40 } });
    const framed = await renderImage(renderer, boxPage, { overlay: { margin: 40, browser: 'light' } });

    // Assess: the 3072×1920 shot, plus 40 CSS pixels each side and a 36 px bar, all twice as many image pixels
    assert.deepEqual([plain.width, plain.height], [3072 + 2 * 40 * 2, 1920 + 2 * 40 * 2]);
    assert.deepEqual([framed.width, framed.height], [3072 + 2 * 40 * 2, 1920 + (36 + 2 * 40) * 2]);
  });

  it('draws WebGL canvases and composited layers into the capture (pages are composited in software, WebGL on SwiftShader)', async () => {
    // Prepare: a WebGL canvas cleared to green beside a layer of its own (translateZ), over a red page
    const page = { html: b64(`<body style="margin:0;background:#f00">
      <canvas id="gl" width="100" height="100" style="position:absolute;left:0;top:0"></canvas>
      <div style="position:absolute;left:200px;top:0;width:100px;height:100px;background:#00f;will-change:transform;transform:translateZ(0)"></div>
      <script>
        const gl = document.getElementById('gl').getContext('webgl', { preserveDrawingBuffer: true });
        if (gl) { gl.clearColor(0, 1, 0, 1); gl.clear(gl.COLOR_BUFFER_BIT); }
      </script></body>`) };

    // Act
    const shot = await renderImage(renderer, page, { viewport: oneX });

    // Assess
    assert.deepEqual(pngPixel(shot.data, 50, 50).slice(0, 3), [0, 255, 0], 'the WebGL canvas is drawn');
    assert.deepEqual(pngPixel(shot.data, 250, 50).slice(0, 3), [0, 0, 255], 'the composited layer is drawn');
    assert.deepEqual(pngPixel(shot.data, 150, 50).slice(0, 3), [255, 0, 0], 'the page between them');
  });
});
