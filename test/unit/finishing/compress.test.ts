import { DocumentBudgetError, documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef, type PDFStream } from '@cantoo/pdf-lib';
import { PNG } from 'pngjs';
import { compressStep, withoutPrivateXmp } from '../../../lib/finishing/steps/compress/compress.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { decodeJpeg } from '../../../lib/finishing/images/jpeg-codec.js';
import { jpegHeader } from '../../helpers/hostile-images.js';
import { qpdf } from '../../helpers/pdf-tools.js';

const DEFAULTS = { imageQuality: 80, maxImageDpi: 150, grayscale: false };

/** A PNG of seeded noise over a gradient: a photo's weight, the same on every run. */
function photoPng(width: number, height: number, alpha: boolean, seed = 1): Buffer {
  const png = new PNG({ width, height, colorType: alpha ? 6 : 2 });
  let s = seed;
  const random = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      const n = (random() - 0.5) * 60;
      png.data[i] = Math.max(0, Math.min(255, (x / width) * 255 + n));
      png.data[i + 1] = Math.max(0, Math.min(255, (y / height) * 255 + n));
      png.data[i + 2] = Math.max(0, Math.min(255, 128 + n));
      png.data[i + 3] = alpha ? Math.round((x / width) * 255) : 255;
    }
  }
  return PNG.sync.write(png, { colorType: alpha ? 6 : 2 });
}

type ImageFacts = { ref: PDFRef; width: number; height: number; filter: string; colorSpace: string; smask?: PDFRef; bytes: number };

function imagesOf(doc: PDFDocument): ImageFacts[] {
  const images: ImageFacts[] = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    const stream = object as PDFStream;
    if (!(object instanceof PDFRawStream) || stream.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    const number = (key: string) => (stream.dict.get(PDFName.of(key)) as PDFNumber).asNumber();
    const smask = stream.dict.get(PDFName.of('SMask'));
    images.push({
      ref,
      width: number('Width'),
      height: number('Height'),
      filter: String(stream.dict.get(PDFName.of('Filter')) ?? 'none'),
      colorSpace: String(stream.dict.get(PDFName.of('ColorSpace'))),
      ...(smask instanceof PDFRef ? { smask } : {}),
      bytes: object.getContents().length,
    });
  }
  return images;
}

/**
 * A page with: a 1200×800 photo drawn 2 in wide (twice, embedded twice: two
 * identical streams), a transparent 1000×1000 PNG drawn 1 in wide, a
 * 100×100 image drawn 2 in wide (50 dpi), a CMYK image, a photo drawn inside
 * a form XObject scaled by its /Matrix, and an object nothing refers to.
 */
async function sampleDocument(): Promise<{ pdf: Uint8Array; cmykBytes: Uint8Array; smallBytes: number }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle('Catalogue');
  const page = doc.addPage([612, 792]);
  const photo = photoPng(1200, 800, false);
  const first = await doc.embedPng(photo);
  const second = await doc.embedPng(photo);
  page.drawImage(first, { x: 36, y: 600, width: 144, height: 96 });
  page.drawImage(second, { x: 200, y: 600, width: 144, height: 96 });
  const transparent = await doc.embedPng(photoPng(1000, 1000, true, 2));
  page.drawImage(transparent, { x: 36, y: 400, width: 72, height: 72 });
  const small = await doc.embedPng(photoPng(100, 100, false, 3));
  page.drawImage(small, { x: 200, y: 400, width: 144, height: 144 });

  const cmykBytes = new Uint8Array(600 * 600 * 4).map((_, i) => (i * 7) % 251);
  const cmyk = doc.context.register(doc.context.flateStream(cmykBytes, { Type: 'XObject', Subtype: 'Image', Width: 600, Height: 600, ColorSpace: 'DeviceCMYK', BitsPerComponent: 8 }));
  const inForm = await doc.embedPng(photoPng(1000, 1000, false, 4));
  const form = doc.context.register(
    doc.context.flateStream(Buffer.from('q 200 0 0 200 0 0 cm /Inner Do Q'), {
      Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 200, 200], Matrix: [0.5, 0, 0, 0.5, 0, 0],
      Resources: { XObject: { Inner: inForm.ref } },
    }),
  );
  const xobjects = page.node.normalizedEntries().XObject;
  xobjects.set(PDFName.of('Cmyk'), cmyk);
  xobjects.set(PDFName.of('Form1'), form);
  const extra = doc.context.register(doc.context.flateStream(Buffer.from('q 72 0 0 72 400 100 cm /Cmyk Do Q q 1 0 0 1 400 300 cm /Form1 Do Q')));
  const contents = page.node.Contents();
  page.node.set(PDFName.of('Contents'), doc.context.obj([...(contents && 'asArray' in contents ? (contents as unknown as { asArray(): PDFRef[] }).asArray() : [page.node.get(PDFName.of('Contents')) as PDFRef]), extra]));
  doc.context.register(doc.context.flateStream(photo, { Note: 'unreferenced' }));
  const saved = await doc.save({ useObjectStreams: false });
  const smallBytes = ((await PDFDocument.load(saved)).context.lookup(small.ref) as PDFRawStream).getContents().length;
  return { pdf: saved, cmykBytes, smallBytes };
}

describe('compressStep', () => {
  it('downsamples images drawn larger than needed to 150 dpi at their drawn size, as JPEG when opaque', async () => {
    // Prepare
    const { pdf } = await sampleDocument();

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess
    const doc = await PDFDocument.load(out);
    const images = imagesOf(doc);
    // 144 × 96 points at 150 dpi: 300 × 200 pixels, JPEG; stored once for both draws.
    const photos = images.filter((image) => image.width === 300 && image.height === 200);
    assert.equal(photos.length, 1, JSON.stringify(images));
    assert.equal(photos[0]?.filter, '/DCTDecode');
    // Chroma at half resolution both ways (4:2:0): the luma component's sampling factors in the frame header are 2×2.
    const jpeg = Buffer.from((doc.context.lookup(photos[0]?.ref as PDFRef) as PDFRawStream).getContents());
    const frame = [0xc0, 0xc1, 0xc2].map((marker) => jpeg.indexOf(Buffer.from([0xff, marker]))).find((at) => at > 0) as number;
    assert.equal(jpeg[frame + 11], 0x22, `luma sampling ${jpeg[frame + 11]?.toString(16)}`);
    // Inside the form: 200 points × the form's 0.5 = 100 points, 209 pixels at 150 dpi.
    assert.ok(images.some((image) => image.width === 209 && image.height === 209 && image.filter === '/DCTDecode'), JSON.stringify(images));
    assert.ok(out.length < pdf.length / 5, `${out.length} against ${pdf.length}`);
    assert.equal(qpdf(out, ['--check']).status, 0);
  });

  it('keeps a transparent image and its soft mask lossless, both at the downsampled size', async () => {
    const { pdf } = await sampleDocument();

    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    const doc = await PDFDocument.load(out);
    const images = imagesOf(doc);
    const withMask = images.find((image) => image.smask);
    assert.ok(withMask, 'the transparent image keeps its soft mask');
    assert.deepEqual([withMask.width, withMask.height, withMask.filter], [150, 150, '/FlateDecode']);
    const mask = images.find((image) => image.ref === withMask.smask);
    assert.deepEqual([mask?.width, mask?.height, mask?.filter], [150, 150, '/FlateDecode']);
  });

  it('never enlarges', async () => {
    const { pdf, smallBytes } = await sampleDocument();

    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    const images = imagesOf(await PDFDocument.load(out));
    const small = images.find((image) => image.width === 100);
    assert.deepEqual([small?.height, small?.filter, small?.bytes], [100, '/FlateDecode', smallBytes]);
  });

  for (const inverted of [false, true]) {
    it(`turns CMYK images RGB (as Ghostscript's /ebook), even at their size${inverted ? ', an inverted /Decode undone' : ''}`, async () => {
      // Prepare: 64×64 CMYK drawn at 64 points (no downsampling), top half cyan, bottom half black ink, with grain (as a photo).
      const doc = await PDFDocument.create({ updateMetadata: false });
      const page = doc.addPage([200, 200]);
      let seed = 5;
      const grain = () => Math.floor(((seed = (seed * 1664525 + 1013904223) >>> 0) / 4294967296) * 40);
      const ink = new Uint8Array(64 * 64 * 4).map((_, i) => {
        const [pixel, channel] = [Math.floor(i / 4), i % 4];
        const value = (pixel < 64 * 32 ? channel === 0 : channel === 3) ? 255 - grain() : grain();
        return inverted ? 255 - value : value;
      });
      const image = doc.context.register(doc.context.flateStream(ink, { Type: 'XObject', Subtype: 'Image', Width: 64, Height: 64, ColorSpace: 'DeviceCMYK', BitsPerComponent: 8, ...(inverted ? { Decode: [1, 0, 1, 0, 1, 0, 1, 0] } : {}) }));
      page.node.normalizedEntries().XObject.set(PDFName.of('Ink'), image);
      page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(Buffer.from('q 64 0 0 64 10 10 cm /Ink Do Q'))));
      const pdf = await doc.save();

      // Act
      const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

      // Assess: an RGB JPEG of the same size, cyan above, black below.
      const result = await PDFDocument.load(out);
      const [rgb] = imagesOf(result);
      assert.deepEqual([rgb?.colorSpace, rgb?.filter, rgb?.width, rgb?.height], ['/DeviceRGB', '/DCTDecode', 64, 64]);
      const stream = result.context.lookup(rgb?.ref as PDFRef) as PDFRawStream;
      assert.equal(stream.dict.get(PDFName.of('Decode')), undefined);
      const { data } = await decodeJpeg(stream.getContents(), 3);
      const at = (x: number, y: number) => [...data.subarray((y * 64 + x) * 3, (y * 64 + x) * 3 + 3)];
      const [r, g, b] = at(32, 8) as [number, number, number];
      assert.ok(r < 90 && g > 110 && b > 170, `cyan: ${at(32, 8)}`);
      assert.ok(at(32, 56).every((v) => v < 80), `black: ${at(32, 56)}`);
    });
  }

  for (const components of [4, 3]) {
    it(`keeps a ${components === 4 ? 'CMYK' : 'RGB'} JPEG whose own frame declares another size than its image dictionary as it is`, async () => {
      // Prepare: a 10 × 10 image whose JPEG frame says 65,535 × 65,535 (a decoder would allocate gigabytes).
      const doc = await PDFDocument.create({ updateMetadata: false });
      const page = doc.addPage([200, 200]);
      const jpeg = Buffer.concat([jpegHeader(65_535, 65_535, components), Buffer.from([0xff, 0xd9])]);
      const image = doc.context.register(
        doc.context.stream(jpeg, { Type: 'XObject', Subtype: 'Image', Width: 10, Height: 10, ColorSpace: components === 4 ? 'DeviceCMYK' : 'DeviceRGB', BitsPerComponent: 8, Filter: 'DCTDecode' }),
      );
      page.node.normalizedEntries().XObject.set(PDFName.of('Bomb'), image);
      page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(Buffer.from('q 100 0 0 100 10 10 cm /Bomb Do Q'))));

      // Act
      const out = await finishPdf(await doc.save(), { compress: compressStep(DEFAULTS) }, unboundedBudget());

      // Assess: the same bytes, as they were.
      const [kept] = imagesOf(await PDFDocument.load(out));
      const stream = (await PDFDocument.load(out)).context.lookup(kept?.ref as PDFRef) as PDFRawStream;
      assert.deepEqual(Buffer.from(stream.getContents()), jpeg);
    });
  }

  it('keeps CMYK images CMYK where the output intent is a CMYK profile', async () => {
    const { pdf } = await sampleDocument();
    const doc = await PDFDocument.load(pdf);
    const profile = doc.context.register(doc.context.flateStream(new Uint8Array(128), { N: 4 }));
    doc.catalog.set(PDFName.of('OutputIntents'), doc.context.obj([{ Type: 'OutputIntent', S: 'GTS_PDFX', OutputConditionIdentifier: 'FOGRA39', DestOutputProfile: profile }]));

    const out = await finishPdf(await doc.save(), { compress: compressStep(DEFAULTS) }, unboundedBudget());

    const cmyk = imagesOf(await PDFDocument.load(out)).find((image) => image.colorSpace === '/DeviceCMYK');
    assert.deepEqual([cmyk?.width, cmyk?.height, cmyk?.filter], [600, 600, '/FlateDecode']);
  });

  it('drops objects nothing refers to and writes object streams', async () => {
    const { pdf } = await sampleDocument();

    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    const doc = await PDFDocument.load(out);
    const orphans = [...doc.context.enumerateIndirectObjects()].filter(([, object]) => object instanceof PDFRawStream && object.dict.has(PDFName.of('Note')));
    assert.equal(orphans.length, 0);
    assert.ok(Buffer.from(out).toString('latin1').includes('/Type /ObjStm'), 'object streams');
  });

  it('turns colour images grey with grayscale', async () => {
    const { pdf } = await sampleDocument();

    const out = await finishPdf(pdf, { compress: compressStep({ ...DEFAULTS, grayscale: true }) }, unboundedBudget());

    const images = imagesOf(await PDFDocument.load(out));
    const photo = images.find((image) => image.width === 300);
    assert.equal(photo?.colorSpace, '/DeviceGray');
    const small = images.find((image) => image.width === 100);
    assert.equal(small?.colorSpace, '/DeviceGray', 'grey even where no downsampling was needed');
  });

  it('drops private application data and thumbnails, Flate-compresses unfiltered streams, keeps the rest of the XMP', async () => {
    // Prepare: what an Illustrator export carries beside the page.
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([200, 200]);
    page.drawText('Hello');
    const xmp = `<?xpacket begin=""?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><dc:title>Kept title</dc:title><xmp:Thumbnails><rdf:Alt><rdf:li>${'A'.repeat(20_000)}</rdf:li></rdf:Alt></xmp:Thumbnails><xmpMM:History xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"><rdf:Seq><rdf:li>${'saved '.repeat(3000)}</rdf:li></rdf:Seq></xmpMM:History></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })));
    doc.catalog.set(PDFName.of('PieceInfo'), doc.context.obj({ Illustrator: { Private: doc.context.register(doc.context.stream('x'.repeat(30_000))) } }));
    page.node.set(PDFName.of('PieceInfo'), doc.context.obj({ Illustrator: { LastModified: 'D:2011' } }));
    page.node.set(PDFName.of('Thumb'), doc.context.register(doc.context.stream(new Uint8Array(4000), { Width: 40, Height: 40, ColorSpace: 'DeviceGray', BitsPerComponent: 8 })));
    const unfiltered = doc.context.register(doc.context.stream('BT /F1 12 Tf (Hello) Tj ET\n'.repeat(200)));
    page.node.set(PDFName.of('Contents'), doc.context.obj([page.node.get(PDFName.of('Contents')) as PDFRef, unfiltered]));
    const pdf = await doc.save({ useObjectStreams: false });

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess
    const result = await PDFDocument.load(out);
    assert.equal(result.catalog.get(PDFName.of('PieceInfo')), undefined);
    const resultPage = result.getPage(0).node;
    assert.equal(resultPage.get(PDFName.of('PieceInfo')), undefined);
    assert.equal(resultPage.get(PDFName.of('Thumb')), undefined);
    const content = result.context.lookup(unfiltered) as PDFRawStream;
    assert.equal(content.dict.get(PDFName.of('Filter')), PDFName.of('FlateDecode'));
    const text = qpdf(out, ['--show-object=' + String((result.catalog.get(PDFName.of('Metadata')) as PDFRef).objectNumber), '--filtered-stream-data']).stdout;
    assert.match(text, /<dc:title>Kept title<\/dc:title>/);
    assert.doesNotMatch(text, /Thumbnails|History/);
    assert.ok(out.length < 10_000, `${out.length} bytes`);
  });
});

describe('compressStep within the budget', () => {
  const budgetOf = (totals: Parameters<typeof documentBudget>[0]['totals']) => documentBudget({ at: Date.now() + 600_000, budgetMs: 600_000, totals });

  /** A page drawing `drawn` 400 × 400 photos an inch wide, and `unreachable` more that nothing refers to. */
  async function photos(drawn: number, unreachable: number): Promise<{ pdf: Uint8Array; unreachableRefs: PDFRef[] }> {
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([612, 792]);
    for (let i = 0; i < drawn; i += 1) page.drawImage(await doc.embedPng(photoPng(400, 400, false, 10 + i)), { x: 36 + i * 80, y: 600, width: 72, height: 72 });
    const unreachableRefs: PDFRef[] = [];
    for (let i = 0; i < unreachable; i += 1) {
      const samples = deflateSync(Buffer.alloc(400 * 400 * 3, 40 + i));
      unreachableRefs.push(doc.context.register(PDFRawStream.of(doc.context.obj({ Type: 'XObject', Subtype: 'Image', Width: 400, Height: 400, ColorSpace: 'DeviceRGB', BitsPerComponent: 8, Filter: 'FlateDecode', Length: samples.length }), samples)));
    }
    return { pdf: await doc.save({ useObjectStreams: false }), unreachableRefs };
  }

  it('never decodes an image nothing reaches, and drops it', async () => {
    // Prepare
    const { pdf, unreachableRefs } = await photos(1, 1);
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    const unreachable = doc.context.lookup(unreachableRefs[0] as PDFRef) as PDFRawStream;
    let reads = 0;
    const contents = unreachable.contents;
    Object.defineProperty(unreachable, 'contents', { get: () => ((reads += 1), contents) });

    // Act
    await compressStep(DEFAULTS).edit(doc, unboundedBudget());

    // Assess
    assert.equal(reads, 0, 'its data is never read');
    assert.equal(doc.context.lookup(unreachableRefs[0] as PDFRef), undefined);
    assert.equal(imagesOf(doc).length, 1, 'the drawn image stays');
  });

  it("refuses a document whose images together decode to more than the document's pixels", async () => {
    // Prepare: two 400 × 400 images drawn downsampled (320,000 pixels to decode), 200,000 allowed
    const { pdf } = await photos(2, 0);

    // Act
    const finishing = finishPdf(pdf, { compress: compressStep(DEFAULTS) }, budgetOf({ pixels: 200_000 }));

    // Assess
    await assert.rejects(finishing, (error: unknown) => error instanceof DocumentBudgetError && error.total === 'pixels');
  });

  it('compresses a document whose array holds 300,000 entries and whose text shows 300,000 strings at once', async () => {
    // Prepare: arrays long enough that spreading them as arguments throws RangeError
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([612, 792]);
    const font = doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }));
    page.node.set(PDFName.of('Resources'), doc.context.obj({ Font: { F1: font } }));
    page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(Buffer.from(`BT /F1 12 Tf [${'(a)'.repeat(300_000)}] TJ ET`))));
    doc.catalog.set(PDFName.of('Numbers'), doc.context.obj(Array.from({ length: 300_000 }, (_, i) => i % 100)));
    const pdf = await doc.save({ useObjectStreams: false });

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess
    const after = await PDFDocument.load(out, { updateMetadata: false });
    assert.equal(after.catalog.lookup(PDFName.of('Numbers'), PDFArray).size(), 300_000);
  });

  it('compresses a page that has no /MediaBox, its undrawn image bounded by US Letter', async () => {
    // Prepare: an image only a pattern would draw (no drawn size): the page's size bounds it
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([612, 792]);
    const image = await doc.embedPng(photoPng(2000, 2000, false, 7));
    page.node.set(PDFName.of('Resources'), doc.context.obj({ Pattern: { P: doc.context.register(doc.context.flateStream(Buffer.from('/Im Do'), { PatternType: 1, PaintType: 1, TilingType: 1, BBox: [0, 0, 10, 10], XStep: 10, YStep: 10, Resources: { XObject: { Im: image.ref } } })) } }));
    page.node.delete(PDFName.of('MediaBox'));
    doc.catalog.lookup(PDFName.of('Pages'), PDFDict).delete(PDFName.of('MediaBox'));
    const pdf = await doc.save({ useObjectStreams: false });

    // Act
    const out = await finishPdf(pdf, { compress: compressStep(DEFAULTS) }, unboundedBudget());

    // Assess: 612 × 792 pt at 150 dpi
    const [after] = imagesOf(await PDFDocument.load(out));
    assert.deepEqual([after?.width, after?.height], [1275, 1650]);
  });
});

describe('withoutPrivateXmp', () => {
  /** What the step removed before: a lazy regular expression (quadratic on unclosed tags), for comparison on real packets. */
  const OLD = new RegExp(
    ['xmp:Thumbnails', 'xmpMM:History', 'xmpMM:Manifest', 'xmpMM:Ingredients', 'xmpMM:Pantry', 'photoshop:DocumentAncestors', 'xmpTPg:SwatchGroups', 'xmpTPg:PlateNames']
      .map((element) => `<${element}(?:\\s[^>]*)?(?:/>|>[\\s\\S]*?</${element}>)`)
      .join('|'),
    'g',
  );

  it('removes what the application keeps for itself, as before, and keeps the rest', () => {
    // Prepare: an Illustrator-like packet
    const xmp = [
      '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description rdf:about=""',
      ' xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreatorTool>Illustrator</xmp:CreatorTool>',
      '<xmp:Thumbnails>\n<rdf:Alt><rdf:li rdf:parseType="Resource"><xmpGImg:image>/9j/4AAQ</xmpGImg:image></rdf:li></rdf:Alt>\n</xmp:Thumbnails>',
      '<xmpMM:DocumentID>uuid:1</xmpMM:DocumentID><xmpMM:History rdf:parseType="Resource"><rdf:Seq><rdf:li>saved</rdf:li></rdf:Seq></xmpMM:History>',
      '<xmpMM:Ingredients/><xmpMM:Manifest >\n</xmpMM:Manifest><xmpMM:ManifestX>kept</xmpMM:ManifestX><xmpTPg:PlateNames><rdf:Seq><rdf:li>Cyan</rdf:li></rdf:Seq></xmpTPg:PlateNames>',
      '<photoshop:DocumentAncestors><rdf:Bag><rdf:li>a</rdf:li></rdf:Bag></photoshop:DocumentAncestors><dc:title>Catalogue</dc:title>',
      '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>',
    ].join('');

    // Act
    const trimmed = withoutPrivateXmp(xmp);

    // Assess
    assert.equal(trimmed, xmp.replace(OLD, ''));
    assert.match(trimmed, /<xmpMM:ManifestX>kept<\/xmpMM:ManifestX><dc:title>Catalogue<\/dc:title>/);
    assert.doesNotMatch(trimmed, /Thumbnails|History|Ingredients|PlateNames|DocumentAncestors|Manifest /);
  });

  it('reads a packet of 50,000 unclosed private tags in one pass, leaving it as it is', () => {
    // Prepare: each opening tag never closed (the old expression rescanned the rest of the packet from each one)
    const xmp = `<x:xmpmeta>${'<xmpMM:History><xmp:Thumbnails a="1" '.repeat(50_000)}</x:xmpmeta>`;

    // Act
    const trimmed = withoutPrivateXmp(xmp);

    // Assess
    assert.equal(trimmed, xmp);
  });
});
