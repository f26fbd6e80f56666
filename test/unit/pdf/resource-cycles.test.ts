import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { PDFDict, PDFDocument, PDFName, type PDFRef } from '@cantoo/pdf-lib';
import { DocumentBudgetError, documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { planPageImages } from '../../../lib/finishing/images/page-images.js';
import { breakResourceCycles } from '../../../lib/pdf/resource-cycles.js';

/** A form XObject drawing the named XObjects (`names` to refs), registered in `doc`. */
const form = (doc: PDFDocument, draws: Record<string, PDFRef>, kind: 'XObject' | 'Pattern' = 'XObject') => {
  const content = Object.keys(draws).map((name) => `/${name} Do`).join('\n');
  const extra = kind === 'Pattern' ? { PatternType: 1, PaintType: 1, TilingType: 1, BBox: [0, 0, 10, 10], XStep: 10, YStep: 10 } : { Subtype: 'Form', BBox: [0, 0, 10, 10] };
  return doc.context.register(doc.context.stream(content, { ...extra, Resources: { XObject: draws } }));
};

const xobjectsOf = (doc: PDFDocument, ref: PDFRef) => {
  const stream = doc.context.lookup(ref) as unknown as { dict: PDFDict };
  const resources = stream.dict.lookup(PDFName.of('Resources'), PDFDict);
  return resources.lookup(PDFName.of('XObject'), PDFDict).keys().map((key) => key.decodeText());
};

describe('breakResourceCycles', () => {
  it('takes out the one entry that closes a loop through a pattern, and keeps a form drawn twice', async () => {
    // Prepare: page → A; A → B and Shared; B → Shared and pattern P; P → A (the loop); page → Shared too.
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    const shared = form(doc, {});
    const aRef = doc.context.nextRef();
    const p = form(doc, { Back: aRef }, 'Pattern');
    const b = form(doc, { Shared: shared, Pat: p });
    doc.context.assign(aRef, doc.context.stream('/B Do /Shared Do', { Subtype: 'Form', BBox: [0, 0, 10, 10], Resources: { XObject: { B: b, Shared: shared } } }));
    page.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { A: aRef, Shared: shared } }));

    // Act
    const removed = breakResourceCycles(doc, unboundedBudget());

    // Assess
    assert.equal(removed, 1);
    assert.deepEqual(xobjectsOf(doc, p), []);
    assert.deepEqual(xobjectsOf(doc, aRef).sort(), ['B', 'Shared']);
    assert.deepEqual(xobjectsOf(doc, b).sort(), ['Pat', 'Shared']);
  });

  it('leaves a document without loops as it is', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    const leaf = form(doc, {});
    page.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { A: form(doc, { L: leaf }), B: form(doc, { L: leaf }) } }));
    assert.equal(breakResourceCycles(doc, unboundedBudget()), 0);
  });

  it('counts every edge it follows against the document\'s objects', async () => {
    // Prepare: a chain of 50 forms, with a budget of 10 objects.
    const doc = await PDFDocument.create();
    const page = doc.addPage([100, 100]);
    let next = form(doc, {});
    for (let i = 0; i < 50; i += 1) next = form(doc, { N: next });
    page.node.set(PDFName.of('Resources'), doc.context.obj({ XObject: { Top: next } }));

    // Act, Assess
    assert.throws(() => breakResourceCycles(doc, documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { objects: 10 } })), DocumentBudgetError);
  });

  it('gives page images of PDF.js\'s operator_list_cycle.pdf a copy without its loop to draw', async () => {
    // Prepare
    const pdf = new Uint8Array(readFileSync(new URL('../../fixtures/pdfjs/operator_list_cycle.pdf', import.meta.url)));

    // Act
    const planned = await planPageImages(pdf, { type: 'png', pages: '', size: { dpi: 36 } }, unboundedBudget());

    // Assess
    assert.notEqual(planned.pdf, pdf);
    const copy = await PDFDocument.load(planned.pdf);
    assert.equal(breakResourceCycles(copy, unboundedBudget()), 0, 'the copy draws no loop');
  });
});
