import type { Context } from 'aws-lambda';
import type { RenderDeps } from '../render-app.js';
import { syncFileResponse } from '../delivery/sync-response.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import {
  PdfSyncRequestSchema,
  ScreenshotSyncRequestSchema,
  TemplateRenderSyncRequestSchema,
} from '../schemas/render-requests.js';
import { getTemplate, templateRenderInput } from '../templates/templates.js';

const timeLeft = (context: Context) => () => context.getRemainingTimeInMillis();

/** `POST /v1/pdf/sync`: renders a PDF and answers `{id, status, fileUrl, signedUrlStatus}`. */
export function syncPdfEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-pdf-sync',
      schema: PdfSyncRequestSchema,
      spendsQuota: true,
      handle: async ({ body, caller, context }) => {
        const result = await deps.renderer.render({ output: 'PDF', page: body.page, pdf: body.pdf });
        context.timings = result.timings;
        return syncFileResponse(deps, { accountId: caller.accountId, result, storage: body.storage, timeLeftMs: timeLeft(context) });
      },
    },
    deps,
  );
}

/** `POST /v1/screenshot/sync`: renders an image and answers `{id, status, fileUrl, signedUrlStatus}`. */
export function syncScreenshotEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-screenshot-sync',
      schema: ScreenshotSyncRequestSchema,
      spendsQuota: true,
      handle: async ({ body, caller, context }) => {
        const result = await deps.renderer.render({ output: 'IMAGE', page: body.page, screenshot: body.screenshot });
        context.timings = result.timings;
        return syncFileResponse(deps, { accountId: caller.accountId, result, storage: body.storage, timeLeftMs: timeLeft(context) });
      },
    },
    deps,
  );
}

/** `POST /v1/template/{id}/sync`: renders a saved template (request merged over it) and answers with the sync result. */
export function syncTemplateRenderEndpoint(deps: RenderDeps) {
  return httpEndpoint(
    {
      name: 'render-template-sync',
      schema: TemplateRenderSyncRequestSchema,
      spendsQuota: true,
      preload: ({ caller, params }) => getTemplate(deps.templates, caller.accountId, params.id ?? ''),
      prepare: ({ body }, template) => templateRenderInput(template, body),
      handle: async ({ body, caller, context }, _template, input) => {
        const result = await deps.renderer.render(input);
        context.timings = result.timings;
        return syncFileResponse(deps, { accountId: caller.accountId, result, storage: body.storage, timeLeftMs: timeLeft(context) });
      },
    },
    deps,
  );
}
