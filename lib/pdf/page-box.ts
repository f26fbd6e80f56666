/**
 * A page's boxes and turn, read so that any PDF has them: pdf-lib's
 * `getMediaBox` throws on a page whose /MediaBox is missing (inherited from
 * nowhere) or not four numbers, which public corpora have, and its boxes keep
 * the corners as written (a box may be given upper-right first). Readers
 * (PDF.js, pdfium, Acrobat) show such a page on US Letter; so do we, and
 * every step that needs a page's size reads it here.
 */
import { PDFArray, PDFName, PDFNumber, type PDFPage } from '@cantoo/pdf-lib';

/** A rectangle in default user space: lower-left corner, then size (never negative). */
export type Box = { x: number; y: number; width: number; height: number };

/** What readers show a page without a usable /MediaBox on. */
export const LETTER: Readonly<Box> = { x: 0, y: 0, width: 612, height: 792 };

/** The box `name` of `page` (inherited as the page tree allows), normalised; undefined when absent or not four finite numbers. */
function readBox(page: PDFPage, name: 'MediaBox' | 'CropBox'): Box | undefined {
  let array: PDFArray | undefined;
  try {
    array = name === 'MediaBox' ? page.node.MediaBox() : page.node.CropBox();
  } catch {
    return undefined;
  }
  if (!(array instanceof PDFArray) || array.size() !== 4) return undefined;
  const values: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    const value = page.doc.context.lookup(array.get(i));
    if (!(value instanceof PDFNumber) || !Number.isFinite(value.asNumber())) return undefined;
    values.push(value.asNumber());
  }
  const [x1, y1, x2, y2] = values as [number, number, number, number];
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

/** The page's media box: as written, or US Letter when it has none a reader could use (missing, malformed, empty). */
export function mediaBox(page: PDFPage): Box {
  const box = readBox(page, 'MediaBox');
  return box && box.width > 0 && box.height > 0 ? box : { ...LETTER };
}

/** The page's crop box (what a reader shows): its /CropBox within the media box, else the media box. */
export function cropBox(page: PDFPage): Box {
  const media = mediaBox(page);
  const crop = readBox(page, 'CropBox');
  if (!crop) return media;
  const x = Math.max(media.x, crop.x);
  const y = Math.max(media.y, crop.y);
  const width = Math.min(media.x + media.width, crop.x + crop.width) - x;
  const height = Math.min(media.y + media.height, crop.y + crop.height) - y;
  // A crop box outside the media box shows nothing; readers fall back to the media box.
  return width > 0 && height > 0 ? { x, y, width, height } : media;
}

/** The page's /Rotate as a reader applies it: 0, 90, 180 or 270 (a value that is no multiple of 90 counts as 0). */
export function pageRotation(page: PDFPage): 0 | 90 | 180 | 270 {
  let value: unknown;
  try {
    value = page.node.Rotate()?.asNumber();
  } catch {
    return 0;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value % 90 !== 0) return 0;
  return (((value % 360) + 360) % 360) as 0 | 90 | 180 | 270;
}

/** The size a reader shows the page at, in points: the crop box, turned by /Rotate. */
export function shownSize(page: PDFPage): { width: number; height: number } {
  const { width, height } = cropBox(page);
  return pageRotation(page) % 180 === 0 ? { width, height } : { width: height, height: width };
}

/** Sets a usable /MediaBox on a page that has none (so that pdf-lib's own drawing and copying work on it): US Letter, as it is shown. */
export function ensureMediaBox(page: PDFPage): void {
  if (readBox(page, 'MediaBox')) return;
  page.node.set(PDFName.of('MediaBox'), page.doc.context.obj([LETTER.x, LETTER.y, LETTER.width, LETTER.height]));
}
