import { OptionError } from '../../../pdf/errors.js';
import { degrees, PDFArray, type PDFDocument, type PDFEmbeddedPage, type PDFImage, type PDFPage } from '@cantoo/pdf-lib';
import { selectPages } from '../../../validation/page-ranges.js';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import type { StampPlan } from '../../pipeline/finishing-plan.js';
import { cropBox, ensureMediaBox, pageRotation } from '../../../pdf/page-box.js';
import { openPdf } from '../../pipeline/pdf-document.js';

/** What a text watermark looks like before it is placed: the fields that change its drawing. */
/** A watermark text; `fontFamily` is asked for first, the layer's sans-serif draws what it lacks. */
export type WatermarkText = { text: string; fontSize: number; color: string; fontFamily?: string };

/**
 * Draws a watermark text as a one-page PDF whose page is the text's box.
 * The service prints it with its own Chromium (see watermark-text.ts), so the
 * text is shaped with the layer's fonts in any script and stays real text.
 */
export type TextDrawer = (text: WatermarkText) => Promise<Uint8Array>;

/** Distance of a corner or edge anchor from the page's edge, in points (a quarter inch). */
const EDGE_MARGIN = 18;
/** Images are drawn at 96 dpi, the CSS pixel the rest of the API measures in. */
const POINTS_PER_PIXEL = 0.75;

type Stamp = { draw: (page: PDFPage, at: Placement) => void; width: number; height: number };
type Placement = { x: number; y: number; width: number; height: number; rotation: number; opacity: number };

/**
 * The `stamp` step: draws the watermark on the selected pages (after
 * assembly, so page numbers count the merged document), over or under the
 * content, with the requested opacity and rotation, at one of nine anchors.
 * An edit of the open document: it shares the parse and the save with the
 * archive, attach and protect steps after it.
 */
export function stampStep(watermark: StampPlan, drawText: TextDrawer): DocumentEdit {
  return { edit: (document, budget) => stamp(document, watermark, drawText, budget) };
}

/**
 * Draws the watermark on the selected pages of `document`, as a reader shows
 * each page: placed and fitted within its crop box, turned with its /Rotate
 * so that it stands as asked on the screen (a landscape page stored as a
 * portrait one turned 90° gets its top-left stamp at the top left it shows).
 */
async function stamp(document: PDFDocument, watermark: StampPlan, drawText: TextDrawer, budget: DocumentBudget): Promise<void> {
  const { pages, beyond } = selectPages(watermark.pages, document.getPageCount());
  if (beyond) throw new OptionError({ 'watermark.pages': 'The document has fewer pages than the range asks for' });
  const mark = await prepareStamp(document, watermark.mark, drawText);
  const { rotation, opacity, position } = watermark;
  const under = watermark.layer === 'under';
  for (const index of pages) {
    budget.check();
    const page = document.getPage(index);
    // pdf-lib's drawing reads the page's /MediaBox: a page without a usable one gets the US Letter readers show it on.
    ensureMediaBox(page);
    const crop = cropBox(page);
    const turn = pageRotation(page);
    const shown = turn % 180 === 0 ? { x: 0, y: 0, width: crop.width, height: crop.height } : { x: 0, y: 0, width: crop.height, height: crop.width };
    // A stamp larger than the page shrinks to fit inside its margins.
    const fit = Math.min(1, (shown.width - 2 * EDGE_MARGIN) / mark.width, (shown.height - 2 * EDGE_MARGIN) / mark.height);
    const width = mark.width * fit;
    const height = mark.height * fit;
    const corner = shownToPage(placeAt(position, shown, width, height, rotation), crop, turn);
    isolatePageContent(page);
    // The page turns clockwise by /Rotate as it is shown: drawn turned the other way by as much, the stamp stands as asked.
    mark.draw(page, { x: corner.x, y: corner.y, width, height, rotation: rotation + turn, opacity });
    if (under) moveLastContentFirst(page);
  }
}

async function prepareStamp(document: PDFDocument, mark: StampPlan['mark'], drawText: TextDrawer): Promise<Stamp> {
  if ('image' in mark) {
    const { kind, bytes } = mark.image;
    let image: PDFImage;
    try {
      image = kind === 'png' ? await document.embedPng(bytes) : await document.embedJpg(bytes);
    } catch (error) {
      throw new OptionError({ 'watermark.image': 'The image could not be read' }, { cause: error });
    }
    return {
      width: image.width * POINTS_PER_PIXEL,
      height: image.height * POINTS_PER_PIXEL,
      draw: (page, at) => page.drawImage(image, { x: at.x, y: at.y, width: at.width, height: at.height, rotate: degrees(at.rotation), opacity: at.opacity }),
    };
  }
  const textPdf = await openPdf(await drawText(mark), 'stamp');
  const [embedded] = (await document.embedPdf(textPdf, [0])) as [PDFEmbeddedPage];
  return {
    width: embedded.width,
    height: embedded.height,
    draw: (page, at) => page.drawPage(embedded, { x: at.x, y: at.y, width: at.width, height: at.height, rotate: degrees(at.rotation), opacity: at.opacity }),
  };
}

type Box = { x: number; y: number; width: number; height: number };

/**
 * A point of the page as a reader shows it (origin at the shown lower-left
 * corner of the crop box, the page turned clockwise by `turn`) in the page's
 * default user space.
 */
export function shownToPage(point: { x: number; y: number }, crop: Box, turn: 0 | 90 | 180 | 270): { x: number; y: number } {
  const { x, y } = point;
  if (turn === 90) return { x: crop.x + crop.width - y, y: crop.y + x };
  if (turn === 180) return { x: crop.x + crop.width - x, y: crop.y + crop.height - y };
  if (turn === 270) return { x: crop.x + y, y: crop.y + crop.height - x };
  return { x: crop.x + x, y: crop.y + y };
}

/**
 * Where the unrotated stamp's lower-left corner goes so that the stamp,
 * rotated about that corner (as PDF drawing rotates), has its bounding box's
 * centre at the anchor: the page centre, or an edge or corner less the margin.
 */
export function placeAt(position: string, page: Box, width: number, height: number, rotation: number): { x: number; y: number } {
  const angle = (rotation * Math.PI) / 180;
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const halfW = (Math.abs(width * cos) + Math.abs(height * sin)) / 2;
  const halfH = (Math.abs(width * sin) + Math.abs(height * cos)) / 2;
  const horizontal = /left/i.test(position) ? 'left' : /right/i.test(position) ? 'right' : 'center';
  const vertical = /top/i.test(position) ? 'top' : /bottom/i.test(position) ? 'bottom' : 'center';
  const cx =
    horizontal === 'left' ? page.x + EDGE_MARGIN + halfW : horizontal === 'right' ? page.x + page.width - EDGE_MARGIN - halfW : page.x + page.width / 2;
  const cy =
    vertical === 'bottom' ? page.y + EDGE_MARGIN + halfH : vertical === 'top' ? page.y + page.height - EDGE_MARGIN - halfH : page.y + page.height / 2;
  // The centre of the stamp, rotated about its corner, sits at corner + R·(w/2, h/2).
  return { x: cx - (width / 2) * cos + (height / 2) * sin, y: cy - (width / 2) * sin - (height / 2) * cos };
}

/**
 * Wraps the page's own content in q…Q, so whatever graphics state it leaves
 * (Chromium's content flips the y axis with a `cm`) cannot bend the stamp
 * drawn after it. pdf-lib appends its drawings without that guard.
 */
export function isolatePageContent(page: PDFPage): void {
  page.node.normalize();
  const { context } = page.doc;
  page.node.wrapContentStreams(context.register(context.stream('q')), context.register(context.stream('Q')));
}

/**
 * Puts the content stream just drawn (pdf-lib appends it, and wraps what was
 * there in q…Q) first, so that the page's own content paints over it.
 */
function moveLastContentFirst(page: PDFPage): void {
  const contents = page.node.Contents();
  if (!(contents instanceof PDFArray) || contents.size() < 2) return;
  const last = contents.get(contents.size() - 1);
  contents.remove(contents.size() - 1);
  contents.insert(0, last);
}
