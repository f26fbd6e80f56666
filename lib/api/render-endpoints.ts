import type * as v from 'valibot';
import type { AppDeps } from '../bootstrap/app-deps.js';
import { RenderTimeoutError, ValidationError } from '../errors.js';
import type { RenderDeps } from '../bootstrap/renderer-init.js';
import { rawFileResponse } from '../delivery/raw-response.js';
import { syncFileResponse } from '../delivery/sync-response.js';
import { accountFonts } from '../fonts/user-fonts/account-fonts.js';
import { withAccountFonts } from '../plan/with-account-fonts.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json } from '../http/responses.js';
import type { HttpRequest, HttpResult } from '../http/types.js';
import { newJobId } from '../jobs/job-ids.js';
import { submitJob } from '../jobs/submit-job.js';
import { mergeInput, mergeUnits } from '../plan/merge-input.js';
import { checkProcessDocument } from '../plan/process-input.js';
import { PROCESS_REQUEST_SCHEMAS, processInput, type ProcessRequestOutput } from '../schemas/process-requests.js';
import { buildDocumentPlan } from '../plan/build-plan.js';
import { templatesFor } from '../templates/template-engine.js';
import { readsTemplateData, withStandInData, withTemplateData } from '../templates/template-data-source.js';
import { renderForRequest } from '../plan/request-errors.js';
import { checkSignatureAvailable, checkSignerGranted } from '../plan/signature-check.js';
import type { DocumentPlan } from '../render/render-plan.js';
import { MERGE_REQUEST_SCHEMAS, type DocumentInput, type MergeInput, type MergeRequestOutput } from '../schemas/merge-requests.js';
import type { PageOptionsOutput, PdfOptionsOutput, ScreenshotOptionsOutput, StorageOptionsOutput, WebhookOptionsOutput } from '../schemas/render-options.js';
import {
  RENDER_REQUEST_SCHEMAS,
  type RenderDelivery,
  type RenderInput,
  type RenderSource,
  type TemplateRenderRequestOutput,
} from '../schemas/render-requests.js';
import type { Template } from '../templates/template-store.js';
import { getTemplate, templateRenderInput } from '../templates/templates.js';

export type { RenderDelivery, RenderSource };

/** What the endpoints of each delivery need: the raw and sync ones render, the async ones queue. */
type DeliveryDeps = { raw: RenderDeps; sync: RenderDeps; async: Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'jobs' | 'queue' | 'templates'> };

/** The parts of a render request body the table reads; each endpoint's schema has validated its own shape. */
type RenderBody = {
  page: PageOptionsOutput;
  pdf?: PdfOptionsOutput | null;
  screenshot?: ScreenshotOptionsOutput | null;
  storage?: StorageOptionsOutput | null;
  webhook?: WebhookOptionsOutput;
};

type Source = {
  schemas: Record<RenderDelivery, v.GenericSchema>;
  /** The render a direct request asks for; absent for templates, whose input is the request merged over the template. */
  input?: (body: RenderBody) => RenderInput;
  /** A merge's parts, templates resolved and existing PDFs checked (before any quota is spent). */
  merge?: true;
  /** An existing PDF to process: a document in the body checked (before any quota is spent). */
  process?: true;
};

/** The sources of the table: the body schema of each delivery, and what to render. */
const SOURCES: Record<RenderSource | 'merge' | 'process', Source> = {
  pdf: {
    schemas: RENDER_REQUEST_SCHEMAS.pdf,
    input: (body) => ({ output: 'PDF', page: body.page, pdf: body.pdf }),
  },
  screenshot: {
    schemas: RENDER_REQUEST_SCHEMAS.screenshot,
    input: (body) => ({ output: 'IMAGE', page: body.page, screenshot: body.screenshot }),
  },
  template: {
    schemas: RENDER_REQUEST_SCHEMAS.template,
  },
  merge: {
    schemas: MERGE_REQUEST_SCHEMAS,
    merge: true,
  },
  process: {
    schemas: PROCESS_REQUEST_SCHEMAS,
    process: true,
  },
};

/**
 * A render that answers at once (raw, sync) and ran out of its budget, which
 * API Gateway's 30 s bound: its 504 says so and names the same request's
 * async endpoint, whose budget is its consumer's timeout (issue 47).
 */
function adviseAsync(error: unknown, path: string): never {
  if (error instanceof RenderTimeoutError) {
    error.message =
      `${error.message}. The document takes longer than an answer within API Gateway's 30 s allows: ` +
      `send the same request to POST ${asyncPathOf(path)}, whose budget is its queue consumer's timeout (up to 15 minutes; the result comes by webhook or GET /v1/jobs/{id})`;
  }
  throw error;
}

/** The async endpoint of a raw or sync render's path: /v1/pdf and /v1/pdf/sync → /v1/pdf/async. */
export function asyncPathOf(path: string): string {
  return `${path.replace(/\/sync$/, '')}/async`;
}

/** What a request is once checked: the validated request (which an async job stores) and its render plan. */
export type Prepared = { input: DocumentInput; plan: DocumentPlan };

type Deliver<D extends RenderDelivery> = (deps: DeliveryDeps[D], req: HttpRequest<RenderBody>, prepared: Prepared) => Promise<HttpResult>;

/** The deliveries of the table: what happens once the request passed every check and its quota unit is spent. */
const DELIVERIES: { [D in RenderDelivery]: Deliver<D> } = {
  // The file itself, or a 303 to a temporary copy when it is too large for a Lambda response.
  raw: async (deps, { caller, context, event }, prepared) => {
    const plan = await renderedPlan(prepared, caller.accountId, deps);
    withAccountFonts(plan, await accountFonts(deps.fonts, caller.accountId));
    const result = await renderForRequest(deps.renderer, plan).catch((error: unknown) => adviseAsync(error, event.rawPath));
    context.timings = result.timings;
    return rawFileResponse(deps, caller.accountId, result);
  },
  // `{id, status, fileUrl, signedUrlStatus}`, the file also PUT to the caller's storage when given.
  sync: async (deps, { body, caller, context, event }, prepared) => {
    const plan = await renderedPlan(prepared, caller.accountId, deps);
    withAccountFonts(plan, await accountFonts(deps.fonts, caller.accountId));
    const result = await renderForRequest(deps.renderer, plan).catch((error: unknown) => adviseAsync(error, event.rawPath));
    context.timings = result.timings;
    return syncFileResponse(deps, {
      id: newJobId(),
      accountId: caller.accountId,
      result,
      storage: body.storage,
      timeLeftMs: () => context.getRemainingTimeInMillis(),
    });
  },
  // 201 `{id, status: "PENDING"}` at once; the job holds exactly what will be rendered, the webhook gets the result.
  async: async (deps, { body, caller, spend }, { input }) => {
    const job = await submitJob(deps, {
      accountId: caller.accountId,
      tokenHash: caller.token.tokenHash,
      spend,
      input,
      storage: body.storage,
      webhook: body.webhook as WebhookOptionsOutput,
    });
    // RFC 9110 §15.3.2: a 201 names what it created, here where the job's status is read.
    return json(201, { id: job.jobId, status: job.status }, { location: `/v1/jobs/${job.jobId}` });
  },
};

/**
 * The request checked and planned: its plan is built here, at the edge, so every rule between fields answers before any quota is spent;
 * a signature must name a configured signer, at a level the deployment can sign (400).
 */
export async function prepareRender(input: DocumentInput, config: Pick<AppDeps['config'], 'signing'>): Promise<Prepared> {
  // Data by reference is not read here: the request is checked with an empty stand-in (template-data-source.ts).
  const plan = buildDocumentPlan(withStandInData(input), await templatesFor(input));
  checkSignatureAvailable(plan, config.signing);
  return { input, plan };
}

/** How long a raw or sync render may spend reading its data by reference, of API Gateway's 30 s. */
const EDGE_TEMPLATE_DATA_MS = 10_000;

/**
 * The plan a raw or sync render renders: the prepared one, or, where a page names its data by reference, one
 * built again with the data read (a 400 on the page's templateDataUrl when it cannot be).
 */
async function renderedPlan(prepared: Prepared, accountId: string, deps: RenderDeps): Promise<DocumentPlan> {
  if (!readsTemplateData(prepared.input)) return prepared.plan;
  const input = await withTemplateData(prepared.input, accountId, { files: deps.files, filesBucket: deps.config.filesBucket }, EDGE_TEMPLATE_DATA_MS);
  return buildDocumentPlan(input, await templatesFor(input));
}

/** Why a raw request may not ask for a preview: its answer is the file alone, with no URL for a second one. */
const RAW_PREVIEW = 'A preview is answered as previewUrl: ask /sync or /async (a raw answer is the file alone)';

/**
 * A 400 naming pdf.preview, before any quota is spent, where the answer has no place for the preview's URL
 * (a raw answer; a batch's manifest, which lists each item's file): also when a template's variables ask for it.
 */
export function refusePreview(plan: DocumentPlan, why: string): void {
  if (plan.output !== 'IMAGE' && plan.finishing.preview) throw new ValidationError({ 'pdf.preview': why });
}

/**
 * One of the twelve render endpoints (`POST /v1/pdf`, `/v1/screenshot/sync`,
 * `/v1/template/{id}/async`, `/v1/pdf/merge`, `/v1/pdf/process`…): the source's schema for the delivery, the
 * template loaded first for a template (404 before 400), the render plan
 * built before the quota is spent (a 400 of the merged options ranks
 * before a 402), then the delivery.
 */
export function renderEndpoint<D extends RenderDelivery>(source: RenderSource | 'merge' | 'process', delivery: D, deps: DeliveryDeps[D]) {
  const { schemas, input, merge, process } = SOURCES[source];
  const deliver = DELIVERIES[delivery] as Deliver<D>;
  return httpEndpoint<v.GenericSchema, Template | undefined, Prepared>(
    {
      name: delivery === 'raw' ? `render-${source}` : `render-${source}-${delivery}`,
      schema: schemas[delivery],
      // A merge spends one unit per part that renders; an existing PDF costs nothing.
      spendsQuota: merge ? (prepared) => mergeUnits(prepared.input as MergeInput) : true,
      begin: 'renderer' in deps ? () => deps.renderer.anticipate() : undefined,
      // Template loads (a template render's, a merge's template parts) read the caller's account.
      readsAccount: !input && !process,
      preload: input || merge || process ? undefined : ({ caller, params }) => getTemplate(deps.templates, caller.accountId, params.id ?? ''),
      prepare: async ({ body, caller }, template) => {
        const prepared = process
          ? await prepareRender(await checkProcessDocument(processInput(body as ProcessRequestOutput)), deps.config)
          : merge
            ? await prepareRender(await mergeInput(body as MergeRequestOutput, (id) => getTemplate(deps.templates, caller.accountId, id)), deps.config)
            : await prepareRender(input ? input(body as RenderBody) : templateRenderInput(template as Template, body as TemplateRenderRequestOutput), deps.config);
        if (delivery === 'raw') refusePreview(prepared.plan, RAW_PREVIEW);
        return prepared;
      },
      handle: async (req, _template, prepared) => {
        // The caller is known once admitted: a signer its token was not granted is a 403 before anything renders or is queued (its unit given back).
        checkSignerGranted(prepared.plan, req.caller.token);
        return deliver(deps, req as HttpRequest<RenderBody>, prepared);
      },
    },
    deps,
  );
}
