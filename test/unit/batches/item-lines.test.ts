import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readItemLines } from '../../../lib/batches/item-lines.js';
import { MAX_ITEM_LINE_BYTES } from '../../../lib/schemas/batch-requests.js';
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

  it('refuses a line longer than the cap on itemsUrl, naming its line, without reading the rest of the file', async () => {
    // Prepare: a good first line, then one line that never ends (twice the cap, in 64 KB chunks), the bytes handed out counted
    const piece = Buffer.alloc(64 * 1024, 'a');
    let handedOut = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('{"name":"first"}\n{"name":"');
      while (handedOut < 2 * MAX_ITEM_LINE_BYTES) {
        handedOut += piece.length;
        yield piece;
      }
    }

    // Act
    const fields = await fieldsOf(readItemLines(endless()));

    // Assess: the reading stopped once the line passed the cap
    assert.deepEqual(Object.keys(fields), ['itemsUrl']);
    assert.match(fields.itemsUrl ?? '', /Line 2 is longer than 5 MB/);
    assert.ok(handedOut <= MAX_ITEM_LINE_BYTES + piece.length, `read ${handedOut} bytes of the line`);
  });

  it('takes a line of exactly the cap', async () => {
    // Prepare: {"name":"x","metadata":{"pad":"aaaa…"}} padded to the cap
    const head = '{"name":"x","metadata":{"pad":"';
    const tail = '"}}';
    const line = head + 'a'.repeat(MAX_ITEM_LINE_BYTES - head.length - tail.length) + tail;

    // Act
    const fields = await fieldsOf(readItemLines(chunked(`${line}\n`, 256 * 1024)));

    // Assess: read, then held to the item's rules (metadata is at most 1 KB), not refused for its length
    assert.deepEqual(Object.keys(fields), ['items.0.metadata']);
  });

  it('names the line that is not UTF-8, and leaves a failure of the source as it is', async () => {
    // Prepare
    const broken = (async function* () {
      yield Buffer.from('{"name":"a"}\n{"name":"');
      yield new Uint8Array([0xff]);
      yield Buffer.from('"}\n');
    })();
    const dropped = (async function* () {
      yield Buffer.from('{"name":"a"}\n');
      throw new TypeError('terminated');
    })();

    // Act
    const fields = await fieldsOf(readItemLines(broken));
    const failure = readItemLines(dropped);

    // Assess
    assert.deepEqual(fields, { itemsUrl: 'Must be UTF-8 text (line 2 is not)' });
    await assert.rejects(failure, (error: unknown) => error instanceof TypeError && error.message === 'terminated');
  });
});
