import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { PDFDocument } from '@cantoo/pdf-lib';
import { plainPageCount } from '../../../lib/pdf/page-count.js';

/** A file whose page tree is written as Chromium's PDF writer writes one: nodes of up to 8 kids under a root that counts them all. */
function skiaLike(pages: number): Uint8Array {
  const nodes: string[] = [];
  for (let first = 0; first < pages; first += 8) {
    const count = Math.min(8, pages - first);
    nodes.push(`${100 + first} 0 obj\n<</Type /Pages\n/Count ${count}\n/Kids [${Array.from({ length: count }, (_, i) => `${1000 + first + i} 0 R`).join(' ')}]\n/Parent 50 0 R>>\nendobj`);
  }
  const root = `50 0 obj\n<</Type /Pages\n/Count ${pages}\n/Kids [${nodes.map((_, i) => `${100 + i * 8} 0 R`).join(' ')}]>>\nendobj`;
  const catalog = '1 0 obj\n<</Type /Catalog\n/Pages 50 0 R>>\nendobj';
  return Buffer.from(`%PDF-1.4\n${catalog}\n${nodes.join('\n')}\n${root}\n%%EOF`, 'latin1');
}

async function pdfLibDocument(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i += 1) doc.addPage([100, 100]);
  return doc.save({ useObjectStreams: false });
}

describe('plainPageCount', () => {
  it("reads the root's count of a tree of nodes, not a node's nor the catalog's reference", () => {
    assert.equal(plainPageCount(skiaLike(21)), 21);
    assert.equal(plainPageCount(skiaLike(5_000)), 5_000);
    assert.equal(plainPageCount(skiaLike(1)), 1);
  });

  it('reads a flat tree whose root lists thousands of kids, and keys in another order or without spaces', async () => {
    assert.equal(plainPageCount(await pdfLibDocument(3_000)), 3_000);
    assert.equal(plainPageCount(Buffer.from('%PDF-1.7\n3 0 obj<</Count 12/Type/Pages/Kids[]>>endobj', 'latin1')), 12);
  });

  it('answers undefined where the tree is not in plain syntax (object streams) or there is none, and ignores /PagesX', async () => {
    const objects = deflateSync('2 0 <</Type /Pages /Count 4 /Kids [3 0 R 4 0 R 5 0 R 6 0 R]>>');
    const inStream = Buffer.concat([Buffer.from(`%PDF-1.5\n7 0 obj\n<</Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${objects.length}>>\nstream\n`), objects, Buffer.from('\nendstream\nendobj\n')]);
    assert.equal(plainPageCount(inStream), undefined);
    assert.equal(plainPageCount(Buffer.from('%PDF-1.7\nnot a tree /Type /PagesX /Count 9 <</Pages 3 0 R>>', 'latin1')), undefined);
    assert.equal(plainPageCount(new Uint8Array()), undefined);
  });
});
