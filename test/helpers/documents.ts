import { PDFDocument, PDFName } from 'pdf-lib';
import { PNG } from 'pngjs';
import { extractText, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { imageSize } from 'image-size';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DOCUMENTS, INVOICE_LINES, libraryRoutes, type DocumentName } from '../e2e/documents/document-fixtures.js';
import { startTestServer, type TestServer } from './test-server.js';

export type PdfInfo = {
  pageCount: number;
  /** Page sizes in inches (width, height), rounded to 2 decimals. */
  pages: Array<{ width: number; height: number }>;
  /** Text of each page. */
  text: string[];
  bytes: number;
};

/** Reads what a person would check in a PDF: page count, sizes and text. */
export async function readPdf(data: Uint8Array): Promise<PdfInfo> {
  const doc = await PDFDocument.load(data);
  const pages = doc.getPages().map((page) => {
    const { width, height } = page.getSize();
    return { width: round(width / 72), height: round(height / 72) };
  });
  const { text } = await extractText(new Uint8Array(data), { mergePages: false });
  return { pageCount: doc.getPageCount(), pages, text, bytes: data.length };
}

/** Format and pixel size of an image. */
export function readImage(data: Uint8Array): { type: string; width: number; height: number } {
  const { type, width, height } = imageSize(data);
  return { type: type ?? 'unknown', width: width ?? 0, height: height ?? 0 };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** RGBA of the pixel at (x, y) of a PNG. */
export function pngPixel(data: Uint8Array, x: number, y: number): [number, number, number, number] {
  const png = PNG.sync.read(Buffer.from(data));
  const i = (png.width * y + x) * 4;
  return [png.data[i] ?? 0, png.data[i + 1] ?? 0, png.data[i + 2] ?? 0, png.data[i + 3] ?? 0];
}

/** Fill colours (as `#rrggbb`) the PDF paints with, from its operator lists. */
export async function pdfFillColors(data: Uint8Array): Promise<Set<string>> {
  const doc = await getDocumentProxy(new Uint8Array(data));
  const { OPS } = await getResolvedPDFJS();
  const colors = new Set<string>();
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const ops = await page.getOperatorList();
    ops.fnArray.forEach((fn, i) => {
      if (fn === OPS.setFillRGBColor) colors.add(String(ops.argsArray[i]?.[0]).toLowerCase());
    });
  }
  return colors;
}

/** Text items with their x position (points from the left edge) on page 1. */
export async function pdfTextPositions(data: Uint8Array): Promise<Array<{ str: string; x: number; y: number }>> {
  const doc = await getDocumentProxy(new Uint8Array(data));
  const page = await doc.getPage(1);
  const content = await page.getTextContent();
  return content.items
    .filter((item): item is typeof item & { str: string; transform: number[] } => 'str' in item)
    .map((item) => ({ str: item.str, x: item.transform[4] ?? 0, y: item.transform[5] ?? 0 }));
}

/** Whether the PDF catalog has an outline and a structure tree (tagged). */
export async function pdfStructure(data: Uint8Array): Promise<{ outline: boolean; tagged: boolean }> {
  const doc = await PDFDocument.load(data);
  const catalog = doc.catalog;
  return {
    outline: catalog.has(PDFName.of('Outlines')),
    tagged: catalog.has(PDFName.of('StructTreeRoot')),
  };
}

/**
 * The site the real documents are served from (the real-documents e2e suite
 * and the conformance suite): the libraries they load, the invoice's data
 * API (answering after `dataDelayMs`, as real ones take a moment) and each
 * document at `/<name>.html`, made for the site's own URL.
 */
export async function startDocumentSite(options: { dataDelayMs?: number } = {}): Promise<TestServer> {
  let base = '';
  const site = await startTestServer({
    ...libraryRoutes(),
    '/invoice-lines.json': (_req, res) => {
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
        res.end(JSON.stringify(INVOICE_LINES));
      };
      if (options.dataDelayMs) setTimeout(answer, options.dataDelayMs);
      else answer();
    },
    ...Object.fromEntries(
      Object.keys(DOCUMENTS).map((name) => [
        `/${name}.html`,
        (_req: IncomingMessage, res: ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(DOCUMENTS[name as DocumentName](base));
        },
      ]),
    ),
  });
  base = site.url;
  return site;
}
