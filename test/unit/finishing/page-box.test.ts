import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { cropBox, ensureMediaBox, LETTER, mediaBox, pageRotation, shownSize } from '../../../lib/pdf/page-box.js';

/** A one-page document whose page dictionary gets `entries` (a name to a PDF object literal) after its MediaBox is removed. */
const pageWith = async (entries: Record<string, unknown>) => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 400]);
  page.node.delete(PDFName.of('MediaBox'));
  for (const [key, value] of Object.entries(entries)) page.node.set(PDFName.of(key), doc.context.obj(value as never));
  return page;
};

describe('page boxes', () => {
  it('shows a page without a MediaBox on US Letter, where pdf-lib throws', async () => {
    // Prepare
    const page = await pageWith({});

    // Act, Assess
    assert.throws(() => page.getMediaBox());
    assert.deepEqual(mediaBox(page), LETTER);
    assert.deepEqual(cropBox(page), LETTER);
  });

  it('reads a box given upper-right first, and refuses one that is not four numbers', async () => {
    assert.deepEqual(mediaBox(await pageWith({ MediaBox: [300, 400, 0, 0] })), { x: 0, y: 0, width: 300, height: 400 });
    assert.deepEqual(mediaBox(await pageWith({ MediaBox: [0, 0, 300] })), LETTER);
    assert.deepEqual(mediaBox(await pageWith({ MediaBox: [0, 0, 0, 0] })), LETTER);
  });

  it('clips the crop box to the media box and turns the shown size with /Rotate', async () => {
    // Prepare
    const page = await pageWith({ MediaBox: [0, 0, 300, 400], CropBox: [10, 20, 500, 300], Rotate: -270 });

    // Act, Assess
    assert.deepEqual(cropBox(page), { x: 10, y: 20, width: 290, height: 280 });
    assert.equal(pageRotation(page), 90);
    assert.deepEqual(shownSize(page), { width: 280, height: 290 });
  });

  it('counts a /Rotate that is no multiple of 90 as none', async () => {
    assert.equal(pageRotation(await pageWith({ MediaBox: [0, 0, 10, 10], Rotate: 45 })), 0);
  });

  it('gives a page without a MediaBox one that pdf-lib can use', async () => {
    // Prepare
    const page = await pageWith({});

    // Act
    ensureMediaBox(page);

    // Assess
    assert.deepEqual(page.getMediaBox(), LETTER);
  });
});
