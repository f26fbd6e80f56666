import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readItemLines } from '../../../lib/batches/item-lines.js';
import { ValidationError } from '../../../lib/errors.js';

/** The text as chunks cut at arbitrary bytes (inside lines and inside a multi-byte character). */
async function* chunked(text: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function fieldsOf(promise: Promise<unknown>): Promise<Record<string, string>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ValidationError) return error.fields;
    throw error;
  }
  assert.fail('expected a ValidationError');
}

describe('readItemLines', () => {
  it('reads one item per line across chunk boundaries, CRLF and blank lines included', async () => {
    // Prepare
    const text = '{"name":"Zoë-1","page":{"templateData":{"n":1}}}\r\n\n{"name":"日本-2","metadata":{"id":"2"}}\n';

    // Act
    const items = await readItemLines(chunked(text));

    // Assess
    assert.deepEqual(items.map((item) => item.name), ['Zoë-1', '日本-2']);
    assert.deepEqual(items[1]?.metadata, { id: '2' });
  });

  it('checks every line before answering: names items.N for a line that is not JSON, not an object, or a bad field', async () => {
    const text = ['{"name":"ok"}', '{"name": oops}', '[1,2]', '{"name":"a/b"}', '{"nope":1}'].join('\n');
    const fields = await fieldsOf(readItemLines(chunked(text)));
    assert.deepEqual(Object.keys(fields).sort(), ['items.1', 'items.2', 'items.3.name', 'items.4.nope']);
    assert.match(fields['items.1'] ?? '', /JSON object/);
  });

  it('refuses more items than the limit, no items, and text that is not UTF-8, on itemsUrl', async () => {
    assert.deepEqual(Object.keys(await fieldsOf(readItemLines(chunked('{}\n{}\n{}\n'), 2))), ['itemsUrl']);
    assert.deepEqual(Object.keys(await fieldsOf(readItemLines(chunked('\n\n')))), ['itemsUrl']);
    assert.deepEqual(Object.keys(await fieldsOf(readItemLines((async function* () { yield new Uint8Array([0x7b, 0xff, 0x7d]); })()))), ['itemsUrl']);
  });
});
