import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { orderPages, PageOrderSchema } from '../../../lib/validation/page-ranges.js';
import { PdfOptionsSchema } from '../../../lib/schemas/render-options.js';

const problem = (order: string) => {
  const result = v.safeParse(PageOrderSchema, order);
  return result.success ? undefined : result.issues[0]?.message;
};

describe('pdf.pages', () => {
  it('keeps the pages in the order written, open ranges running to the end', () => {
    assert.deepEqual(orderPages('3, 1-2, 5-', 6), { pages: [2, 0, 1, 4, 5], beyond: false });
    assert.deepEqual(orderPages('-2', 4), { pages: [0, 1], beyond: false });
    assert.deepEqual(orderPages('', 3), { pages: [0, 1, 2], beyond: false });
  });

  it('reports a page past the end, an open range starting past it included', () => {
    assert.equal(orderPages('1, 7', 6).beyond, true);
    assert.equal(orderPages('4-9', 6).beyond, true);
    assert.equal(orderPages('7-', 6).beyond, true);
    assert.equal(orderPages('6-', 6).beyond, false);
  });

  it('refuses a page named twice, by two parts or one part repeated, and the pageRanges syntax errors', () => {
    assert.match(problem('2, 1-3') ?? '', /"2" and "1-3" both take page 2/);
    assert.match(problem('5-, 9') ?? '', /both take page 9/);
    assert.match(problem('-3, 3-') ?? '', /both take page 3/);
    assert.match(problem('4, 4') ?? '', /Page 4 is named twice/);
    assert.match(problem('5-2') ?? '', /ends before it starts/);
    assert.match(problem('a') ?? '', /separated by commas/);
    assert.equal(problem('3, 1-2, 5-'), undefined);
    assert.equal(problem('-2, 3, 4-'), undefined);
  });

  it('is refused with pageRanges or toc, on every field involved', () => {
    const result = v.safeParse(PdfOptionsSchema, { pages: '2, 1', pageRanges: '1-2', toc: true });
    assert.equal(result.success, false);
    const paths = new Set(result.issues?.map((issue) => v.getDotPath(issue)));
    assert.deepEqual([...paths].sort(), ['pageRanges', 'pages', 'toc']);
    assert.equal(v.safeParse(PdfOptionsSchema, { pages: '2, 1', pageRanges: '', toc: false }).success, true);
  });
});
