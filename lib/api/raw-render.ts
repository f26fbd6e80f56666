import type { RenderDeps } from '../render-app.js';
import { rawFileResponse } from '../delivery/raw-response.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { PdfRequestSchema, ScreenshotRequestSchema, TemplateRenderRequestSchema } from '../schemas/render-requests.js';
import { getTemplate, templateRenderInput } from '../templates/templates.js';

/**
 * `POST /v1/pdf`: renders the page to a PDF and answers with the file itself,
 * or with a 303 to a temporary copy when it is too large for a Lambda response.
 */
export function rawPdfEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-pdf',
      schema: PdfRequestSchema,
      spendsQuota: true,
      handle: async ({ body, caller, context }) => {
        const result = await deps.renderer.render({ output: 'PDF', page: body.page, pdf: body.pdf });
        context.timings = result.timings;
        return rawFileResponse(deps, caller.accountId, result);
      },
    },
    deps,
  );
}

/** `POST /v1/screenshot`: renders the page to an image and answers with the file itself (or a 303, as for PDFs). */
export function rawScreenshotEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-screenshot',
      schema: ScreenshotRequestSchema,
      spendsQuota: true,
      handle: async ({ body, caller, context }) => {
        const result = await deps.renderer.render({ output: 'IMAGE', page: body.page, screenshot: body.screenshot });
        context.timings = result.timings;
        return rawFileResponse(deps, caller.accountId, result);
      },
    },
    deps,
  );
}

/** `POST /v1/template/{id}`: renders a saved template, the request's options merged over it. */
export function rawTemplateRenderEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-template',
      schema: TemplateRenderRequestSchema,
      spendsQuota: true,
      preload: ({ caller, params }) => getTemplate(deps.templates, caller.accountId, params.id ?? ''),
      // The merged options are checked before the quota is spent: their 400 ranks before a 402.
      prepare: ({ body }, template) => templateRenderInput(template, body),
      handle: async ({ caller, context }, _template, input) => {
        const result = await deps.renderer.render(input);
        context.timings = result.timings;
        return rawFileResponse(deps, caller.accountId, result);
      },
    },
    deps,
  );
}
