import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScreenshotRequestSchema } from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, fieldCases, parsed } from './validation-cases.js';

const schema = ScreenshotRequestSchema;
const withScreenshot = (screenshot: Record<string, unknown>) => ({ page: { url: PAGE_URL }, screenshot });
const field = (name: string) => (value: unknown) => withScreenshot({ [name]: value });

describe('ScreenshotOptionsSchema', () => {
  describe('type', () => {
    fieldCases({ schema, field: 'screenshot.type', body: field('type'), accept: ['png', 'jpeg', 'webp'] });
    fieldCases({
      schema,
      field: 'screenshot.type',
      body: field('type'),
      reject: ['gif', 'PNG', 'jpg', '', 1],
      message: /^Must be one of: png, jpeg, webp$/,
    });
  });

  describe('device', () => {
    fieldCases({
      schema,
      field: 'screenshot.device',
      body: field('device'),
      accept: ['iPhone 15 Pro', 'iPhone 15 Pro landscape', 'Macbook Pro 16', 'iMac 27 5K', 'Pixel 5', 'iPad Mini landscape'],
    });
    fieldCases({
      schema,
      field: 'screenshot.device',
      body: field('device'),
      reject: ['iPhone 99', 'iphone 15 pro', 'Macbook Pro 16 landscape', 'constructor', '__proto__', ''],
      message: /^Unknown device; see GET \/v1\/devices$/,
    });
    fieldCases({ schema, field: 'screenshot.device', body: field('device'), reject: [15, { name: 'iPhone 15 Pro' }] });
  });

  describe('viewport', () => {
    const viewport = (value: Record<string, unknown>) => withScreenshot({ viewport: value });
    for (const side of ['width', 'height']) {
      fieldCases({
        schema,
        field: `screenshot.viewport.${side}`,
        body: (value) => viewport({ [side]: value }),
        accept: [1, 1280, 16_384],
        reject: [0, 16_385, 800.5, '800', -1],
      });
    }
    fieldCases({
      schema,
      field: 'screenshot.viewport.deviceScaleFactor',
      body: (value) => viewport({ deviceScaleFactor: value }),
      accept: [0.1, 1, 2.5, 4],
      reject: [0.09, 0, 4.01, '2'],
    });
    for (const flag of ['isMobile', 'hasTouch', 'isLandscape']) {
      fieldCases({
        schema,
        field: `screenshot.viewport.${flag}`,
        body: (value) => viewport({ [flag]: value }),
        accept: [true, false],
        reject: ['true', 1],
      });
    }

    it('accepts an image exactly 16384 device pixels wide (8192 × 2)', () => {
      assert.equal(parsed(schema, viewport({ width: 8192, deviceScaleFactor: 2 })).screenshot.viewport.width, 8192);
    });

    it('rejects a width whose device pixels exceed 16384 with a 400 on screenshot.viewport.width', () => {
      assertRejected(schema, viewport({ width: 8193, deviceScaleFactor: 2 }), 'screenshot.viewport.width');
    });

    it('rejects a height whose device pixels exceed 16384 with a 400 on screenshot.viewport.height', () => {
      assertRejected(schema, viewport({ height: 4097, deviceScaleFactor: 4 }), 'screenshot.viewport.height');
    });

    it('checks an omitted width at the default 1536 px: scale 4 fits, 1536 × 4 = 6144', () => {
      assert.equal(parsed(schema, viewport({ deviceScaleFactor: 4 })).screenshot.viewport.deviceScaleFactor, 4);
    });

    it('rejects an unknown viewport key by name', () => {
      assertRejected(schema, viewport({ width: 800, scale: 2 }), 'screenshot.viewport.scale');
    });

    fieldCases({ schema, field: 'screenshot.viewport', body: field('viewport'), reject: ['1280x800', [1280, 800]] });
  });

  describe('booleans', () => {
    for (const name of ['fullPage', 'fromSurface', 'omitBackground', 'optimizeForSpeed', 'captureBeyondViewport']) {
      fieldCases({ schema, field: `screenshot.${name}`, body: field(name), accept: [true, false], reject: ['true', 0] });
    }
  });

  describe('quality', () => {
    for (const type of ['jpeg', 'webp']) {
      fieldCases({
        schema,
        field: 'screenshot.quality',
        body: (quality) => withScreenshot({ type, quality }),
        accept: [0, 100, 75],
        reject: [-1, 101, 50.5, '80'],
      });
    }

    it('rejects quality with type png with a 400 on screenshot.quality', () => {
      const fields = assertRejected(schema, withScreenshot({ type: 'png', quality: 80 }), 'screenshot.quality');
      assert.equal(fields['screenshot.quality'], 'Not applicable to png');
    });

    it('rejects quality without a type (png is the default) with a 400 on screenshot.quality', () => {
      const fields = assertRejected(schema, withScreenshot({ quality: 80 }), 'screenshot.quality');
      assert.equal(fields['screenshot.quality'], 'Not applicable to png');
    });

    it('accepts a null quality with png', () => {
      assert.equal(parsed(schema, withScreenshot({ type: 'png', quality: null })).screenshot.type, 'png');
    });
  });

  describe('clip', () => {
    const clip = { x: 0, y: 0, width: 300, height: 200 };
    const withClip = (extra: Record<string, unknown>) => withScreenshot({ clip: { ...clip, ...extra } });
    for (const side of ['x', 'y']) {
      fieldCases({
        schema,
        field: `screenshot.clip.${side}`,
        body: (value) => withClip({ [side]: value }),
        accept: [0, 10.5, 5000, 33_554_431],
        // Past Chromium's layout range the capture failed with a 500 (Schemathesis found 1e20).
        reject: [-0.5, -1, '10', 33_554_432, 1e20],
      });
    }
    for (const side of ['width', 'height']) {
      fieldCases({
        schema,
        field: `screenshot.clip.${side}`,
        body: (value) => withClip({ [side]: value }),
        accept: [1, 1.5, 16_384],
        // Under a pixel, puppeteer rounded the region to nothing and the capture failed with a 500.
        reject: [0, 0.1, 1e-100, -3, 16_385, '300'],
      });
    }
    fieldCases({
      schema,
      field: 'screenshot.clip.scale',
      body: (value) => withClip({ scale: value }),
      accept: [0.25, 1, 4],
      reject: [0, -1, 4.5],
    });

    for (const key of ['x', 'y', 'width', 'height']) {
      it(`rejects a clip without ${key} with a 400 on screenshot.clip.${key}`, () => {
        const { [key as keyof typeof clip]: _dropped, ...partial } = clip;
        assertRejected(schema, withScreenshot({ clip: partial }), `screenshot.clip.${key}`);
      });
    }

    it('rejects an unknown clip key by name', () => {
      assertRejected(schema, withClip({ left: 4 }), 'screenshot.clip.left');
    });
  });

  describe('element', () => {
    fieldCases({
      schema,
      field: 'screenshot.element',
      body: field('element'),
      accept: ['#chart', 'x'.repeat(1024)],
      reject: ['', 'x'.repeat(1025), 3],
    });
  });

  describe('overlay', () => {
    const overlay = (value: Record<string, unknown>) => withScreenshot({ overlay: value });
    fieldCases({
      schema,
      field: 'screenshot.overlay.background',
      body: (background) => overlay({ background }),
      accept: [
        'red',
        '#0f172a',
        'rgba(15, 23, 42, 0.8)',
        'rgb(0 0 0 / 50%)',
        'linear-gradient(135deg, #667eea 0%, #764ba2 100%)',
        'https://images.example.com/bg.jpg',
      ],
    });
    fieldCases({
      schema,
      field: 'screenshot.overlay.background',
      body: (background) => overlay({ background }),
      reject: [
        'red; position: fixed',
        'red} body { display: none',
        'url(https://images.example.com/bg.jpg)',
        'URL (https://evil.example)',
        'red</style><script>alert(1)</script>',
        '"red"',
        'red !important',
        'file:///etc/passwd',
        ' FILE:///etc/passwd',
        'javascript:alert(1)',
        'data:image/png;base64,iVBORw0KGgo=',
        'x'.repeat(2049),
        12,
      ],
    });
    fieldCases({
      schema,
      field: 'screenshot.overlay.filter',
      body: (filter) => overlay({ filter }),
      accept: ['blur(2px) grayscale(50%)', 'drop-shadow(0 10px 20px rgba(0,0,0,.25))', 'none'],
      reject: ['url(#shadow)', 'blur(2px); color: red', 'blur(2px)}', '<b>', 'x'.repeat(513), false],
    });
    for (const name of ['margin', 'screenshotBorderRadius']) {
      fieldCases({
        schema,
        field: `screenshot.overlay.${name}`,
        body: (value) => overlay({ [name]: value }),
        accept: [0, 48, 1000],
        reject: [-1, 1001, '10px'],
      });
    }
    fieldCases({
      schema,
      field: 'screenshot.overlay.browser',
      body: (browser) => overlay({ browser }),
      accept: ['light', 'dark'],
      reject: ['safari', 'Light', 1],
      message: /^Must be one of: light, dark$/,
    });

    it('rejects overlay together with fullPage true with a 400 on screenshot.overlay', () => {
      assertRejected(schema, withScreenshot({ fullPage: true, overlay: { background: 'red' } }), 'screenshot.overlay');
    });

    it('accepts overlay with fullPage false', () => {
      assert.equal(
        parsed(schema, withScreenshot({ fullPage: false, overlay: { margin: 10 } })).screenshot.overlay.margin,
        10,
      );
    });

    it('rejects an unknown overlay key by name', () => {
      assertRejected(schema, overlay({ padding: 10 }), 'screenshot.overlay.padding');
    });
  });

  describe('unknown fields', () => {
    it('rejects a misspelt screenshot field by name', () => {
      const fields = assertRejected(schema, withScreenshot({ fullpage: true }), 'screenshot.fullpage');
      assert.equal(fields['screenshot.fullpage'], 'Unknown field');
    });

    it('rejects a screenshot that is not an object with a 400 on screenshot', () => {
      assertRejected(schema, { page: { url: PAGE_URL }, screenshot: 'png' }, 'screenshot');
    });
  });
});
