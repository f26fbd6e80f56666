import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inferOutput, templateRenderInput } from '../../../lib/templates/templates.js';
import { newTemplateId, isTemplateId } from '../../../lib/templates/template-ids.js';
import { ValidationError } from '../../../lib/errors.js';
import type { Template } from '../../../lib/templates/template-store.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const template = (over: Partial<Template>): Template => ({
  id: newTemplateId(), accountId: 'acc', name: 't', output: 'PDF', variables: {},
  createdAt: '', updatedAt: '', ...over,
});

describe('inferOutput', () => {
  it('is IMAGE only when the variables hold screenshot and no pdf', () => {
    assert.equal(inferOutput({ screenshot: { type: 'png' } }), 'IMAGE');
    assert.equal(inferOutput({ screenshot: { type: 'png' }, pdf: { format: 'a4' } }), 'PDF');
    assert.equal(inferOutput({ pdf: { format: 'a4' } }), 'PDF');
    assert.equal(inferOutput({ page: { url: 'https://x.example' } }), 'PDF');
    assert.equal(inferOutput({}), 'PDF');
    assert.equal(inferOutput(null), 'PDF');
  });
});

describe('newTemplateId', () => {
  it('is unguessable, well-formed and sorts by creation time', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newTemplateId(1_700_000_000_000)));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.ok(isTemplateId(id), id);
    assert.ok(newTemplateId(1_700_000_000_000) < newTemplateId(1_700_000_000_001));
    assert.ok(newTemplateId(1_700_000_000_000) < newTemplateId(1_800_000_000_000));
  });
});

describe('templateRenderInput', () => {
  it('fills the request over the stored variables and renders by the template output', () => {
    const t = template({ variables: { page: { htmlTemplate: b64('<p>{{name}}</p>') }, pdf: { format: 'a5' } } });
    const input = templateRenderInput(t, { page: { templateData: { name: 'Ada' } }, pdf: { landscape: true } });
    assert.equal(input.output, 'PDF');
    assert.deepEqual(input.page.templateData, { name: 'Ada' });
    assert.equal(input.output === 'PDF' && input.pdf?.format, 'a5');
    assert.equal(input.output === 'PDF' && input.pdf?.landscape, true);
  });

  it('ignores screenshot options on a PDF template and pdf options on an IMAGE template', () => {
    const pdf = templateRenderInput(template({ variables: { page: { url: 'https://x.example' } } }), { screenshot: { type: 'jpeg' } });
    assert.equal(pdf.output, 'PDF');
    assert.equal('screenshot' in pdf, false);
    const image = templateRenderInput(template({ output: 'IMAGE', variables: { page: { url: 'https://x.example' } } }), { pdf: { format: 'a4' } });
    assert.equal(image.output, 'IMAGE');
    assert.equal('pdf' in image, false);
  });

  it('requires exactly one page source after the merge', () => {
    const noSource = template({ variables: { pdf: { format: 'a4' } } });
    assert.throws(() => templateRenderInput(noSource, {}), (e: unknown) => e instanceof ValidationError && 'page.url' in e.fields);
    const withUrl = template({ variables: { page: { url: 'https://x.example' } } });
    assert.throws(
      () => templateRenderInput(withUrl, { page: { html: b64('<p>x</p>') } }),
      (e: unknown) => e instanceof ValidationError && 'page.html' in e.fields,
    );
    // The request can swap the source by clearing the stored one.
    const swapped = templateRenderInput(withUrl, { page: { url: null, html: b64('<p>x</p>') } });
    assert.equal(swapped.page.html, b64('<p>x</p>'));
  });
});
