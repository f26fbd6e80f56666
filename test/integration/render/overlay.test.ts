import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import chromium from '@sparticuz/chromium';
import { imageSize } from 'image-size';
import puppeteer, { type Browser } from 'puppeteer-core';
import { ValidationError } from '../../../lib/errors.js';
import { buildRenderPlan, overlayPlan } from '../../../lib/plan/build-plan.js';
import { toRequestError } from '../../../lib/plan/request-errors.js';
import { composeOverlay, FRAME_BAR_HEIGHT, type OverlayShot, type OverlayTarget } from '../../../lib/render/output/overlay.js';
import type { ScreenshotOptionsOutput } from '../../../lib/schemas/render-options.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A screenshot plan with an overlay, for naming what the overlay refuses. */
const OVERLAY_PLAN = buildRenderPlan({ output: 'IMAGE', page: { url: 'https://example.com/' }, screenshot: { overlay: {} } });

const UNSAFE_FLAGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials']);

async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => {
    const name = arg.split('=')[0] ?? arg;
    return !UNSAFE_FLAGS.has(name) && name !== '--headless';
  });
  return await puppeteer.launch({
    // Chromium's own temporary files go in a folder removed at exit (a browser closed at once can leave one behind).
    env: { ...process.env, TMPDIR: tempDir('docrender-chromium-test-') },
    executablePath: await chromium.executablePath(),
    headless: 'shell',
    args: [...args, '--disable-background-networking', '--no-first-run'],
  });
}

type Rgba = [number, number, number, number];
type OverlayInput = NonNullable<ScreenshotOptionsOutput['overlay']>;

describe('composeOverlay', () => {
  let browser: Browser;
  let shot: OverlayShot;
  let shot2x: OverlayShot;
  let bluePng: Buffer;
  let server: Server;
  let imageUrl: string;
  let imageRequests = 0;

  /** A solid-colour PNG of the given CSS size, shot by Chromium. */
  async function solid(colour: string, width: number, height: number, scale = 1): Promise<OverlayShot> {
    const page = await browser.newPage();
    await page.setViewport({ width, height, deviceScaleFactor: scale });
    await page.setContent(`<body style="margin:0;background:${colour}"></body>`);
    const data = Buffer.from(await page.screenshot({ type: 'png' }));
    await page.close();
    return { data, type: 'png', width: width * scale, height: height * scale, scale };
  }

  /** An overlay as the request gives it, planned as the edge plans it. */
  async function compose(overlay: OverlayInput, out: OverlayTarget = { type: 'png' }, from = shot, allowUrl?: (url: string) => boolean) {
    const page = await browser.newPage();
    try {
      return await composeOverlay(page, from, overlayPlan(overlay), out, allowUrl ? { allowUrl } : {});
    } catch (error) {
      // Named by the request's fields as the edge names them.
      throw toRequestError(error, OVERLAY_PLAN);
    } finally {
      await page.close();
    }
  }

  /** Reads pixels of an image by decoding it in Chromium. */
  async function pixels(image: Buffer, points: Array<[number, number]>): Promise<Rgba[]> {
    const page = await browser.newPage();
    try {
      return await page.evaluate(
        async (src: string, at: Array<[number, number]>) => {
          const img = new Image();
          img.src = src;
          await img.decode();
          const canvas = document.createElement('canvas');
          canvas.width = img.naturalWidth;
          canvas.height = img.naturalHeight;
          const context = canvas.getContext('2d')!;
          context.drawImage(img, 0, 0);
          return at.map(([x, y]) => Array.from(context.getImageData(x, y, 1, 1).data) as Rgba);
        },
        `data:image/png;base64,${image.toString('base64')}`,
        points,
      );
    } finally {
      await page.close();
    }
  }

  const near = (actual: Rgba, expected: Rgba, tolerance = 12) =>
    actual.every((value, i) => Math.abs(value - (expected[i] ?? 0)) <= tolerance);

  before(async () => {
    browser = await launchBrowser();
    shot = await solid('rgb(0,200,0)', 400, 300);
    shot2x = await solid('rgb(0,200,0)', 200, 150, 2);
    bluePng = (await solid('rgb(0,0,255)', 20, 20)).data;
    server = createServer((_req, res) => {
      imageRequests += 1;
      res.writeHead(200, { 'content-type': 'image/png' }).end(bluePng);
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bg.png`;
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('puts the margin around the shot on the default gradient', async () => {
    // Act
    const image = await compose({});
    const [corner, centre] = await pixels(image, [[2, 2], [240, 190]]);

    // Assess: 40 px default margin on each side
    assert.deepEqual(imageSize(image), { width: 480, height: 380, type: 'png' });
    assert.ok(!near(corner!, [0, 200, 0, 255]), `corner ${corner} should be background`);
    assert.ok(near(centre!, [0, 200, 0, 255]), `centre ${centre} should be the shot`);
  });

  it('adds the browser window bar above the shot, light or dark', async () => {
    // Act
    const dark = await compose({ browser: 'dark', margin: 20, background: '#ffffff' });
    const light = await compose({ browser: 'light', margin: 20, background: '#000000' });
    const [darkBar, darkShot] = await pixels(dark, [[220, 20 + FRAME_BAR_HEIGHT / 2], [220, 20 + FRAME_BAR_HEIGHT + 150]]);
    const [lightBar] = await pixels(light, [[220, 20 + FRAME_BAR_HEIGHT / 2]]);

    // Assess
    assert.deepEqual(imageSize(dark), { width: 440, height: 340 + FRAME_BAR_HEIGHT, type: 'png' });
    assert.ok(darkBar!.slice(0, 3).every((c) => c < 80), `dark bar ${darkBar}`);
    assert.ok(lightBar!.slice(0, 3).every((c) => c > 200), `light bar ${lightBar}`);
    assert.ok(near(darkShot!, [0, 200, 0, 255]));
  });

  it('scales margin and frame with the shot device scale factor', async () => {
    // Act
    const image = await compose({ margin: 10, browser: 'light' }, { type: 'png' }, shot2x);

    // Assess: 200x150 CSS at 2x, 10 px margins and the bar, all doubled
    assert.deepEqual(imageSize(image), { width: (200 + 20) * 2, height: (150 + 20 + FRAME_BAR_HEIGHT) * 2, type: 'png' });
  });

  it('paints a colour background and applies the CSS filter to it, not to the shot', async () => {
    // Act
    const image = await compose({ background: 'rgb(255, 0, 0)', filter: 'grayscale(1)', margin: 30 });
    const [corner, centre] = await pixels(image, [[3, 3], [230, 180]]);

    // Assess: the red backdrop is grey (0.2126 × 255 by the CSS grayscale matrix), the green shot is as rendered
    const [r, g, b] = corner!;
    assert.ok(Math.abs(r! - g!) <= 3 && Math.abs(g! - b!) <= 3 && Math.abs(g! - 54) <= 6, `corner ${corner} should be grey`);
    assert.ok(near(centre!, [0, 200, 0, 255]), `centre ${centre} should be the shot's green`);
  });

  it('rounds the shot corners and keeps them transparent with omitBackground', async () => {
    // Act
    const image = await compose({ margin: 0, screenshotBorderRadius: 60 }, { type: 'png', omitBackground: true });
    const [corner, centre] = await pixels(image, [[2, 2], [200, 150]]);

    // Assess
    assert.deepEqual(imageSize(image), { width: 400, height: 300, type: 'png' });
    assert.equal(corner![3], 0, `corner ${corner} should be transparent`);
    assert.ok(near(centre!, [0, 200, 0, 255]));
  });

  it('encodes the result in the requested type', async () => {
    // Act
    const jpeg = await compose({ margin: 10 }, { type: 'jpeg', quality: 60 });
    const webp = await compose({ margin: 10 }, { type: 'webp', quality: 80 });

    // Assess
    assert.deepEqual(imageSize(jpeg), { width: 420, height: 320, type: 'jpg' });
    assert.deepEqual(imageSize(webp), { width: 420, height: 320, type: 'webp' });
  });

  it('uses an image URL as the background when the URL is allowed', async () => {
    // Act
    const image = await compose({ background: imageUrl, margin: 30 }, { type: 'png' }, shot, () => true);
    const [corner] = await pixels(image, [[3, 3]]);

    // Assess
    assert.ok(near(corner!, [0, 0, 255, 255]), `corner ${corner} should be the blue image`);
  });

  it('never fetches a background image from a private address by default', async () => {
    // Prepare
    const before = imageRequests;

    // Act
    const image = await compose({ background: imageUrl, margin: 30 });
    const [corner] = await pixels(image, [[3, 3]]);

    // Assess
    assert.equal(imageRequests, before);
    assert.ok(!near(corner!, [0, 0, 255, 255]), `corner ${corner} must not be the private image`);
  });

  it('refuses CSS that passed the edge but that Chromium does not take as a background or filter', async () => {
    // Act / Assess: values that break out of their declaration are refused at the edge (test/unit/schemas).
    const cases: Array<[OverlayInput, string]> = [
      [{ background: 'notacolour(1)' }, 'screenshot.overlay.background'],
      [{ filter: 'blur(banana)' }, 'screenshot.overlay.filter'],
    ];
    for (const [overlay, field] of cases) {
      await assert.rejects(compose(overlay), (error: unknown) => error instanceof ValidationError && field in error.fields, JSON.stringify(overlay));
    }
  });
});
