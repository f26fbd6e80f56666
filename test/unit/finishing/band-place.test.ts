/**
 * Where a running header or footer lands on each page of the finished
 * document: along the edge the reader shows as top or bottom, across the
 * page's whole shown width, inside its crop box, on every page its own size
 * (a merge of A4 and landscape Letter parts), whatever the page's /Rotate.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFArray, PDFDocument, PDFName, PDFNumber } from '@cantoo/pdf-lib';
import { bandPlace } from '../../../lib/finishing/steps/bands/bands.js';

type Crop = { x: number; y: number; w: number; h: number };

/** A user-space point as the reader shows it (u right, v up from the shown page's lower left), the page turned clockwise by `rotate`. */
function shown([px, py]: [number, number], { x, y, w, h }: Crop, rotate: number): [number, number] {
  if (rotate === 90) return [py - y, x + w - px];
  if (rotate === 180) return [x + w - px, y + h - py];
  if (rotate === 270) return [y + h - py, px - x];
  return [px - x, py - y];
}

/** The band's corners in user space: its box turned counter-clockwise by its rotation about its lower-left corner. */
function corners(box: { x: number; y: number; width: number; height: number; rotate: number }): Array<[number, number]> {
  const radians = (box.rotate * Math.PI) / 180;
  const [c, s] = [Math.round(Math.cos(radians)), Math.round(Math.sin(radians))];
  return [
    [0, 0],
    [box.width, 0],
    [0, box.height],
    [box.width, box.height],
  ].map(([a, b]) => [box.x + a! * c - b! * s, box.y + a! * s + b! * c]);
}

async function pageWith(crop: Crop, rotate: number) {
  const doc = await PDFDocument.create();
  const page = doc.addPage([600, 800]);
  page.node.set(PDFName.of('CropBox'), PDFArray.withContext(doc.context));
  const box = page.node.lookup(PDFName.of('CropBox'), PDFArray);
  for (const n of [crop.x, crop.y, crop.x + crop.w, crop.y + crop.h]) box.push(PDFNumber.of(n));
  page.node.set(PDFName.of('Rotate'), PDFNumber.of(rotate));
  return page;
}

describe('a band on a page as it is shown', () => {
  const crop: Crop = { x: 30, y: 50, w: 500, h: 700 };

  for (const rotate of [0, 90, 180, 270]) {
    for (const top of [false, true]) {
      it(`lies along the shown ${top ? 'top' : 'bottom'} of a cropped page turned ${rotate}°, across its shown width`, async () => {
        // Prepare
        const page = await pageWith(crop, rotate);
        const shownWidth = rotate % 180 === 0 ? crop.w : crop.h;
        const shownHeight = rotate % 180 === 0 ? crop.h : crop.w;

        // Act
        const box = bandPlace(page, 40, top);

        // Assess: the band's corners, as the reader shows them, span the shown width at the right edge.
        const points = corners(box).map((point) => shown(point, crop, rotate));
        const us = points.map(([u]) => Math.round(u));
        const vs = points.map(([, v]) => Math.round(v));
        assert.deepEqual([Math.min(...us), Math.max(...us)], [0, shownWidth]);
        assert.deepEqual([Math.min(...vs), Math.max(...vs)], top ? [shownHeight - 40, shownHeight] : [0, 40]);
        assert.equal(box.rotate, rotate, 'turned with the page, so it reads upright');
      });
    }
  }

  it('takes each page\'s own size: a merge of a portrait A4 and a landscape Letter page', async () => {
    // Prepare
    const doc = await PDFDocument.create();
    const a4 = doc.addPage([595.28, 841.89]);
    const letter = doc.addPage([792, 612]);

    // Act
    const [onA4, onLetter] = [bandPlace(a4, 30, false), bandPlace(letter, 30, true)];

    // Assess
    assert.equal(Math.round(onA4.width), 595);
    assert.deepEqual([onLetter.width, onLetter.y], [792, 612 - 30]);
  });
});
