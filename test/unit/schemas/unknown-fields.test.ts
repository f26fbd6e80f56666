import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PdfAsyncRequestSchema,
  ScreenshotAsyncRequestSchema,
  TemplateRenderAsyncRequestSchema,
} from '../../../lib/schemas/render-requests.js';
import { PAGE_URL, assertRejected, parsed } from './validation-cases.js';

const WEBHOOK = { url: 'https://hooks.example.com/done' };

describe('unknown fields', () => {
  it('names every unknown field of a screenshot body at every level in one answer', () => {
    // Prepare
    const body = {
      page: {
        url: PAGE_URL,
        fullpage: true,
        delay: 5,
        waitForSelector: { selector: '#a', options: { visble: true } },
        waitForFunction: { pageFunction: '1', options: { intervall: 5 } },
        cookies: [{ name: 'a', value: 'b', sameParty: false }],
        authentication: { username: 'u', password: 'p', token: 't' },
      },
      screenshot: {
        type: 'jpeg',
        fullpage: true,
        viewport: { width: 800, zoom: 2 },
        clip: { x: 0, y: 0, width: 1, height: 1, top: 0 },
        overlay: { padding: 3 },
      },
      storage: { preSignedUrl: 'https://s3.example.com/k', acl: 'public-read' },
      webhook: { ...WEBHOOK, retries: 3 },
      format: 'png',
    };
    // Act
    const fields = assertRejected(ScreenshotAsyncRequestSchema, body, [
      'page.fullpage',
      'page.delay',
      'page.waitForSelector.options.visble',
      'page.waitForFunction.options.intervall',
      'page.cookies.0.sameParty',
      'page.authentication.token',
      'screenshot.fullpage',
      'screenshot.viewport.zoom',
      'screenshot.clip.top',
      'screenshot.overlay.padding',
      'storage.acl',
      'webhook.retries',
      'format',
    ]);
    // Assess
    assert.ok(Object.values(fields).every((message) => message === 'Unknown field'));
  });

  it('names unknown fields of pdf and pdf.margin', () => {
    assertRejected(
      PdfAsyncRequestSchema,
      { page: { url: PAGE_URL }, pdf: { pagesize: 'a4', margin: { all: '1cm' } }, webhook: WEBHOOK },
      ['pdf.pagesize', 'pdf.margin.all'],
    );
  });

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`names a ${key} key as an unknown field instead of dropping it`, () => {
      // Prepare: JSON.parse makes these ordinary own keys, as the HTTP body parser does
      const body = JSON.parse(`{"page": {"url": "${PAGE_URL}", "${key}": {"polluted": true}}, "webhook": {"url": "${WEBHOOK.url}"}}`);
      // Act
      const fields = assertRejected(PdfAsyncRequestSchema, body, `page.${key}`);
      // Assess
      assert.equal(fields[`page.${key}`], 'Unknown field');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  }

  it('never passes an unknown key through to the output', () => {
    // Prepare
    const body = { page: { url: PAGE_URL }, webhook: WEBHOOK };
    // Act
    const output = parsed(TemplateRenderAsyncRequestSchema, body);
    // Assess
    assert.deepEqual(Object.keys(output).sort(), ['page', 'webhook']);
  });
});
