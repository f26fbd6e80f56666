import type { RenderDeps } from '../render-app.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { file } from '../http/responses.js';
import { PdfRequestSchema, ScreenshotRequestSchema, TemplateRenderRequestSchema } from '../schemas/render-requests.js';
import { getTemplate, templateRenderInput } from '../templates/templates.js';

/** `POST /v1/pdf`: renders the page to a PDF and answers with the file itself. */
export function rawPdfEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-pdf',
      schema: PdfRequestSchema,
      spendsQuota: true,
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
      spendsQuota: true,
      handle: async ({ body, context }) => {
        const result = await deps.renderer.render({ output: 'IMAGE', page: body.page, screenshot: body.screenshot });
        context.timings = result.timings;
        return file(result.body, result.contentType);
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
      handle: async ({ body, context }, template) => {
        const result = await deps.renderer.render(templateRenderInput(template, body));
        context.timings = result.timings;
        return file(result.body, result.contentType);
      },
    },
    deps,
  );
}
