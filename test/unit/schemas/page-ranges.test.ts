import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { MAX_PAGE_NUMBER, orderPages, PageOrderSchema, PageRangesSchema, selectPages } from '../../../lib/validation/page-ranges.js';

const problem = (schema: typeof PageRangesSchema, ranges: string) => {
  const result = v.safeParse(schema, ranges);
  return result.success ? undefined : result.issues[0]?.message;
};

describe('page ranges: numbers beyond the bound', () => {
  it('refuses a page number of 309 digits (read as Infinity) instead of taking "1-999…9" as "1-"', () => {
    // Prepare
    const huge = '9'.repeat(309);

    // Act
    const refused = [`1-${huge}`, huge, `-${huge}`, `${huge}-`, `2, 00${MAX_PAGE_NUMBER + 1}`].flatMap((ranges) => [
      problem(PageRangesSchema, ranges),
      problem(PageOrderSchema, ranges),
    ]);

    // Assess
    for (const message of refused) assert.equal(message, `Page numbers go up to ${MAX_PAGE_NUMBER}`);
  });

  it('refuses a number past the bound that is still a safe integer, and takes the bound itself, leading zeros included', () => {
    assert.equal(problem(PageRangesSchema, `1-${MAX_PAGE_NUMBER + 1}`), `Page numbers go up to ${MAX_PAGE_NUMBER}`);
    assert.equal(problem(PageRangesSchema, `1-${MAX_PAGE_NUMBER}`), undefined);
    assert.equal(problem(PageOrderSchema, `000000003, 1-2`), undefined);
    assert.deepEqual(selectPages(`2-${MAX_PAGE_NUMBER}`, 3), { pages: [1, 2], beyond: true });
    assert.deepEqual(orderPages('00003, 1', 3), { pages: [2, 0], beyond: false });
  });
});
