import type { AppDeps } from '../app.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import type { Caller } from '../http/types.js';
import type { QuotaSpend } from '../quota/quota.js';
import type { RenderInput } from '../render/types.js';
import {
  PdfAsyncRequestSchema,
  ScreenshotAsyncRequestSchema,
  TemplateRenderAsyncRequestSchema,
} from '../schemas/render-requests.js';
import type { StorageOptionsOutput, WebhookOptionsOutput } from '../schemas/render-options.js';
import { submitJob } from '../jobs/submit-job.js';
import { getTemplate, templateRenderInput } from '../templates/templates.js';

type AsyncDeps = Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'jobs' | 'queue' | 'templates'>;

/** Records and queues the job, then answers 201 `{id, status: "PENDING"}`. */
async function queued(
  deps: AsyncDeps,
  request: { caller: Caller; spend?: QuotaSpend; input: RenderInput; storage?: StorageOptionsOutput | null; webhook: WebhookOptionsOutput },
) {
  const job = await submitJob(deps, {
    accountId: request.caller.accountId,
    tokenHash: request.caller.token.tokenHash,
    spend: request.spend,
    input: request.input,
    storage: request.storage,
    webhook: request.webhook,
  });
  return json(201, { id: job.jobId, status: job.status });
}

/** `POST /v1/pdf/async`: validates, queues a PDF job and answers 201 at once; the webhook gets the result. */
export function asyncPdfEndpoint(deps: AsyncDeps) {
  return httpEndpoint(
    {
      name: 'render-pdf-async',
      schema: PdfAsyncRequestSchema,
      spendsQuota: true,
      handle: ({ body, caller, spend }) =>
        queued(deps, { caller, spend, input: { output: 'PDF', page: body.page, pdf: body.pdf }, storage: body.storage, webhook: body.webhook }),
    },
    deps,
  );
}

/** `POST /v1/screenshot/async`: validates, queues a screenshot job and answers 201 at once. */
export function asyncScreenshotEndpoint(deps: AsyncDeps) {
  return httpEndpoint(
    {
      name: 'render-screenshot-async',
      schema: ScreenshotAsyncRequestSchema,
      spendsQuota: true,
      handle: ({ body, caller, spend }) =>
        queued(deps, {
          caller,
          spend,
          input: { output: 'IMAGE', page: body.page, screenshot: body.screenshot },
          storage: body.storage,
          webhook: body.webhook,
        }),
    },
    deps,
  );
}

/**
 * `POST /v1/template/{id}/async`: the request merged over the template and
 * checked now (404, then 400), so the job holds exactly what will be rendered
 * even if the template changes before it runs.
 */
export function asyncTemplateRenderEndpoint(deps: AsyncDeps) {
  return httpEndpoint(
    {
      name: 'render-template-async',
      schema: TemplateRenderAsyncRequestSchema,
      spendsQuota: true,
      preload: ({ caller, params }) => getTemplate(deps.templates, caller.accountId, params.id ?? ''),
      prepare: ({ body }, template) => templateRenderInput(template, body),
      handle: ({ body, caller, spend }, _template, input) =>
        queued(deps, { caller, spend, input, storage: body.storage, webhook: body.webhook }),
    },
    deps,
  );
}
