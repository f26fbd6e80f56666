import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import fc from 'fast-check';
import { readPdfInput } from '../../../lib/finishing/input/pdf-input-bounds.js';
import { MAX_DOCUMENT_NESTING, MAX_DOCUMENT_OBJECTS, MAX_DOCUMENT_PAGES, MAX_PAGE_EDGE_POINTS } from '../../../lib/schemas/merge-requests.js';
import {
  deepDictionaryPdf,
  deepNestingPdf,
  encryptedObjectStreamBombPdf,
  kidsLoopPdf,
  manyObjectsPdf,
  manyPagesPdf,
  objectStreamBombPdf,
  onePagePdf,
  pageSizePdf,
  referenceChainPdf,
} from '../../helpers/hostile-pdfs.js';

/** What the bounds say of a file: its problem, else 'ok'. */
async function verdict(bytes: Uint8Array): Promise<string> {
  const read = await readPdfInput(bytes);
  return 'problem' in read ? read.problem : 'ok';
}

describe('pdf input bounds', () => {
  it('open an encrypted PDF to process with its password, read within the same bounds as it is decrypted', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 3; i++) doc.addPage([300, 300]).drawText(`Page ${i + 1}`);
    doc.encrypt({ userPassword: 'open-sesame', ownerPassword: 'owner' });
    const encrypted = await doc.save({ useObjectStreams: true });
    assert.deepEqual(await readPdfInput(encrypted, { decrypt: true, password: 'open-sesame' }), {
      pages: 3,
      encryption: { filter: 'Standard', version: 5, revision: 6, keyBits: 256, permissions: -3904, metadataEncrypted: true },
    });
    assert.equal(((await readPdfInput(encrypted, { decrypt: true, password: 'owner' })) as { pages: number }).pages, 3);
    assert.deepEqual(await readPdfInput(encrypted, { decrypt: true }), { problem: 'Is encrypted: give its password', password: true });
    assert.deepEqual(await readPdfInput(encrypted, { decrypt: true, password: 'nope' }), { problem: 'The password does not open this PDF', password: true });
    // A merge part must still come unencrypted.
    assert.match(await verdict(encrypted), /encrypted/);
    // An empty user password opens without one, as in any reader; its encrypted object stream is bounded once decrypted.
    assert.equal(((await readPdfInput(encryptedObjectStreamBombPdf(1_000_000), { decrypt: true })) as { pages: number }).pages, 1);
    assert.deepEqual(await readPdfInput(encryptedObjectStreamBombPdf(200_000_000), { decrypt: true }), {
      problem: 'Its object and cross-reference streams must inflate to at most 32 MB together',
    });
  });

  it('refuse each hostile file the same way when it is read to be processed (decrypt mode)', async () => {
    for (const bytes of [deepNestingPdf(MAX_DOCUMENT_NESTING), objectStreamBombPdf(200_000_000), kidsLoopPdf(), manyPagesPdf(MAX_DOCUMENT_PAGES + 1)]) {
      assert.deepEqual(await readPdfInput(bytes, { decrypt: true }), await readPdfInput(bytes));
    }
  });

  it('accept the files pdf-lib writes, object and cross-reference streams included, and each hostile file at its bound', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 30; i++) doc.addPage([MAX_PAGE_EDGE_POINTS, 300]).drawText(`Page ${i + 1}`);
    const withObjectStreams = await doc.save({ useObjectStreams: true });
    assert.match(Buffer.from(withObjectStreams).toString('latin1'), /\/Type \/ObjStm/);

    assert.equal(await verdict(withObjectStreams), 'ok');
    assert.equal(await verdict(await doc.save({ useObjectStreams: false })), 'ok');
    assert.equal(await verdict(onePagePdf()), 'ok');
    assert.equal(await verdict(deepNestingPdf(MAX_DOCUMENT_NESTING - 1)), 'ok');
    assert.equal(await verdict(manyPagesPdf(MAX_DOCUMENT_PAGES)), 'ok');
    assert.equal(await verdict(pageSizePdf(MAX_PAGE_EDGE_POINTS, MAX_PAGE_EDGE_POINTS)), 'ok');
    assert.equal(await verdict(objectStreamBombPdf(1_000_000)), 'ok');
    assert.equal(await verdict(referenceChainPdf(400)), 'ok');
  });

  it('refuse each hostile file with a problem that names its bound', async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['arrays nested one past the bound', deepNestingPdf(MAX_DOCUMENT_NESTING), /nest arrays and dictionaries more than 64/],
      ['dictionaries nested 2,000 deep', deepDictionaryPdf(2_000), /nest arrays and dictionaries more than 64/],
      ['arrays nested 100,000 deep (the parser would overflow its stack)', deepNestingPdf(100_000), /nest arrays and dictionaries more than 64/],
      ['a chain of 5,000 references from a page (the page copy overflowed its stack)', referenceChainPdf(5_000), /more than 1000 levels of references/],
      ['an object stream inflating to 200 MB', objectStreamBombPdf(200_000_000), /inflate to at most 32 MB/],
      ['a page tree that loops', kidsLoopPdf(), /page tree loops/],
      ['one page more than the bound', manyPagesPdf(MAX_DOCUMENT_PAGES + 1), /at most 2000 pages/],
      ['20,000 pages', manyPagesPdf(20_000), /at most 2000 pages/],
      ['a page one point wider than 200 inches', pageSizePdf(MAX_PAGE_EDGE_POINTS + 1, 792), /at most 14400 points/],
      ['a page of 10 million points', pageSizePdf(612, 10_000_000), /at most 14400 points/],
      ['more objects than the bound', manyObjectsPdf(MAX_DOCUMENT_OBJECTS), /at most 50000 objects/],
    ];
    for (const [label, bytes, problem] of cases) assert.match(await verdict(bytes), problem, label);
  });

  it('read the nesting of objects that arrive inside an object stream, which no scan of the bytes sees', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    let deep: unknown = 1;
    for (let i = 0; i < MAX_DOCUMENT_NESTING + 5; i++) deep = [deep];
    page.node.set(PDFName.of('Deep'), doc.context.obj(deep as never));
    const bytes = await doc.save({ useObjectStreams: true });
    assert.doesNotMatch(Buffer.from(bytes).toString('latin1'), /\[\[\[/);
    assert.match(await verdict(bytes), /nest arrays and dictionaries/);
  });

  it('refuse object streams behind another filter than Flate (a chain of filters multiplies what they inflate to), however the filter is written', async () => {
    const bomb = objectStreamBombPdf(1000).toString('latin1');
    const flateTwice = bomb.replace('/Filter /FlateDecode', '/Filter [/FlateDecode /FlateDecode]');
    const lzw = bomb.replace('/Filter /FlateDecode', '/DecodeParms << /EarlyChange 1 >> /Filter /LZWDecode');
    for (const pdf of [flateTwice, lzw]) assert.match(await verdict(Buffer.from(pdf, 'latin1')), /FlateDecode alone/);
  });

  it('refuse a bomb whose stream the parser finds however it is written: a comment before `stream`, the filter behind a reference', async () => {
    const bomb = objectStreamBombPdf(200_000_000).toString('latin1');
    const commented = bomb.replace('>>\nstream', '>> % a comment\nstream');
    assert.match(await verdict(Buffer.from(commented, 'latin1')), /inflate to at most 32 MB/);
    // The filter as a reference to an object read before the stream: `/Filter 5 0 R`, object 5 being /FlateDecode.
    const referenced = bomb.replace('/Filter /FlateDecode', '/Filter 3 0 R').replace('3 0 obj', '9 0 obj /FlateDecode endobj\n3 0 obj').replace('/Filter 3 0 R', '/Filter 9 0 R');
    assert.match(await verdict(Buffer.from(referenced, 'latin1')), /inflate to at most 32 MB/);
  });

  it('refuse a cross-reference stream declaring a billion entries (pdf-lib loops over each)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const pdf = Buffer.from(await doc.save({ useObjectStreams: true })).toString('latin1');
    const huge = pdf.replace(/\/Type \/XRef([^>]*?)\/Size \d+/, (_m, between: string) => `/Type /XRef${between}/Size 1000000000`).replace(/\/Index \[[^\]]*\]/, '/Index [0 1000000000]');
    assert.notEqual(huge, pdf);
    assert.match(await verdict(Buffer.from(huge, 'latin1')), /at most 1000000 entries/);
  });
});

describe('pdf input bounds on junk', () => {
  // pdf-lib's parser tries to read an object header at every printable byte between objects, each miss an
  // exception: 5 MB of such bytes took it 26–45 s. The timeout is what a return of that would hit.
  for (const unit of ['(', '<<', '>>stream\n', 'x ']) {
    it(`refuse 5 MB of ${JSON.stringify(unit)} after a header at once, as bytes outside any object`, { timeout: 15_000 }, async () => {
      const junk = Buffer.from(`%PDF-1.7\n${unit.repeat(Math.floor((5 * 1024 * 1024) / unit.length))}`, 'latin1');
      assert.match(await verdict(junk), /outside any object/);
    });
  }

  it('accept a file with a little junk between its objects, as pdf-lib does', async () => {
    const bytes = onePagePdf().toString('latin1').replace('2 0 obj', `${'junk '.repeat(100)}\n2 0 obj`);
    assert.equal(await verdict(Buffer.from(bytes, 'latin1')), 'ok');
  });
});

describe('pdf input bounds on damaged files', () => {
  it('answer pages or a problem, and never reject, for any truncation or byte changes of a valid file', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('Damaged');
    const originals = [Buffer.from(await doc.save({ useObjectStreams: true })), onePagePdf(), objectStreamBombPdf(10_000)];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...originals),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.option(fc.nat()),
        async (original, changes, cut) => {
          const bytes = Buffer.from(original);
          for (const [at, value] of changes) bytes[at % bytes.length] = value;
          const read = await readPdfInput(cut == null ? bytes : bytes.subarray(0, cut % bytes.length));
          assert.ok('pages' in read || typeof read.problem === 'string');
        },
      ),
      { numRuns: 300 },
    );
  });
});
