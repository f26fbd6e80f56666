import { readImage, readPdf, type PdfInfo } from '../../helpers/documents.js';
import { buildRenderPlan } from '../../../lib/plan/build-plan.js';
import { templatesFor } from '../../../lib/templates/template-engine.js';
import { renderForRequest } from '../../../lib/plan/request-errors.js';
import type { Renderer, RenderResult } from '../../../lib/render/index.js';
import type { RenderInput } from '../../../lib/schemas/render-requests.js';
import type { ServerResponse } from 'node:http';

type PageInput = RenderInput['page'];
type PdfInput = Extract<RenderInput, { output: 'PDF' }>['pdf'];
type ScreenshotInput = Extract<RenderInput, { output: 'IMAGE' }>['screenshot'];

/** Renders a request as the edge does: its plan, and what fails named by the request's fields. */
export function renderRequest(renderer: Pick<Renderer, 'render'>, input: RenderInput, options?: { timeoutMs?: number }): Promise<RenderResult> {
  return templatesFor(input).then((templates) => renderForRequest(renderer, buildRenderPlan(input, templates), options));
}

/** Base64 of a UTF-8 string, as the contract sends HTML. */
export const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A small viewport at scale 1, so pixel positions are CSS positions. */
export const oneX = { width: 800, height: 600, deviceScaleFactor: 1 };

/** Renders a PDF and reads what a person would check in it. */
export async function renderPdf(renderer: Renderer, page: PageInput, pdf?: PdfInput): Promise<PdfInfo & { data: Buffer }> {
  const result = await renderRequest(renderer, { output: 'PDF', page, pdf });
  return { ...(await readPdf(new Uint8Array(result.body))), data: result.body };
}

/** Text of the whole rendered PDF, whitespace collapsed. */
export async function pdfText(renderer: Renderer, page: PageInput, pdf?: PdfInput): Promise<string> {
  const info = await renderPdf(renderer, page, pdf);
  return info.text.join('\n').replace(/[ \t]+/g, ' ');
}

/** Renders a screenshot and reads its format and pixel size. */
export async function renderImage(renderer: Renderer, page: PageInput, screenshot?: ScreenshotInput) {
  const result = await renderRequest(renderer, { output: 'IMAGE', page, screenshot });
  return { data: result.body, contentType: result.contentType, ...readImage(new Uint8Array(result.body)) };
}

/** A script at `/prebid.js`, a path the shipped filter lists block: it writes "ad script ran" if it loads. */
export const AD_SCRIPT_ROUTE = (_req: unknown, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/javascript' });
  res.end('document.body.append("ad script ran")');
};
