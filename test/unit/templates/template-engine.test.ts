import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDocumentPlan, buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { loadTemplateRenderer, templatesFor } from '../../../lib/templates/template-engine.js';
import type { DocumentInput } from '../../../lib/schemas/merge-requests.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const html = { html: b64('<p>plain</p>') };
const template = { htmlTemplate: b64('<p>{{name}}</p>'), templateData: { name: 'Ada' } };
const invoice = { eInvoice: { xmlTemplate: b64('<x/>') } };

describe('templatesFor: the template renderer, only for a request that has a template', () => {
  it('gives nothing for a request without a template', async () => {
    for (const input of [
      { output: 'PDF', page: html },
      { output: 'IMAGE', page: html },
      { output: 'PDF', parts: [{ page: html }, { document: b64('%PDF') }] },
    ]) assert.equal(await templatesFor(input as DocumentInput), undefined, JSON.stringify(input));
  });

  it("gives the renderer for a page's htmlTemplate or an invoice's xmlTemplate, in a merge's parts and its own pdf too", async () => {
    const renderer = await loadTemplateRenderer();
    for (const input of [
      { output: 'PDF', page: template },
      { output: 'IMAGE', page: template },
      { output: 'PDF', page: html, pdf: invoice },
      { output: 'PDF', parts: [{ page: html }, { page: template }] },
      { output: 'PDF', parts: [{ page: html, pdf: invoice }] },
      { output: 'PDF', parts: [{ page: html }], pdf: invoice },
    ]) assert.equal(await templatesFor(input as DocumentInput), renderer, JSON.stringify(input));
  });

  it('plans a template with the renderer it is given, and refuses to plan one without it', async () => {
    const input = { output: 'PDF', page: template } as const;
    const plan = buildDocumentPlan(input, await templatesFor(input));
    assert.deepEqual('page' in plan && plan.page.source, { kind: 'html', html: '<p>Ada</p>', fromTemplate: true });
    assert.throws(() => buildRenderPlan(input), /without the template renderer/);
  });
});
