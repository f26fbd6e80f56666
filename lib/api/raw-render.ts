import type { RenderDeps } from '../render-app.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { file } from '../http/responses.js';
import { PdfRequestSchema, ScreenshotRequestSchema } from '../schemas/render-requests.js';

/** `POST /v1/pdf`: renders the page to a PDF and answers with the file itself. */
export function rawPdfEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-pdf',
      schema: PdfRequestSchema,
      handle: async ({ body, context }) => {
        const result = await deps.renderer.render({ output: 'PDF', page: body.page, pdf: body.pdf });
        context.timings = result.timings;
        return file(result.body, result.contentType);
      },
    },
    deps,
  );
}

/** `POST /v1/screenshot`: renders the page to an image and answers with the file itself. */
export function rawScreenshotEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-screenshot',
      schema: ScreenshotRequestSchema,
      handle: async ({ body, context }) => {
        const result = await deps.renderer.render({ output: 'IMAGE', page: body.page, screenshot: body.screenshot });
        context.timings = result.timings;
        return file(result.body, result.contentType);
      },
    },
    deps,
  );
}
