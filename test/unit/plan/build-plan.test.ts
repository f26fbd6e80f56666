import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../lib/errors.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { finishingSteps } from '../../../lib/finishing/pipeline/registry.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { RENDER_DEFAULTS } from '../../../lib/schemas/render-defaults.js';
import { renderHandlebars } from '../../../lib/templates/handlebars.js';

/** A text drawer for plans without a text stamp. */
const noText = async (): Promise<Uint8Array> => assert.fail('no text stamp is drawn');

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('buildRenderPlan', () => {
  it('applies every page default of the one table', () => {
    // Act
    const plan = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') } });

    // Assess
    assert.equal(plan.page.waitUntil, RENDER_DEFAULTS.page.waitUntil);
    assert.equal(plan.page.adblock, RENDER_DEFAULTS.page.adblock);
    assert.equal(plan.page.javascript, RENDER_DEFAULTS.page.javascript);
    assert.equal(plan.page.waitForMilliseconds, 0);
    assert.deepEqual(plan.page.cookies, []);
  });

  it('decodes the sources once: base64 HTML, and a Handlebars template rendered with its data', () => {
    // Act
    const html = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>héllo</p>') } });
    const template = buildRenderPlan({ output: 'PDF', page: { htmlTemplate: b64('<p>{{name}}</p>'), templateData: { name: 'Ada' } } }, renderHandlebars);

    // Assess
    assert.deepEqual(html.page.source, { kind: 'html', html: '<p>héllo</p>', fromTemplate: false });
    assert.deepEqual(template.page.source, { kind: 'html', html: '<p>Ada</p>', fromTemplate: true });
  });

  it('applies the screenshot defaults of the table, captureBeyondViewport per capture', () => {
    // Act
    const viewport = buildRenderPlan({ output: 'IMAGE', page: { url: 'https://example.com/' } });
    const clip = buildRenderPlan({ output: 'IMAGE', page: { url: 'https://example.com/' }, screenshot: { clip: { x: 0, y: 0, width: 10, height: 10 } } });
    const fullPage = buildRenderPlan({ output: 'IMAGE', page: { url: 'https://example.com/' }, screenshot: { fullPage: true } });

    // Assess
    assert.equal(viewport.output, 'IMAGE');
    if (viewport.output !== 'IMAGE' || clip.output !== 'IMAGE' || fullPage.output !== 'IMAGE') return;
    assert.deepEqual(
      { type: viewport.shot.type, omitBackground: viewport.shot.omitBackground, optimizeForSpeed: viewport.shot.optimizeForSpeed, fromSurface: viewport.shot.fromSurface },
      { type: RENDER_DEFAULTS.screenshot.type, omitBackground: RENDER_DEFAULTS.screenshot.omitBackground, optimizeForSpeed: RENDER_DEFAULTS.screenshot.optimizeForSpeed, fromSurface: RENDER_DEFAULTS.screenshot.fromSurface },
    );
    assert.deepEqual(viewport.shot.target, { kind: 'viewport' });
    assert.deepEqual(clip.shot.target, { kind: 'clip', clip: { x: 0, y: 0, width: 10, height: 10, scale: 1 }, captureBeyondViewport: true });
    assert.deepEqual(fullPage.shot.target, { kind: 'fullPage', captureBeyondViewport: true });
    assert.equal(viewport.screen.viewport.width, 1536, 'the default device, Macbook Pro 16');
  });

  it('keeps the caller\'s captureBeyondViewport over the default', () => {
    // Act
    const plan = buildRenderPlan({ output: 'IMAGE', page: { url: 'https://example.com/' }, screenshot: { fullPage: true, captureBeyondViewport: false } });

    // Assess
    assert.ok(plan.output === 'IMAGE');
    assert.deepEqual(plan.shot.target, { kind: 'fullPage', captureBeyondViewport: false });
  });

  it('settles the rules between fields at the edge, naming the request field', () => {
    // Act
    const noSite = () => buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>'), cookies: [{ name: 'a', value: 'b' }] } });
    const headerCookie = () => buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>'), headers: { Cookie: 'a=b' } } });

    // Assess
    assert.throws(noSite, (error: unknown) => error instanceof ValidationError && 'page.cookies.0.url' in error.fields);
    assert.throws(headerCookie, (error: unknown) => error instanceof ValidationError && 'page.headers.cookie' in error.fields);
  });

  it('turns a cookie header into cookies of the page site, and dismisses banners only on sites with scripts and the ad blocker', () => {
    // Act
    const site = buildRenderPlan({ output: 'PDF', page: { url: 'https://example.com/', headers: { Cookie: 'a=1; b=2', 'X-Y': 'z' } } });
    const noScripts = buildRenderPlan({ output: 'PDF', page: { url: 'https://example.com/', javascript: false } });
    const html = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') } });

    // Assess
    assert.deepEqual(site.page.cookies, [{ name: 'a', value: '1', url: 'https://example.com/' }, { name: 'b', value: '2', url: 'https://example.com/' }]);
    assert.deepEqual(site.page.headers, { 'x-y': 'z' });
    assert.equal(site.page.cookieConsent, true);
    assert.equal(noScripts.page.cookieConsent, false);
    assert.equal(html.page.cookieConsent, false);
  });

  it('plans the archive and attach stages from the pdf options, and fills the title and language the caller left out from the page', async () => {
    // Prepare
    const plan = buildRenderPlan({
      output: 'PDF',
      page: { html: b64('<p>x</p>') },
      pdf: { metadata: { author: 'A' }, pdfua: true, attachments: [{ name: 'a.txt', content: b64('hi'), mimeType: 'text/plain' }] },
    });
    assert.ok(plan.output === 'PDF');

    // Act
    const steps = await finishingSteps(plan.finishing, { now: new Date(), facts: { title: 'Page title', language: 'de' }, drawText: noText });

    // Assess
    assert.equal(plan.print.tagged, true);
    assert.equal(plan.finishing.archive?.metadata.author, 'A');
    assert.equal(plan.finishing.archive?.metadata.title, undefined);
    assert.equal(plan.finishing.archive?.pdfua, true);
    assert.equal(plan.finishing.attach?.[0]?.name, 'a.txt');
    assert.deepEqual(Object.keys(steps).sort(), ['archive', 'attach']);
  });

  it('turns pdf.compress into the compress stage with every default applied, or the fields given', async () => {
    // Act
    const defaults = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') }, pdf: { compress: true } });
    const given = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') }, pdf: { compress: { imageQuality: 60, grayscale: true } } });
    const off = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') }, pdf: { compress: false } });

    // Assess
    assert.ok(defaults.output === 'PDF' && given.output === 'PDF' && off.output === 'PDF');
    assert.deepEqual(defaults.finishing.compress, { imageQuality: 80, maxImageDpi: 150, grayscale: false });
    assert.deepEqual(given.finishing.compress, { imageQuality: 60, maxImageDpi: 150, grayscale: true });
    assert.equal(off.finishing.compress, undefined);
    assert.deepEqual(Object.keys(await finishingSteps(defaults.finishing, { now: new Date(), facts: {}, drawText: noText })), ['compress']);
  });

  it('leaves the finishing seam: a PDF plan asks no finishing step, and its printed bytes are delivered as they are', async () => {
    // Prepare
    const plan = buildRenderPlan({ output: 'PDF', page: { html: b64('<p>x</p>') } });
    const printed = new Uint8Array([37, 80, 68, 70]);

    // Act
    assert.ok(plan.output === 'PDF');
    const steps = await finishingSteps(plan.finishing, { now: new Date(), facts: {}, drawText: noText });
    const finished = await finishPdf(printed, steps, unboundedBudget());

    // Assess
    assert.deepEqual(plan.finishing, {});
    assert.deepEqual(steps, {});
    assert.equal(finished, printed);
  });
});
