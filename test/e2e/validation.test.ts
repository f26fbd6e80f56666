import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';

const html = b64('<p>x</p>');
const page = { html };

/** [what is wrong, endpoint, body, the field the 400 must name] — one row per rule of the contract. */
const cases: Array<[string, string, unknown, string]> = [
  ['no page source', '/v1/pdf', { page: {} }, 'page.url'],
  ['no page at all', '/v1/pdf', {}, 'page.url'],
  ['two page sources', '/v1/pdf', { page: { html, url: 'https://example.com' } }, 'page.url'],
  ['templateData without htmlTemplate', '/v1/pdf', { page: { html, templateData: { a: 1 } } }, 'page.templateData'],
  ['a non-URL page.url', '/v1/pdf', { page: { url: 'not a url' } }, 'page.url'],
  ['a file: page.url', '/v1/pdf', { page: { url: 'file:///etc/passwd' } }, 'page.url'],
  ['a padded upper-case JAVASCRIPT: url', '/v1/pdf', { page: { url: '  JAVASCRIPT:alert(1)' } }, 'page.url'],
  ['html that is not base64', '/v1/pdf', { page: { html: '<p>not base64</p>' } }, 'page.html'],
  ['htmlTemplate that is not base64', '/v1/pdf', { page: { htmlTemplate: '%%%' } }, 'page.htmlTemplate'],
  ['an unknown waitUntil', '/v1/pdf', { page: { html, waitUntil: 'whenever' } }, 'page.waitUntil'],
  ['waitForMilliseconds over 5000', '/v1/pdf', { page: { html, waitForMilliseconds: 5001 } }, 'page.waitForMilliseconds'],
  ['waitForMilliseconds under 0', '/v1/pdf', { page: { html, waitForMilliseconds: -1 } }, 'page.waitForMilliseconds'],
  ['an empty selector', '/v1/pdf', { page: { html, waitForSelector: { selector: '' } } }, 'page.waitForSelector.selector'],
  ['a selector over 1024 characters', '/v1/pdf', { page: { html, waitForSelector: { selector: 'a'.repeat(1025) } } }, 'page.waitForSelector.selector'],
  ['a waitForSelector without selector', '/v1/pdf', { page: { html, waitForSelector: {} } }, 'page.waitForSelector.selector'],
  ['a pageFunction over 1024 characters', '/v1/pdf', { page: { html, waitForFunction: { pageFunction: 'x'.repeat(1025) } } }, 'page.waitForFunction.pageFunction'],
  ['an empty pageFunction', '/v1/pdf', { page: { html, waitForFunction: { pageFunction: '' } } }, 'page.waitForFunction.pageFunction'],
  ['a non-string header value', '/v1/pdf', { page: { html, headers: { 'x-a': 1 } } }, 'page.headers.x-a'],
  ['adblock not a boolean', '/v1/pdf', { page: { html, adblock: 'yes' } }, 'page.adblock'],
  ['javascript not a boolean', '/v1/pdf', { page: { html, javascript: 1 } }, 'page.javascript'],
  ['cookies not an array', '/v1/pdf', { page: { html, cookies: {} } }, 'page.cookies'],
  ['a colorScheme over 20 characters', '/v1/pdf', { page: { html, colorScheme: 'x'.repeat(21) } }, 'page.colorScheme'],
  ['an unknown mediaType', '/v1/pdf', { page: { html, mediaType: 'tv' } }, 'page.mediaType'],
  ['a timezone outside ICU', '/v1/pdf', { page: { html, timezone: 'Mars/Olympus' } }, 'page.timezone'],
  ['authentication username not a string', '/v1/pdf', { page: { html, authentication: { username: 1, password: 'p' } } }, 'page.authentication.username'],
  ['pdf.scale under 0.1', '/v1/pdf', { page, pdf: { scale: 0.05 } }, 'pdf.scale'],
  ['pdf.scale over 2', '/v1/pdf', { page, pdf: { scale: 2.5 } }, 'pdf.scale'],
  ['an unknown pdf.format', '/v1/pdf', { page, pdf: { format: 'b5' } }, 'pdf.format'],
  ['headerHtml that is not base64', '/v1/pdf', { page, pdf: { headerHtml: '<b>' } }, 'pdf.headerHtml'],
  ['margin.top not a string', '/v1/pdf', { page, pdf: { margin: { top: true } } }, 'pdf.margin.top'],
  ['landscape not a boolean', '/v1/pdf', { page, pdf: { landscape: 'yes' } }, 'pdf.landscape'],
  ['screenshot options sent to /v1/pdf', '/v1/pdf', { page, screenshot: {} }, 'screenshot'],
  ['pdf options sent to /v1/screenshot', '/v1/screenshot', { page, pdf: {} }, 'pdf'],
  ['an unknown page field', '/v1/pdf', { page: { html, fullpage: true } }, 'page.fullpage'],
  ['an unknown top-level field', '/v1/pdf', { page, extra: 1 }, 'extra'],
  ['an unknown screenshot.type', '/v1/screenshot', { page, screenshot: { type: 'gif' } }, 'screenshot.type'],
  ['an unknown device', '/v1/screenshot', { page, screenshot: { device: 'Nokia 3310' } }, 'screenshot.device'],
  ['quality over 100', '/v1/screenshot', { page, screenshot: { type: 'jpeg', quality: 101 } }, 'screenshot.quality'],
  ['quality under 0', '/v1/screenshot', { page, screenshot: { type: 'jpeg', quality: -1 } }, 'screenshot.quality'],
  ['quality with png', '/v1/screenshot', { page, screenshot: { quality: 80 } }, 'screenshot.quality'],
  ['overlay with fullPage', '/v1/screenshot', { page, screenshot: { fullPage: true, overlay: { margin: 10 } } }, 'screenshot.overlay'],
  ['viewport width not a number', '/v1/screenshot', { page, screenshot: { viewport: { width: 'wide', height: 100 } } }, 'screenshot.viewport.width'],
  ['clip x not a number', '/v1/screenshot', { page, screenshot: { clip: { x: 'a', y: 0, width: 10, height: 10 } } }, 'screenshot.clip.x'],
  ['an unknown overlay field', '/v1/screenshot', { page, screenshot: { overlay: { colour: 'red' } } }, 'screenshot.overlay.colour'],
];

describe('400 validation errors over HTTP', () => {
  let service: RunningService;
  before(async () => {
    service = await startService();
  });
  after(async () => {
    await service?.stop();
  });

  for (const [label, path, body, field] of cases) {
    it(`answers 400 naming ${field} for ${label}`, async () => {
      const res = await service.request(path, { json: body });
      assert.equal(res.status, 400);
      const answer = (await res.json()) as { message: unknown; code: unknown; fields: Record<string, unknown> };
      assert.deepEqual(Object.keys(answer).sort(), ['code', 'fields', 'message']);
      assert.equal(answer.code, 'api.validation');
      assert.equal(typeof answer.message, 'string');
      assert.equal(typeof answer.fields[field], 'string', `fields: ${JSON.stringify(answer.fields)}`);
    });
  }
});
