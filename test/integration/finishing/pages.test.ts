import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName, PDFNumber, StandardFonts, type PDFRef } from '@cantoo/pdf-lib';
import { ValidationError } from '../../../lib/errors.js';
import { finishPdf } from '../../../lib/finishing/finish-pdf.js';
import { pagesStep } from '../../../lib/finishing/pages.js';
import { pageCountOf, pdfinfo, pdftotextPages, qpdf } from '../../helpers/pdf-tools.js';

/**
 * Five pages, "Page 1" … "Page 5" (page 2 also says SECRET), in a two-level
 * page tree: page 1 under the root, pages 2–5 under a node that gives them
 * their 300×400 size and a rotation of 90 (inherited, not on the pages).
 */
async function nestedFivePages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= 5; n += 1) {
    const page = doc.addPage([300, 400]);
    page.drawText(`Page ${n}`, { x: 40, y: 300, size: 24, font });
    if (n === 2) page.drawText('SECRET', { x: 40, y: 200, size: 24, font });
  }
  const { context } = doc;
  const rootRef = doc.catalog.get(PDFName.of('Pages')) as PDFRef;
  const refs = doc.getPages().map((page) => page.ref);
  const mid = context.obj({ Type: 'Pages', Parent: rootRef, Kids: refs.slice(1), Count: 4, MediaBox: [0, 0, 300, 400], Rotate: 90 });
  const midRef = context.register(mid);
  for (const page of doc.getPages().slice(1)) {
    page.node.set(PDFName.of('Parent'), midRef);
    page.node.delete(PDFName.of('MediaBox'));
  }
  const root = doc.catalog.Pages();
  root.set(PDFName.of('Kids'), context.obj([refs[0] as PDFRef, midRef]));
  root.set(PDFName.of('Count'), PDFNumber.of(5));
  return doc.save({ useObjectStreams: false });
}

/** Each page's rotation and size as pdfinfo reads them. */
function pageFacts(pdf: Uint8Array): Array<{ rot: number; size: string }> {
  const count = pageCountOf(pdf);
  const out = pdfinfo(pdf, ['-f', '1', '-l', String(count)]).stdout;
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4);
    const rot = new RegExp(`^Page ${n} rot:\\s+(\\d+)`, 'm').exec(out)?.[1];
    const size = new RegExp(`^Page ${n} size:\\s+(\\S+ x \\S+)`, 'm').exec(out)?.[1];
    return { rot: Number(rot), size: size ?? '' };
  });
}

const pageTitles = (pdf: Uint8Array) => pdftotextPages(pdf, pageCountOf(pdf)).map((text) => /Page \d/.exec(text)?.[0]);

describe('pagesStep', () => {
  it('keeps the pages pdf.pages names in its order, each with what it inherited, as pdfinfo and pdftotext read them', async () => {
    // Prepare
    const input = await nestedFivePages();
    assert.deepEqual(pageFacts(input).map((page) => page.rot), [0, 90, 90, 90, 90], 'the fixture inherits its rotation');

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '4, 1, 5-' }) });

    // Assess
    assert.deepEqual(pageTitles(out), ['Page 4', 'Page 1', 'Page 5']);
    assert.deepEqual(pageFacts(out), [
      { rot: 90, size: '300 x 400' },
      { rot: 0, size: '300 x 400' },
      { rot: 90, size: '300 x 400' },
    ]);
    const check = qpdf(out, ['--check']);
    assert.equal(check.status, 0, check.stderr);
  });

  it('leaves no trace of a dropped page in the file (its content is gone, not only unlisted)', async () => {
    // Prepare
    const input = await nestedFivePages();
    // pdf-lib writes text as a hex string.
    const secret = `<${Buffer.from('SECRET').toString('hex').toUpperCase()}>`;
    // Every stream in the raw bytes, inflated, reachable or not: qpdf's own rewrite would drop orphans itself.
    const uncompressed = (pdf: Uint8Array) => {
      const raw = Buffer.from(pdf);
      const texts: string[] = [];
      for (let at = raw.indexOf('stream'); at !== -1; at = raw.indexOf('stream', at + 6)) {
        if (raw.subarray(at - 3, at).toString('latin1') === 'end') continue;
        const start = at + (raw[at + 6] === 0x0d ? 8 : 7);
        const end = raw.indexOf('endstream', start);
        if (end === -1) break;
        try {
          texts.push(inflateSync(raw.subarray(start, end)).toString('latin1'));
        } catch {
          texts.push(raw.subarray(start, end).toString('latin1'));
        }
      }
      return texts.join('\n').toUpperCase();
    };
    assert.ok(uncompressed(input).includes(secret), 'the fixture carries the secret on page 2');

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '1, 3-' }) });

    // Assess
    assert.deepEqual(pageTitles(out), ['Page 1', 'Page 3', 'Page 4', 'Page 5']);
    assert.ok(!uncompressed(out).includes(secret), 'page 2 content is no longer in the file');
  });

  it("adds pdf.rotate's angle to each chosen page's own rotation, counting pages in their new order", async () => {
    // Prepare
    const input = await nestedFivePages();

    // Act
    const out = await finishPdf(input, { pages: pagesStep({ order: '3, 1, 2', rotate: { angle: 270, pages: '1-2' } }) });

    // Assess: page 3 inherited 90 (+270 = 0), page 1 had 0 (+270), page 2 keeps its 90.
    assert.deepEqual(pageTitles(out), ['Page 3', 'Page 1', 'Page 2']);
    assert.deepEqual(pageFacts(out).map((page) => page.rot), [0, 270, 90]);
  });

  it('turns every page when rotate names none', async () => {
    const out = await finishPdf(await nestedFivePages(), { pages: pagesStep({ rotate: { angle: 180, pages: '' } }) });
    assert.deepEqual(pageFacts(out).map((page) => page.rot), [180, 270, 270, 270, 270]);
  });

  it('refuses a page past the end with a ValidationError naming pdf.pages (a 400 at the edge)', async () => {
    const input = await nestedFivePages();
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '2, 6' }) }), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.match(error.fields['pdf.pages'] ?? '', /fewer pages/);
      return true;
    });
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '6-' }) }), ValidationError);
  });

  it('refuses rotate pages past the end, counted after the choice, naming pdf.rotate.pages', async () => {
    const input = await nestedFivePages();
    await assert.rejects(finishPdf(input, { pages: pagesStep({ order: '1-2', rotate: { angle: 90, pages: '3' } }) }), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.ok('pdf.rotate.pages' in error.fields);
      return true;
    });
  });
});
