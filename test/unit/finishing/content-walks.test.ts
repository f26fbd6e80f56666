import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream, type PDFRef } from '@cantoo/pdf-lib';
import { DocumentBudgetError, documentBudget } from '../../../lib/budget/document-budget.js';
import { compressStep } from '../../../lib/finishing/steps/compress/compress.js';
import { contentUsage } from '../../../lib/finishing/steps/compress/content-images.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { MAX_STREAM_INFLATED_BYTES } from '../../../lib/finishing/objects/stream-bytes.js';

const DEFAULTS = { imageQuality: 80, maxImageDpi: 150, grayscale: false };

const budgetOf = (totals: Parameters<typeof documentBudget>[0]['totals']) => documentBudget({ at: Date.now() + 600_000, budgetMs: 600_000, totals });

/** How many times `stream`'s stored bytes are read from now on (every decoding reads them). */
function countReads(stream: PDFRawStream): () => number {
  let reads = 0;
  const contents = stream.contents;
  Object.defineProperty(stream, 'contents', { get: () => ((reads += 1), contents) });
  return () => reads;
}

/** A one-page document whose content is `content` (stored as given, with `filter`), its resources `resources`. */
async function pageWith(build: (doc: PDFDocument) => { content: Uint8Array; filter?: string | string[]; resources: Record<string, unknown> }): Promise<PDFDocument> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([612, 792]);
  const { content, filter, resources } = build(doc);
  const stream = doc.context.register(PDFRawStream.of(doc.context.obj({ ...(filter ? { Filter: filter } : {}), Length: content.length }), content));
  page.node.set(PDFName.of('Contents'), stream);
  page.node.set(PDFName.of('Resources'), doc.context.obj(resources as never));
  return PDFDocument.load(await doc.save({ useObjectStreams: false }), { updateMetadata: false });
}

/** A 2 × 2 RGB image. */
const tinyImage = (doc: PDFDocument) => doc.context.register(doc.context.flateStream(new Uint8Array(12), { Type: 'XObject', Subtype: 'Image', Width: 2, Height: 2, ColorSpace: 'DeviceRGB', BitsPerComponent: 8 }));

describe('contentUsage', () => {
  it('reads a form drawn 20,000 times once, and counts its walk against the budget', async () => {
    // Prepare: one form drawing an image, drawn 20,000 times at half size and once at twice the size
    let image: PDFRef | undefined;
    let form: PDFRef | undefined;
    const doc = await pageWith((d) => {
      image = tinyImage(d);
      form = d.context.register(d.context.flateStream(Buffer.from(`q 100 0 0 100 0 0 cm /Im Do Q ${'0 0 m '.repeat(50)}`), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 100, 100], Resources: { XObject: { Im: image } } }));
      const content = `q 0.5 0 0 0.5 0 0 cm ${'/F Do\n'.repeat(20_000)}Q q 2 0 0 2 0 0 cm /F Do Q`;
      return { content: deflateSync(Buffer.from(content)), filter: 'FlateDecode', resources: { XObject: { F: form } } };
    });
    const reads = countReads(doc.context.lookup(form as PDFRef) as PDFRawStream);
    const budget = budgetOf({ objects: 1_000_000 });

    // Act
    const usage = contentUsage(doc, budget);

    // Assess
    assert.equal(reads(), 1, 'the form is decoded once');
    assert.deepEqual(usage.images.get(image as PDFRef), { width: 200, height: 200 }, 'its largest draw is still found');
    const spent = 1_000_000 - budget.left('objects');
    assert.ok(spent >= 20_000, `every operator walked is counted (${spent})`);
    assert.ok(spent < 25_000, `the form is not walked again at each draw (${spent})`);
  });

  it("refuses, past the document's objects, forms nested to draw an image at 100,000 different sizes", async () => {
    // Prepare: five levels, each drawing the next at ten scales (primes, so no two paths share a size)
    const primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229];
    const doc = await pageWith((d) => {
      let inner = tinyImage(d);
      for (let level = 4; level >= 0; level -= 1) {
        const draws = primes.slice(level * 10, level * 10 + 10).map((p) => `q ${p} 0 0 1 0 0 cm /X Do Q`).join(' ');
        inner = d.context.register(d.context.flateStream(Buffer.from(draws), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1], Resources: { XObject: { X: inner } } }));
      }
      return { content: Buffer.from('/X Do'), resources: { XObject: { X: inner } } };
    });

    // Act, Assess
    assert.throws(() => contentUsage(doc, budgetOf({ objects: 100_000 })), (error: unknown) => error instanceof DocumentBudgetError && error.total === 'objects');
  });

  it('takes a page whose content inflates past the ceiling as unread: its fonts are not known fully, nothing is counted', async () => {
    // Prepare: a content part of 64 MB and one byte of spaces, then text in a font
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([612, 792]);
    const font = doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }));
    const huge = deflateSync(Buffer.alloc(MAX_STREAM_INFLATED_BYTES + 1, 0x20), { level: 9 });
    const text = Buffer.from('BT /F1 12 Tf (Hi) Tj ET');
    const parts = [
      doc.context.register(PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: huge.length }), huge)),
      doc.context.register(PDFRawStream.of(doc.context.obj({ Length: text.length }), text)),
    ];
    page.node.set(PDFName.of('Contents'), doc.context.obj(parts));
    page.node.set(PDFName.of('Resources'), doc.context.obj({ Font: { F1: font } }));
    const budget = budgetOf({});
    const before = budget.left('inflatedBytes');

    // Act
    const usage = contentUsage(doc, budget);

    // Assess
    assert.equal(usage.fontsFullyKnown.size, 0, 'no font is known fully beside a part not read');
    assert.deepEqual(usage.fonts.get(font)?.map((shown) => Buffer.from(shown).toString('latin1')), ['Hi'], 'the part read is read');
    assert.equal(before - budget.left('inflatedBytes'), text.length, 'only what was read is counted');
  });

  for (const [filter, encode] of [
    ['FlateDecode', (bytes: Buffer) => deflateSync(bytes)],
    // RunLength: 2 bytes say "the next byte 128 times" (pdf-lib's decoder, read a chunk at a time).
    ['RunLengthDecode', (bytes: Buffer) => Buffer.concat([...Array.from({ length: Math.ceil(bytes.length / 128) }, () => Buffer.from([129, 0x20])), Buffer.from([128])])],
    ['ASCIIHexDecode', (bytes: Buffer) => Buffer.from(`${bytes.toString('hex')}>`)],
  ] as Array<[string, (bytes: Buffer) => Buffer]>) {
    it(`refuses content (${filter}) that inflates past what is left of the document's total`, async () => {
      // Prepare: 2 MB of content, 1 MB left
      const doc = await pageWith(() => ({ content: encode(Buffer.alloc(2 * 1024 * 1024, 0x20)), filter, resources: {} }));
      const pdf = await doc.save();

      // Act
      const finishing = finishPdf(pdf, { compress: compressStep(DEFAULTS) }, budgetOf({ inflatedBytes: 1024 * 1024 }));

      // Assess
      await assert.rejects(finishing, (error: unknown) => error instanceof DocumentBudgetError && error.total === 'inflatedBytes');
    });
  }

  it('reads content through a chain of filters, each bounded, and sizes what it draws', async () => {
    // Prepare: the content hex-encoded, then Flate-compressed (decoded Flate first, then hex)
    let image: PDFRef | undefined;
    const doc = await pageWith((d) => {
      image = tinyImage(d);
      const hex = Buffer.from(`${Buffer.from('q 144 0 0 72 0 0 cm /Im Do Q').toString('hex')}>`);
      return { content: deflateSync(hex), filter: ['FlateDecode', 'ASCIIHexDecode'], resources: { XObject: { Im: image } } };
    });

    // Act
    const usage = contentUsage(doc, budgetOf({}));

    // Assess
    assert.deepEqual(usage.images.get(image as PDFRef), { width: 144, height: 72 });
  });
});
