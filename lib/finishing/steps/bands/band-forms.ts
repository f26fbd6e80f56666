import {
  beginMarkedContent,
  degrees,
  drawPage,
  endMarkedContent,
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFObjectCopier,
  PDFRawStream,
  type PDFDocument,
  type PDFPage,
  type PDFRef,
} from '@cantoo/pdf-lib';
import { mediaBox } from '../../../pdf/page-box.js';

/** A band page made a form XObject of the body's document: its reference and its size in points. */
export type BandForm = { ref: PDFRef; width: number; height: number };

/**
 * Makes pages `indices` of `band` form XObjects of `document`, at the cost of a
 * copy: one copier for all of them (the fonts and images they share are copied
 * once), and each page's content stream kept as Chromium encoded it, its bytes
 * neither inflated nor deflated again (pdf-lib's embedPdf does both, page by
 * page, when the document is saved, and leaves a second, unused copy of each
 * stream in the file). A page whose content is not one stream (Chromium writes
 * one) goes through embedPdf.
 */
export async function bandForms(document: PDFDocument, band: PDFDocument, indices: number[]): Promise<BandForm[]> {
  const copier = PDFObjectCopier.for(band.context, document.context);
  const pages = band.getPages();
  return Promise.all(
    indices.map(async (index) => {
      const page = pages[index] as PDFPage;
      // Read where any page has one (page-box.ts): pdf-lib's getMediaBox throws on a page without a usable /MediaBox.
      const { x, y, width, height } = mediaBox(page);
      const contents = page.node.Contents();
      const stream = contents instanceof PDFArray && contents.size() === 1 ? contents.lookup(0) : contents;
      if (!(stream instanceof PDFRawStream)) {
        const [embedded] = await document.embedPdf(band, [index]);
        if (!embedded) throw new Error('The band page was not embedded');
        return { ref: embedded.ref, width: embedded.width, height: embedded.height };
      }
      const form = copier.copy(stream);
      const { dict } = form;
      dict.set(PDFName.of('Type'), PDFName.of('XObject'));
      dict.set(PDFName.of('Subtype'), PDFName.of('Form'));
      dict.set(PDFName.of('FormType'), PDFNumber.of(1));
      dict.set(PDFName.of('BBox'), document.context.obj([x, y, x + width, y + height]));
      dict.set(PDFName.of('Matrix'), document.context.obj([1, 0, 0, 1, -x, -y]));
      const resources = page.node.Resources();
      dict.set(PDFName.of('Resources'), resources ? copier.copy(resources) : PDFDict.withContext(document.context));
      return { ref: document.context.register(form), width, height };
    }),
  );
}

/**
 * Draws `form` on `page` in the box given (its lower-left corner, as the page is shown, in default user space;
 * turned by `rotate` degrees counterclockwise, the page's /Rotate, so that it reads upright), inside /Artifact
 * marked content (decoration, not content: PDF/UA).
 */
export function drawBandForm(page: PDFPage, form: BandForm, box: { x: number; y: number; width: number; height: number; rotate: number }): void {
  const name = page.node.newXObject('Band', form.ref);
  page.pushOperators(
    beginMarkedContent('Artifact'),
    ...drawPage(name, { x: box.x, y: box.y, xScale: box.width / form.width, yScale: box.height / form.height, rotate: degrees(box.rotate), xSkew: degrees(0), ySkew: degrees(0) }),
    endMarkedContent(),
  );
}
