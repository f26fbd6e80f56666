import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFPage } from '@cantoo/pdf-lib';
import { PNG } from 'pngjs';
import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import type { StampPlan } from '../../../lib/finishing/pipeline/finishing-plan.js';
import { stampStep } from '../../../lib/finishing/steps/stamp/watermark.js';

/** A 96 × 48 px PNG: a 72 × 36 pt stamp. */
function stampPng(): Uint8Array {
  const png = new PNG({ width: 96, height: 48 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

const plan = (position: StampPlan['position']): StampPlan => ({ mark: { image: { kind: 'png', bytes: stampPng() } }, opacity: 1, rotation: 0, position, layer: 'over', pages: '' });

const noText = () => Promise.reject(new Error('no text here'));

type Matrix = [number, number, number, number, number, number];

/** Where the unit square of the image drawn by the first page's last content stream lands, in default user space (its corners (0,0), (1,0), (0,1)), once saved. */
async function drawnCorners(doc: PDFDocument): Promise<Array<[number, number]>> {
  const page: PDFPage = (await PDFDocument.load(await doc.save({ useObjectStreams: false }))).getPage(0);
  const contents = page.node.Contents() as PDFArray;
  const last = page.doc.context.lookup(contents.get(contents.size() - 1)) as PDFRawStream;
  const text = Buffer.from(decodePDFRawStream(last).decode()).toString('latin1');
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  for (const [, ...values] of text.matchAll(/(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) cm/g)) {
    const [a, b, c, d, e, f] = values.map(Number) as Matrix;
    ctm = [a * ctm[0] + b * ctm[2], a * ctm[1] + b * ctm[3], c * ctm[0] + d * ctm[2], c * ctm[1] + d * ctm[3], e * ctm[0] + f * ctm[2] + ctm[4], e * ctm[1] + f * ctm[3] + ctm[5]];
  }
  const at = (x: number, y: number): [number, number] => [x * ctm[0] + y * ctm[2] + ctm[4], x * ctm[1] + y * ctm[3] + ctm[5]];
  return [at(0, 0), at(1, 0), at(0, 1)];
}

const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 0.01, `${what}: ${actual} is not ${expected}`);

describe('stampStep', () => {
  it('places a top-left stamp at the top left of the crop box as a page turned 90° is shown, standing upright', async () => {
    // Prepare: a 400 × 600 pt crop box inside the media box, shown turned: 600 wide, 400 high
    const doc = await PDFDocument.create({ updateMetadata: false });
    const page = doc.addPage([612, 792]);
    page.node.set(PDFName.of('CropBox'), doc.context.obj([100, 100, 500, 700]));
    page.node.set(PDFName.of('Rotate'), doc.context.obj(90));

    // Act
    await stampStep(plan('topLeft'), noText).edit(doc, unboundedBudget());

    // Assess: in shown coordinates (x right, y up from the shown lower-left), shown x = user y - 100, shown y = 500 - user x
    const shown = (await drawnCorners(doc)).map(([x, y]) => [y - 100, 500 - x] as [number, number]);
    const [origin, right, up] = shown as [[number, number], [number, number], [number, number]];
    close(origin[0], 18, 'left edge');
    close(origin[1], 400 - 18 - 36, 'bottom edge');
    close(right[0] - origin[0], 72, 'its width runs rightwards as shown');
    close(right[1] - origin[1], 0, 'not slanted');
    close(up[1] - origin[1], 36, 'its height runs upwards as shown');
  });

  it('stamps a page without /MediaBox at the centre of the US Letter page readers show', async () => {
    // Prepare
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([300, 300]).node.delete(PDFName.of('MediaBox'));
    doc.catalog.lookup(PDFName.of('Pages'), PDFDict).delete(PDFName.of('MediaBox'));

    // Act
    await stampStep(plan('center'), noText).edit(doc, unboundedBudget());

    // Assess
    const [origin, right, up] = (await drawnCorners(doc)) as [[number, number], [number, number], [number, number]];
    close((origin[0] + right[0]) / 2, 306, 'horizontal centre');
    close((origin[1] + up[1]) / 2, 396, 'vertical centre');
  });
});
