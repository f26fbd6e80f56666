import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NavigationError, RenderError, ValidationError } from '../../../lib/errors.js';
import { partFailure } from '../../../lib/plan/merge-errors.js';
import { OptionError } from '../../../lib/pdf/errors.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { renderForRequest, toRequestError } from '../../../lib/plan/request-errors.js';
import { PageLoadError, PlanStepError } from '../../../lib/render/errors.js';
import { renderHandlebars } from '../../../lib/templates/handlebars.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const fromUrl = buildRenderPlan({ output: 'PDF', page: { url: 'https://example.com/' } });
const fromTemplate = buildRenderPlan({ output: 'PDF', page: { htmlTemplate: b64('<p>{{a}}</p>') } }, renderHandlebars);

describe('toRequestError', () => {
  it("names a step's option error under pdf., and a merge part's under parts.N.pdf.", () => {
    // Prepare: a step names the path inside its own options only.
    const error = new OptionError({ 'signature.certify': 'The document is signed already', 'form.fields.total': 'A number' });

    // Act
    const own = toRequestError(error, fromUrl);
    const part = partFailure(toRequestError(error, fromUrl), 3);

    // Assess
    assert.ok(own instanceof ValidationError && part instanceof ValidationError);
    assert.deepEqual(own.fields, { 'pdf.signature.certify': 'The document is signed already', 'pdf.form.fields.total': 'A number' });
    assert.deepEqual(Object.keys(part.fields), ['parts.3.pdf.signature.certify', 'parts.3.pdf.form.fields.total']);
    assert.equal(part.code, 'merge.part');
  });

  it('names the page source field of a page that did not load', () => {
    // Act
    const url = toRequestError(new PageLoadError('net::ERR_NAME_NOT_RESOLVED'), fromUrl);
    const template = toRequestError(new PageLoadError('Navigation timeout'), fromTemplate);

    // Assess
    assert.ok(url instanceof NavigationError && template instanceof NavigationError);
    assert.deepEqual(url.fields, { 'page.url': 'net::ERR_NAME_NOT_RESOLVED' });
    assert.equal(url.code, 'render.navigation');
    assert.deepEqual(template.fields, { 'page.htmlTemplate': 'Navigation timeout' });
  });

  it('names the request field of each plan step a layer refused', () => {
    // Act
    const element = toRequestError(new PlanStepError('element', 'No visible element'), fromUrl);
    const selector = toRequestError(new PlanStepError('waitForSelector', 'Not a valid CSS selector'), fromUrl);

    // Assess
    assert.ok(element instanceof ValidationError && selector instanceof ValidationError);
    assert.deepEqual(element.fields, { 'screenshot.element': 'No visible element' });
    assert.deepEqual(selector.fields, { 'page.waitForSelector.selector': 'Not a valid CSS selector' });
  });

  it('names only the header and footer the caller gave', () => {
    // Prepare
    const footerOnly = buildRenderPlan({ output: 'PDF', page: { url: 'https://example.com/' }, pdf: { displayHeaderFooter: true, footerHtml: b64('<p>f</p>') } });

    // Act
    const error = toRequestError(new PlanStepError('headerFooter', 'Printing failed'), footerOnly);

    // Assess
    assert.ok(error instanceof ValidationError);
    assert.deepEqual(Object.keys(error.fields), ['pdf.footerHtml']);
  });

  it('passes other errors on as they are, and renderForRequest applies the mapping', async () => {
    // Prepare
    const failing = { render: async () => Promise.reject(new PlanStepError('pageRanges', 'Not a valid page range')) };
    const broken = new RenderError('Chromium could not be started');

    // Act
    const attempt = renderForRequest(failing, fromUrl);

    // Assess
    assert.equal(toRequestError(broken, fromUrl), broken);
    await assert.rejects(attempt, (error: unknown) => error instanceof ValidationError && error.fields['pdf.pageRanges'] === 'Not a valid page range');
  });
});
