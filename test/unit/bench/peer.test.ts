import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { checkedPages, parsePeer, printPeer, type PeerDocumentResult, type PeerResult } from '../../../bench/peer.js';
import { summarize } from '../../../bench/stats.js';

describe('parsePeer', () => {
  it('reads --peer gotenberg=URL, without a trailing slash', () => {
    assert.deepEqual(parsePeer('gotenberg=http://127.0.0.1:3917/'), { name: 'gotenberg', url: 'http://127.0.0.1:3917' });
  });

  it('refuses a peer whose API the bench does not speak, or no URL', () => {
    assert.throws(() => parsePeer('browserless=http://127.0.0.1:3000'), /expected gotenberg=URL/);
    assert.throws(() => parsePeer('http://127.0.0.1:3917'), /expected gotenberg=URL/);
    assert.throws(() => parsePeer('gotenberg=127.0.0.1:3917'), /not an http\(s\) URL/);
  });
});

describe('printPeer', () => {
  /** A document where the service answered in `service` ms and the peer in `peer`, one at a time and at 4 at once. */
  function row(title: string, service: number, peer: number, rates: [number, number]): PeerDocumentResult {
    const s = (ms: number) => ({ ...summarize([ms, ms, ms]), p99: ms });
    const load = (docsPerSecond: number, ms: number) => ({ docsPerSecond, p50: ms * 3, p99: ms * 4, failures: 0 });
    return {
      id: title,
      title,
      pages: 1,
      bytes: { service: 1000, peer: 2000 },
      sequential: { service: s(service), peer: s(peer) },
      loaded: { service: load(rates[0], service), peer: load(rates[1], peer) },
      raw: { sequential: { service: [], peer: [] }, loaded: { service: [], peer: [] } },
    };
  }

  it('prints each document with both sides, the ratios, and what the peer refused with its answer', () => {
    // Prepare: the service twice as fast one at a time, three times the documents per second at 4 at once.
    const result: PeerResult = {
      peer: { name: 'gotenberg', url: 'http://127.0.0.1:3917' },
      version: '8.36.0',
      concurrency: 4,
      documents: [row('1-page invoice', 100, 200, [9, 3])],
      unsupported: [{ id: 'invoice-pdfa3b', title: '1-page invoice, PDF/A-3b', answer: '500 Internal Server Error' }],
    };

    // Act
    const text = printPeer(result);

    // Assess
    const line = text.split('\n').find((l) => l.includes('1-page invoice ')) ?? '';
    assert.match(line, /100 \/ 100\s+200 \/ 200\s+0\.5\s+9 \/ 3\s+3\s+300 \/ 400; 600 \/ 800/);
    assert.match(text, /gotenberg 8\.36\.0 at http:\/\/127\.0\.0\.1:3917/);
    assert.match(text, /not compared: 1-page invoice, PDF\/A-3b: the peer answered 500 Internal Server Error/);
    assert.match(text, /PDF\/A and PDF\/UA with LibreOffice/);
  });
});

describe('checkedPages', () => {
  /** A PDF of `pages` blank US-letter pages. */
  async function pdfOf(pages: number): Promise<ArrayBuffer> {
    const doc = await PDFDocument.create();
    for (let i = 0; i < pages; i += 1) doc.addPage([612, 792]);
    const bytes = await doc.save();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  it('counts the pages and leaves the answer whole, so its size can still be reported', async () => {
    // Prepare
    const data = await pdfOf(3);
    const size = data.byteLength;

    // Act
    const pages = await checkedPages('the service', { id: 'report' }, data);

    // Assess
    assert.equal(pages, 3);
    assert.equal(data.byteLength, size);
  });

  it('refuses an answer that is not a PDF, or lacks the mark the document asks for', async () => {
    const html = new TextEncoder().encode('<html>error</html>').buffer as ArrayBuffer;
    await assert.rejects(checkedPages('gotenberg', { id: 'invoice' }, html), /invoice: gotenberg did not answer a PDF/);
    await assert.rejects(checkedPages('gotenberg', { id: 'invoice-pdfa3b', mark: 'pdfa' }, await pdfOf(1)), /does not show pdfa/);
    await assert.rejects(checkedPages('gotenberg', { id: 'invoice-protected', mark: 'encrypted' }, await pdfOf(1)), /does not show encrypted/);
  });
});
