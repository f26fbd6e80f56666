import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import type { DocumentEdit, PdfStep } from '../../../lib/finishing/pipeline/step-types.js';

const append = (tag: string): PdfStep => async (pdf) => new Uint8Array([...pdf, tag.charCodeAt(0)]);

/** An edit that records the document it was given and marks the catalog with `key`. */
const marking = (key: string, seen: PDFDocument[]): DocumentEdit => ({
  edit: (doc) => {
    seen.push(doc);
    doc.catalog.set(PDFName.of(key), PDFName.of('Yes'));
  },
});

const onePage = async () => {
  const doc = await PDFDocument.create();
  doc.addPage([100, 100]);
  return doc.save();
};

/** Whether the saved PDF's catalog carries `key`. */
const catalogHas = async (pdf: Uint8Array, key: string) => (await PDFDocument.load(pdf)).catalog.has(PDFName.of(key));

describe('finishPdf', () => {
  it('runs the steps in the documented order whatever order they are given in', async () => {
    // Prepare
    const steps = { protect: append('P'), attach: append('T'), assemble: append('A'), archive: append('R'), stamp: append('S') };
    // Act
    const out = await finishPdf(new Uint8Array(), steps, unboundedBudget());
    // Assess
    assert.equal(String.fromCharCode(...out), 'ASRTP');
  });

  it('tells the page count of the document it opened, after the edits, and nothing when only byte steps ran', async () => {
    // Prepare: an edit that adds two pages to a one-page file
    const adding: DocumentEdit = { edit: (doc) => void (doc.addPage([100, 100]), doc.addPage([100, 100])) };
    const [edited, bytesOnly] = [{} as { pageCount?: number }, {} as { pageCount?: number }];

    // Act
    await finishPdf(await onePage(), { stamp: adding, protect: append('P') }, unboundedBudget(), undefined, edited);
    await finishPdf(await onePage(), { protect: append('P') }, unboundedBudget(), undefined, bytesOnly);

    // Assess
    assert.equal(edited.pageCount, 3);
    assert.equal(bytesOnly.pageCount, undefined);
  });

  it('answers the printed bytes themselves when nothing is asked', async () => {
    const pdf = new Uint8Array([1, 2, 3]);
    assert.equal(await finishPdf(pdf, {}, unboundedBudget()), pdf);
  });

  it('gives consecutive document edits one parsed document (an e-invoice loads and saves once)', async () => {
    // Prepare
    const seen: PDFDocument[] = [];

    // Act
    const out = await finishPdf(await onePage(), { archive: marking('Archived', seen), attach: marking('Attached', seen) }, unboundedBudget());

    // Assess
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1], 'the attach edit works on the document the archive edit opened');
    assert.ok(await catalogHas(out, 'Archived'));
    assert.ok(await catalogHas(out, 'Attached'));
  });

  it('saves the edits before a byte step, which sees them, and opens again for edits after one', async () => {
    // Prepare
    const seen: PDFDocument[] = [];
    const sawArchive: boolean[] = [];
    const protect: PdfStep = async (pdf) => {
      sawArchive.push(await catalogHas(pdf, 'Archived'));
      return pdf;
    };
    const assemble: PdfStep = async (pdf) => pdf;

    // Act
    const out = await finishPdf(await onePage(), { assemble, stamp: marking('Stamped', seen), archive: marking('Archived', seen), protect }, unboundedBudget());

    // Assess
    assert.deepEqual(sawArchive, [true]);
    assert.equal(seen[0], seen[1]);
    assert.ok(await catalogHas(out, 'Stamped'));
  });
});
