/**
 * `GET /v1/templates?page=N`: N >= 1 (interface.md), 1 by default, other
 * parameters ignored; a refused value says what is accepted.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/validation/parse.js';
import { TemplateListQuerySchema } from '../../../lib/schemas/template-requests.js';

const parse = (query: Record<string, string>) => parseInput(TemplateListQuerySchema, query);

function refusal(query: Record<string, string>): string {
  try {
    parse(query);
  } catch (error) {
    assert.ok(error instanceof ValidationError);
    return String(error.fields.page);
  }
  assert.fail(`${JSON.stringify(query)} was accepted`);
}

describe('TemplateListQuerySchema', () => {
  it('reads page N from 1 up, 1 when absent, and ignores other parameters', () => {
    assert.equal(parse({}).page, 1);
    assert.equal(parse({ page: '1', sort: 'name' }).page, 1);
    assert.equal(parse({ page: '42' }).page, 42);
    assert.equal(parse({ page: '999999999' }).page, 999_999_999);
  });

  it('refuses 0, non-integers and pages past the largest, saying which pages exist', () => {
    for (const page of ['0', '-1', '1.5', 'abc', '', '1000000000']) {
      assert.equal(refusal({ page }), 'Must be a whole number from 1 to 999999999', page);
    }
  });
});
