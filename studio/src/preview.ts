/**
 * Shows a rendered file: a PDF page by page with pdf.js (a canvas plus its
 * text layer, so the text is selectable and findable), an image inline.
 */
import { GlobalWorkerOptions, TextLayer, getDocument } from 'pdfjs-dist';

// Served by the studio function beside the bundle: same origin, no CDN.
GlobalWorkerOptions.workerSrc = new URL('studio/pdf.worker.mjs', document.baseURI).href;

/** More pages are not worth drawing on every keystroke; the count says how many there are. */
const MAX_PAGES = 20;

let objectUrl: string | undefined;

/** Replaces the preview with the file in `blob`; returns a short description (pages, size). */
export async function showFile(container: HTMLElement, blob: Blob, contentType: string): Promise<string> {
  if (contentType.startsWith('application/pdf')) return showPdf(container, blob);
  return showImage(container, blob);
}

async function showImage(container: HTMLElement, blob: Blob): Promise<string> {
  const url = URL.createObjectURL(blob);
  const image = document.createElement('img');
  image.alt = 'Rendered screenshot';
  image.className = 'preview-image';
  image.src = url;
  await image.decode();
  container.replaceChildren(image);
  if (objectUrl) URL.revokeObjectURL(objectUrl);
  objectUrl = url;
  container.dataset.kind = 'image';
  return `${image.naturalWidth}×${image.naturalHeight} ${blob.type.replace('image/', '').toUpperCase()}`;
}

async function showPdf(container: HTMLElement, blob: Blob): Promise<string> {
  const pdf = await getDocument({ data: new Uint8Array(await blob.arrayBuffer()), isEvalSupported: false }).promise;
  try {
    const pages: HTMLElement[] = [];
    const width = Math.max(200, container.clientWidth - 24);
    for (let number = 1; number <= Math.min(pdf.numPages, MAX_PAGES); number++) {
      const page = await pdf.getPage(number);
      const scale = width / page.getViewport({ scale: 1 }).width;
      const viewport = page.getViewport({ scale });
      const pixelRatio = window.devicePixelRatio || 1;
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width * pixelRatio);
      canvas.height = Math.floor(viewport.height * pixelRatio);
      canvas.style.width = `${Math.floor(viewport.width)}px`;
      canvas.style.height = `${Math.floor(viewport.height)}px`;
      canvas.setAttribute('aria-hidden', 'true');
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no 2D canvas');
      await page.render({ canvasContext: context, canvas, viewport, transform: pixelRatio === 1 ? undefined : [pixelRatio, 0, 0, pixelRatio, 0, 0] }).promise;
      const sheet = document.createElement('div');
      sheet.className = 'pdf-page';
      sheet.setAttribute('aria-label', `Page ${number}`);
      sheet.style.width = canvas.style.width;
      sheet.style.height = canvas.style.height;
      sheet.style.setProperty('--total-scale-factor', String(scale));
      const text = document.createElement('div');
      text.className = 'textLayer';
      sheet.append(canvas, text);
      await new TextLayer({ textContentSource: await page.getTextContent(), container: text, viewport }).render();
      pages.push(sheet);
    }
    container.replaceChildren(...pages);
    container.dataset.kind = 'pdf';
    container.dataset.pages = String(pdf.numPages);
    const shown = pdf.numPages > MAX_PAGES ? ` (first ${MAX_PAGES} shown)` : '';
    return `${pdf.numPages} page${pdf.numPages === 1 ? '' : 's'}${shown}`;
  } finally {
    await pdf.destroy();
  }
}
