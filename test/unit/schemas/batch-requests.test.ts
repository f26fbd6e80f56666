import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/schemas/parse.js';
import { BatchRequestSchema, MAX_OUTPUT_ITEMS } from '../../../lib/schemas/batch-requests.js';

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ page: { templateData: { i } } }));

describe('BatchRequestSchema output', () => {
  it('takes output.zip and output.merge on a batch of up to MAX_OUTPUT_ITEMS items', () => {
    const body = parseInput(BatchRequestSchema, { defaults: { templateId: 'tpl_1' }, items: items(MAX_OUTPUT_ITEMS), output: { zip: true, merge: true } });
    assert.deepEqual(body.output, { zip: true, merge: true });
  });

  it('refuses output.zip and output.merge on a larger batch, naming each, and an unknown output key', () => {
    // Act
    const refused = (body: unknown) => {
      try {
        parseInput(BatchRequestSchema, body);
      } catch (error) {
        if (error instanceof ValidationError) return error.fields;
        throw error;
      }
      return undefined;
    };

    // Assess
    const fields = refused({ defaults: { templateId: 'tpl_1' }, items: items(MAX_OUTPUT_ITEMS + 1), output: { zip: true, merge: true } });
    assert.deepEqual(Object.keys(fields ?? {}).sort(), ['output.merge', 'output.zip']);
    assert.match(fields?.['output.zip'] ?? '', /^Takes at most 1000 items/);
    assert.equal(refused({ defaults: { templateId: 'tpl_1' }, items: items(MAX_OUTPUT_ITEMS + 1), output: { zip: false } }), undefined);
    assert.ok(Object.keys(refused({ items: items(1), output: { tar: true } }) ?? {}).some((field) => field.startsWith('output')));
  });
});
