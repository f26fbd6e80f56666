import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../lib/errors.js';
import {
  MergedRenderOptionsSchema,
  PdfAsyncRequestSchema,
  PdfRequestSchema,
  PdfSyncRequestSchema,
  ScreenshotAsyncRequestSchema,
  ScreenshotRequestSchema,
  ScreenshotSyncRequestSchema,
  TemplateRenderAsyncRequestSchema,
  TemplateRenderRequestSchema,
  TemplateRenderSyncRequestSchema,
  TemplateVariablesSchema,
  assertPageSource,
  parseMergedOptions,
} from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, b64, parsed } from './validation-cases.js';

const HTML = b64('<h1>Hello</h1>');
const TEMPLATE = b64('<h1>Hello {{name}}</h1>');
const WEBHOOK = { url: 'https://hooks.example.com/done' };
const STORAGE = { preSignedUrl: 'https://bucket.s3.amazonaws.com/k?X-Amz-Signature=1' };
const SOURCES = ['page.url', 'page.html', 'page.htmlTemplate'];
const NO_SOURCE = 'Exactly one of page.url, page.html or page.htmlTemplate is required';

const page = { url: PAGE_URL };

describe('page source rule', () => {
  const schema = PdfRequestSchema;

  it('names all three source fields when the body has no page', () => {
    const fields = assertRejected(schema, {}, SOURCES);
    assert.deepEqual(Object.values(fields), [NO_SOURCE, NO_SOURCE, NO_SOURCE]);
  });

  it('names all three source fields when page has none of them', () => {
    assertRejected(schema, { page: { waitUntil: 'load' } }, SOURCES);
  });

  it('names all three source fields when every source is null', () => {
    assertRejected(schema, { page: { url: null, html: null, htmlTemplate: null } }, SOURCES);
  });

  const pairs: Array<[Record<string, string>, string[]]> = [
    [{ url: PAGE_URL, html: HTML }, ['page.url', 'page.html']],
    [{ url: PAGE_URL, htmlTemplate: TEMPLATE }, ['page.url', 'page.htmlTemplate']],
    [{ html: HTML, htmlTemplate: TEMPLATE }, ['page.html', 'page.htmlTemplate']],
    [{ url: PAGE_URL, html: HTML, htmlTemplate: TEMPLATE }, SOURCES],
  ];
  for (const [sources, keys] of pairs) {
    it(`rejects ${keys.join(' + ')} with a 400 on each of them`, () => {
      const fields = assertRejected(schema, { page: sources }, keys);
      for (const key of keys) assert.match(fields[key] ?? '', /^Only one of/);
    });
  }

  for (const [name, value] of [['url', PAGE_URL], ['html', HTML], ['htmlTemplate', TEMPLATE]]) {
    it(`accepts page.${name} alone`, () => {
      assert.equal(parsed(schema, { page: { [name!]: value } }).page[name!], value);
    });
  }

  it('rejects templateData without htmlTemplate with a 400 on page.templateData', () => {
    const fields = assertRejected(schema, { page: { html: HTML, templateData: { name: 'Ada' } } }, 'page.templateData');
    assert.match(fields['page.templateData'] ?? '', /htmlTemplate/);
  });

  it('rejects templateData as the only page field on the three sources and on page.templateData', () => {
    assertRejected(schema, { page: { templateData: { name: 'Ada' } } }, [...SOURCES, 'page.templateData']);
  });

  it('accepts templateData with htmlTemplate and keeps both', () => {
    // Prepare
    const input = { page: { htmlTemplate: TEMPLATE, templateData: { name: 'Ada', lines: [1, 2] } } };
    // Act
    const output = parsed(schema, input);
    // Assess
    assert.deepEqual(output.page, input.page);
  });

  it('reports a bad source value, not the source rule, when the only source is invalid', () => {
    assertRejected(schema, { page: { url: 'file:///etc/passwd' } }, 'page.url');
  });

  it('reports unknown fields and the source rule together', () => {
    assertRejected(schema, { page: { fullpage: true } }, [...SOURCES, 'page.fullpage']);
  });

  const directs: Array<[string, typeof PdfRequestSchema, Record<string, unknown>]> = [
    ['/v1/pdf/sync', PdfSyncRequestSchema, {}],
    ['/v1/pdf/async', PdfAsyncRequestSchema, { webhook: WEBHOOK }],
    ['/v1/screenshot', ScreenshotRequestSchema, {}],
    ['/v1/screenshot/sync', ScreenshotSyncRequestSchema, {}],
    ['/v1/screenshot/async', ScreenshotAsyncRequestSchema, { webhook: WEBHOOK }],
  ];
  for (const [path, direct, body] of directs) {
    it(`applies the same rule on ${path}`, () => {
      assertRejected(direct, body, SOURCES);
      assertRejected(direct, { ...body, page: { url: PAGE_URL, html: HTML } }, ['page.url', 'page.html']);
    });
  }
});

describe('request bodies per endpoint', () => {
  const endpoints = [
    { path: '/v1/pdf', schema: PdfRequestSchema, takes: ['page', 'pdf'] },
    { path: '/v1/pdf/sync', schema: PdfSyncRequestSchema, takes: ['page', 'pdf', 'storage'] },
    { path: '/v1/pdf/async', schema: PdfAsyncRequestSchema, takes: ['page', 'pdf', 'storage', 'webhook'] },
    { path: '/v1/screenshot', schema: ScreenshotRequestSchema, takes: ['page', 'screenshot'] },
    { path: '/v1/screenshot/sync', schema: ScreenshotSyncRequestSchema, takes: ['page', 'screenshot', 'storage'] },
    {
      path: '/v1/screenshot/async',
      schema: ScreenshotAsyncRequestSchema,
      takes: ['page', 'screenshot', 'storage', 'webhook'],
    },
  ];
  const objects: Record<string, unknown> = { pdf: {}, screenshot: {}, storage: STORAGE, webhook: WEBHOOK };

  for (const { path, schema, takes } of endpoints) {
    const base = takes.includes('webhook') ? { page, webhook: WEBHOOK } : { page };
    for (const [name, value] of Object.entries(objects)) {
      if (takes.includes(name)) {
        it(`${path} accepts ${name}`, () => {
          assert.deepEqual(parsed(schema, { ...base, [name]: value })[name], value);
        });
      } else {
        it(`${path} rejects ${name} as an unknown field`, () => {
          const fields = assertRejected(schema, { ...base, [name]: value }, name);
          assert.equal(fields[name], 'Unknown field');
        });
      }
    }

    it(`${path} rejects an unknown top-level field by name`, () => {
      assertRejected(schema, { ...base, options: {} }, 'options');
    });

    for (const body of [[], 'page', 42, null, true]) {
      it(`${path} rejects a ${JSON.stringify(body)} body with a 400 on body`, () => {
        const fields = assertRejected(schema, body, 'body');
        assert.equal(fields.body, 'Must be an object');
      });
    }
  }

  for (const schema of [PdfAsyncRequestSchema, ScreenshotAsyncRequestSchema]) {
    it('an async endpoint requires webhook: 400 on webhook', () => {
      const fields = assertRejected(schema, { page }, 'webhook');
      assert.equal(fields.webhook, 'Required');
    });
  }

  it('reports problems in several objects at once', () => {
    assertRejected(
      PdfAsyncRequestSchema,
      { page: { url: PAGE_URL, waitForMilliseconds: 9000 }, pdf: { scale: 3 }, webhook: { url: 'ftp://x' } },
      ['page.waitForMilliseconds', 'pdf.scale', 'webhook.url'],
    );
  });
});

describe('full bodies', () => {
  const fullPage = {
    url: PAGE_URL,
    waitUntil: 'networkidle2',
    waitForMilliseconds: 250,
    waitForSelector: { selector: '#ready', options: { visible: true, hidden: false, timeout: 8000 } },
    waitForFunction: { pageFunction: 'window.chartsReady === true', options: { polling: 'raf', timeout: 8000 } },
    headers: { 'X-Request-Id': 'r-1', cookie: 'a=b' },
    adblock: false,
    javascript: true,
    cookies: [
      {
        name: 'session',
        value: 'abc',
        domain: 'example.com',
        url: 'https://example.com/',
        path: '/',
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
        expires: 1_900_000_000,
      },
    ],
    authentication: { username: 'ada', password: 'lovelace' },
    colorScheme: 'dark',
    mediaType: 'screen',
    timezone: 'Europe/Zurich',
  };
  const fullPdf = {
    scale: 0.8,
    displayHeaderFooter: true,
    headerHtml: b64('<span class="title"></span>'),
    footerHtml: b64('<span class="pageNumber"></span>/<span class="totalPages"></span>'),
    printBackground: true,
    landscape: true,
    pageRanges: '1-3, 5',
    format: 'a4',
    width: '210mm',
    height: 1123,
    preferCSSPageSize: false,
    margin: { top: '1cm', bottom: '1cm', left: '12mm', right: '0.5in' },
    omitBackground: false,
    outline: true,
    tagged: true,
  };
  const fullScreenshot = {
    type: 'jpeg',
    device: 'iPhone 15 Pro',
    viewport: { width: 1280, height: 800, deviceScaleFactor: 2, isMobile: false, hasTouch: false, isLandscape: true },
    fullPage: false,
    fromSurface: true,
    omitBackground: false,
    optimizeForSpeed: true,
    quality: 85,
    captureBeyondViewport: true,
    clip: { x: 10, y: 20, width: 600, height: 400, scale: 1 },
    element: '#chart',
    overlay: {
      background: 'linear-gradient(135deg, #667eea 0%, #764ba2 100%)',
      filter: 'drop-shadow(0 10px 20px rgba(0,0,0,.25))',
      margin: 48,
      browser: 'dark',
      screenshotBorderRadius: 12,
    },
  };
  const fullWebhook = {
    url: 'https://hooks.example.com/done',
    receiveType: 'base64',
    method: 'PUT',
    headers: { Authorization: 'Bearer receiver' },
    metadata: { orderId: '42', customer: 'ACME' },
  };

  it('/v1/pdf/async keeps every field of a body that sets them all', () => {
    // Prepare
    const body = { page: fullPage, pdf: fullPdf, storage: STORAGE, webhook: fullWebhook };
    // Act
    const output = parsed(PdfAsyncRequestSchema, structuredClone(body));
    // Assess
    assert.deepEqual(output, body);
  });

  it('/v1/screenshot/async keeps every field of a body that sets them all', () => {
    // Prepare
    const body = { page: fullPage, screenshot: fullScreenshot, storage: STORAGE, webhook: fullWebhook };
    // Act
    const output = parsed(ScreenshotAsyncRequestSchema, structuredClone(body));
    // Assess
    assert.deepEqual(output, body);
  });

  it('/v1/pdf keeps an html page with every other page field', () => {
    // Prepare
    const { url: _url, ...rest } = fullPage;
    const body = { page: { ...rest, html: HTML }, pdf: fullPdf };
    // Act / Assess
    assert.deepEqual(parsed(PdfRequestSchema, structuredClone(body)), body);
  });

  it('/v1/template/{id}/async keeps every field of a body that sets them all', () => {
    // Prepare
    const body = { page: fullPage, screenshot: fullScreenshot, pdf: fullPdf, storage: STORAGE, webhook: fullWebhook };
    // Act / Assess
    assert.deepEqual(parsed(TemplateRenderAsyncRequestSchema, structuredClone(body)), body);
  });

  it('a template keeps every field of variables that set them all', () => {
    const variables = { page: fullPage, screenshot: fullScreenshot, pdf: fullPdf };
    assert.deepEqual(parsed(TemplateVariablesSchema, structuredClone(variables)), variables);
  });
});

describe('template render requests', () => {
  it('accepts an empty body: every option may come from the template', () => {
    assert.deepEqual(parsed(TemplateRenderRequestSchema, {}), {});
  });

  it('accepts templateData alone (the template holds the htmlTemplate)', () => {
    const body = { page: { templateData: { name: 'Ada' } } };
    assert.deepEqual(parsed(TemplateRenderRequestSchema, body), body);
  });

  it('accepts partial nested objects that the merge completes', () => {
    // Prepare
    const body = {
      page: { waitForSelector: { options: { timeout: 1000 } }, waitForFunction: { options: { polling: 'mutation' } } },
      screenshot: { clip: { x: 5 }, quality: 80 },
    };
    // Act / Assess
    assert.deepEqual(parsed(TemplateRenderRequestSchema, body), body);
  });

  it('still checks each field on its own', () => {
    assertRejected(
      TemplateRenderRequestSchema,
      { page: { timezone: 'Mars/Base', fullpage: true }, screenshot: { device: 'Nope', clip: { x: -1 } }, pdf: { scale: 9 } },
      ['page.timezone', 'page.fullpage', 'screenshot.device', 'screenshot.clip.x', 'pdf.scale'],
    );
  });

  it('rejects webhook on the raw and sync template endpoints as unknown fields', () => {
    assertRejected(TemplateRenderRequestSchema, { webhook: WEBHOOK }, 'webhook');
    assertRejected(TemplateRenderSyncRequestSchema, { webhook: WEBHOOK }, 'webhook');
  });

  it('rejects storage on the raw template endpoint and accepts it on sync', () => {
    assertRejected(TemplateRenderRequestSchema, { storage: STORAGE }, 'storage');
    assert.deepEqual(parsed(TemplateRenderSyncRequestSchema, { storage: STORAGE }).storage, STORAGE);
  });

  it('requires webhook on the async template endpoint', () => {
    assertRejected(TemplateRenderAsyncRequestSchema, {}, 'webhook');
  });
});

describe('TemplateVariablesSchema', () => {
  it('accepts variables without a page source (the request may bring it)', () => {
    const variables = { page: { waitUntil: 'load' }, pdf: { format: 'a4' } };
    assert.deepEqual(parsed(TemplateVariablesSchema, variables), variables);
  });

  it('rejects two page sources with a 400 on each', () => {
    assertRejected(TemplateVariablesSchema, { page: { url: PAGE_URL, html: HTML } }, ['page.url', 'page.html']);
  });

  it('rejects quality with png', () => {
    assertRejected(TemplateVariablesSchema, { screenshot: { quality: 50 } }, 'screenshot.quality');
  });

  it('rejects storage and webhook, which are per request', () => {
    assertRejected(TemplateVariablesSchema, { storage: STORAGE, webhook: WEBHOOK }, ['storage', 'webhook']);
  });
});

describe('parseMergedOptions', () => {
  it('returns merged options that name exactly one source', () => {
    const merged = { page: { htmlTemplate: TEMPLATE, templateData: { name: 'Ada' } }, screenshot: { type: 'webp', quality: 70 } };
    assert.deepEqual(parseMergedOptions(merged), merged);
  });

  it('throws a 400 on the three source fields when neither template nor request named one', () => {
    assert.throws(
      () => parseMergedOptions({ page: { waitUntil: 'load' } }),
      (error) => error instanceof ValidationError && Object.keys(error.fields).sort().join() === [...SOURCES].sort().join(),
    );
  });

  it('throws a 400 on screenshot.quality when the merge leaves png with a quality', () => {
    assertRejected(MergedRenderOptionsSchema, { page, screenshot: { type: 'png', quality: 70 } }, 'screenshot.quality');
  });

  it('throws a 400 on screenshot.overlay when the merge sets fullPage with an overlay', () => {
    assertRejected(MergedRenderOptionsSchema, { page, screenshot: { fullPage: true, overlay: {} } }, 'screenshot.overlay');
  });

  it('throws a 400 on a required field the merge left out', () => {
    assertRejected(MergedRenderOptionsSchema, { page: { ...page, waitForSelector: { options: {} } } }, 'page.waitForSelector.selector');
  });
});

describe('assertPageSource', () => {
  it('returns a page with one source', () => {
    assert.deepEqual(assertPageSource({ html: HTML }), { html: HTML });
  });

  it('throws a 400 keyed page.* for a page with two sources', () => {
    assert.throws(
      () => assertPageSource({ url: PAGE_URL, htmlTemplate: TEMPLATE }),
      (error) => error instanceof ValidationError && 'page.url' in error.fields && 'page.htmlTemplate' in error.fields,
    );
  });

  it('throws a 400 on page.templateData without htmlTemplate', () => {
    assert.throws(
      () => assertPageSource({ url: PAGE_URL, templateData: {} }),
      (error) => error instanceof ValidationError && Object.keys(error.fields).join() === 'page.templateData',
    );
  });
});
