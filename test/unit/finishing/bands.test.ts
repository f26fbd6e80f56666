import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { DocumentBudgetError, documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { MAX_HEADING_CHARS, MAX_HEADINGS, mergedBandFacts, sectionsByPage } from '../../../lib/finishing/steps/bands/bands.js';

/** A document of `count` pages, as a merge part. */
async function partOf(count: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < count; i += 1) doc.addPage([300, 400]);
  return doc.save();
}

describe("the bands' sections", () => {
  it('shows on each page the last heading listed on or before it, as a scan of every heading for every page did', () => {
    // Prepare: headings out of page order too (a heading listed later on an earlier page wins from there on).
    const headings = [
      { page: 1, text: 'One' },
      { page: 1, text: 'One, again' },
      { page: 4, text: 'Four' },
      { page: 2, text: 'Two, listed after Four' },
      { page: 6, text: 'Six' },
    ];

    // Act
    const sections = sectionsByPage(headings, 8, unboundedBudget());

    // Assess
    const scanned = Array.from({ length: 8 }, (_, page) => headings.filter((heading) => heading.page <= page).at(-1)?.text ?? '');
    assert.deepEqual(sections, scanned);
    assert.deepEqual(sections, ['', 'One, again', 'Two, listed after Four', 'Two, listed after Four', 'Two, listed after Four', 'Two, listed after Four', 'Six', 'Six']);
  });

  it("reads a merge's headings within the document's budget: counted against its headings, capped, their texts cut", async () => {
    // Prepare: a part whose page read 20,000 headings of 2,000 characters each.
    const parts = [{ pdf: await partOf(2), title: 'Part' }];
    const headings = Array.from({ length: 20_000 }, (_, i) => ({ page: i % 2, text: `${i}`.padEnd(2_000, '.') }));
    const facts = [{ title: 'Report', url: '', headings }];

    // Act
    const merged = await mergedBandFacts(parts, facts, undefined, undefined, unboundedBudget());
    const small = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { headings: 100 } });

    // Assess
    assert.equal(merged.headings.length, 1 + MAX_HEADINGS, "the part's title, then its headings up to the cap");
    assert.ok(merged.headings.every((heading) => heading.text.length <= MAX_HEADING_CHARS));
    await assert.rejects(mergedBandFacts(parts, facts, undefined, undefined, small), DocumentBudgetError);
  });
});
