import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { safeEntryName, zipInMemory } from '../../../lib/files/zip-stream.js';

/** The entry names of an archive's central directory, as an extractor reads them. */
function centralNames(zip: Buffer): string[] {
  const end = zip.length - 22;
  assert.equal(zip.readUInt32LE(end), 0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    names.push(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return names;
}

describe('zipStream entry names', () => {
  it('writes no name that reads as another or lands elsewhere: bidi controls, control characters, drives, paths, device names, trailing dots', async () => {
    // Prepare
    const names = ['invoice\u202Efdp.exe', 'C:\\Windows\\evil.pdf', '../../etc/cron.d/x.pdf', '/abs.pdf', 'tab\tname.pdf', 'NUL.pdf', 'com1', 'aux .txt', 'end. ', '..', 'fine-名前.pdf'];

    // Act
    const zip = await zipInMemory(names.map((name, i) => ({ name, data: Buffer.from(`file ${i}`) })));

    // Assess: the central directory and each local header carry the safe name
    const expected = ['invoice_fdp.exe', 'C__Windows_evil.pdf', '.._.._etc_cron.d_x.pdf', '_abs.pdf', 'tab_name.pdf', '_NUL.pdf', '_com1', '_aux .txt', 'end__', '__', 'fine-名前.pdf'];
    assert.deepEqual(centralNames(zip), expected);
    const firstLocal = zip.subarray(30, 30 + zip.readUInt16LE(26)).toString('utf8');
    assert.equal(firstLocal, expected[0]);
    assert.ok(!zip.includes(Buffer.from('\u202E')), 'no right-to-left override anywhere in the archive');
  });

  it('keeps a safe name as it is, and is idempotent', () => {
    for (const name of ['statement-0001.pdf', 'Zoë 日本.png', '.hidden', 'a..b', 'console.pdf', 'com10.pdf', '_nul.pdf']) {
      assert.equal(safeEntryName(name), name);
      assert.equal(safeEntryName(safeEntryName(`${name}:x`)), safeEntryName(`${name}:x`));
    }
  });
});
