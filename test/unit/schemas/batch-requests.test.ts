import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/validation/parse.js';
import { BatchRequestSchema, checkOutputCap, MAX_OUTPUT_ITEMS } from '../../../lib/schemas/batch-requests.js';

/** The fields of the 400 that `act` throws, or undefined when it throws none. */
const fieldsThrown = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    if (error instanceof ValidationError) return error.fields;
    throw error;
  }
  return undefined;
};

/** The fields of the 400 the body gets, or undefined when it is taken. */
const fieldsOf = (body: unknown) => fieldsThrown(() => parseInput(BatchRequestSchema, body));

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ page: { templateData: { i } } }));

describe('BatchRequestSchema output', () => {
  it('takes output.zip and output.merge on a batch of up to MAX_OUTPUT_ITEMS items', () => {
    const body = parseInput(BatchRequestSchema, { defaults: { templateId: 'tpl_1' }, items: items(MAX_OUTPUT_ITEMS), output: { zip: true, merge: true } });
    assert.deepEqual(body.output, { zip: true, merge: true });
  });

  it('refuses output.zip and output.merge on a larger batch, naming each, and an unknown output key', () => {
    // Assess
    const capped = (output: { zip?: boolean; merge?: boolean }, count: number) => fieldsThrown(() => checkOutputCap(output, count));
    const fields = capped({ zip: true, merge: true }, MAX_OUTPUT_ITEMS + 1);
    assert.deepEqual(Object.keys(fields ?? {}).sort(), ['output.merge', 'output.zip']);
    assert.match(fields?.['output.zip'] ?? '', /^Takes at most 10000 items/);
    assert.equal(capped({ zip: false }, MAX_OUTPUT_ITEMS + 1), undefined);
    assert.equal(capped({ zip: true, merge: true }, MAX_OUTPUT_ITEMS), undefined);
    assert.ok(Object.keys(fieldsOf({ items: items(1), output: { tar: true } }) ?? {}).some((field) => field.startsWith('output')));
  });
});

describe('BatchRequestSchema itemsUrl', () => {
  it('takes an http(s) URL or an s3:// key in place of items', () => {
    assert.equal(parseInput(BatchRequestSchema, { itemsUrl: ' https://example.com/items.jsonl ' }).itemsUrl, 'https://example.com/items.jsonl');
    assert.equal(parseInput(BatchRequestSchema, { itemsUrl: 's3://docrender-files/uploads/acc_1/run.jsonl' }).itemsUrl, 's3://docrender-files/uploads/acc_1/run.jsonl');
  });

  it('wants exactly one of items and itemsUrl, naming both', () => {
    const both = fieldsOf({ items: items(1), itemsUrl: 'https://example.com/items.jsonl' });
    const neither = fieldsOf({ defaults: { templateId: 'tpl_1' } });
    assert.deepEqual(both, { items: 'Give exactly one of items and itemsUrl', itemsUrl: 'Give exactly one of items and itemsUrl' });
    assert.deepEqual(neither, both);
  });

  it('refuses a private or metadata address, another scheme and a malformed s3 key, naming itemsUrl', () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://127.0.0.1/items.jsonl', 'file:///etc/passwd', 'ftp://example.com/a', 's3://bucket', 's3://Bucket/key', 'not a url']) {
      assert.ok(fieldsOf({ itemsUrl: url })?.itemsUrl, url);
    }
  });
});

describe('BatchRequestSchema item names', () => {
  const nameProblem = (name: string) => fieldsOf({ items: [{ page: { templateData: {} } }, { name, page: { templateData: {} } }] })?.['items.1.name'];

  it('refuses a name that would read as another in the archive or make a path: bidi controls, control characters, drives, separators, only dots', () => {
    // Prepare
    const spoofing = [
      'invoice\u202Efdp.exe', // right-to-left override: shows as "invoiceexe.pdf"
      'a\u202Ab', 'a\u2066b', 'a\u2069b', 'a\u200Fb', 'a\u200Eb', 'a\u061Cb', 'a\u2028b',
      'tab\there', 'bell\u0007', 'del\u007F', 'c1\u0085', 'nul\u0000',
      'C:', 'C:evil', 'a.pdf:stream', '/etc/passwd', '\\\\server\\share', '../up', '..\\up', '.', '..', '...',
    ];

    // Act
    const problems = spoofing.map(nameProblem);

    // Assess
    for (const [i, problem] of problems.entries()) assert.match(problem ?? '', /^Must not contain slashes, backslashes, colons/, JSON.stringify(spoofing[i]));
  });

  it('takes names in any script, emoji joined by ZWJ, leading dots, trailing dots and spaces, and device names (the archive renames those)', () => {
    for (const name of ['Zoë 日本 עברית', '👨‍👩‍👧 family', '.hidden', '..draft', 'report.', 'report ', 'CON', 'nul.pdf', 'x'.repeat(200)]) {
      assert.equal(nameProblem(name), undefined, JSON.stringify(name));
    }
  });
});
