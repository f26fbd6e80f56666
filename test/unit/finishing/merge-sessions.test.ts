import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from '@cantoo/pdf-lib';
import { withFinishing } from '../../../lib/document-renderer.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import type { MergePlan, PdfPlan } from '../../../lib/render/render-plan.js';
import type { Renderer } from '../../../lib/render/types.js';

async function onePage(): Promise<Buffer> {
  const document = await PDFDocument.create();
  document.addPage([200, 200]);
  return Buffer.from(await document.save());
}

/** A renderer that prints a blank page per plan and records, in order, what it was asked. */
function recordingRenderer(events: string[]): Renderer {
  return {
    render: async () => {
      events.push('render');
      return { body: await onePage(), contentType: 'application/pdf', output: 'PDF', timings: {} };
    },
    anticipate: (ahead) => void events.push(`anticipate ${ahead ?? 'default'}`),
    warm: async () => undefined,
    afterAnswer: async () => undefined,
    close: async () => undefined,
  };
}

const pagePlan = () => buildRenderPlan({ output: 'PDF', page: { html: Buffer.from('<p>part</p>').toString('base64') } } as never) as PdfPlan;

describe('merge › sessions opened ahead of its parts', () => {
  it("asks, before each printed part, for that part's session and the next one's: never more than two, none for an existing PDF", async () => {
    // Prepare: three page parts around an existing PDF
    const events: string[] = [];
    const renderer = withFinishing(recordingRenderer(events), 10_000);
    const plan: MergePlan = {
      output: 'PDF',
      merge: true,
      outline: false,
      finishing: {},
      parts: [{ plan: pagePlan() }, { document: new Uint8Array(await onePage()) }, { plan: pagePlan() }, { plan: pagePlan() }],
    };

    // Act
    const merged = await renderer.render(plan);

    // Assess
    assert.deepEqual(events, ['anticipate 2', 'render', 'anticipate 2', 'render', 'anticipate 1', 'render']);
    assert.equal((await PDFDocument.load(merged.body)).getPageCount(), 4);
  });
});
