/**
 * The OpenAPI 3.1 document of the service (`GET /v1/openapi.json`): every
 * route of serverless.yml, request bodies converted from the schemas that
 * validate them, the answers and error bodies of decisions.md, the bearer
 * scheme, and the webhook as an OpenAPI `webhooks` entry. Built once per
 * process: it depends on nothing but the code.
 */
import { requestComponentSchemas, type RequestBodyName } from './request-schemas.js';
import { FONT_LIST_TTL_MS } from '../fonts/user-fonts/account-fonts.js';
import { MAX_FONT_FILE_BYTES, MAX_FONTS_PER_ACCOUNT, MAX_SFNT_BYTES } from '../fonts/user-fonts/font-limits.js';
import { MAX_LIST_PAGE } from '../schemas/template-requests.js';
import { RESPONSE_SCHEMAS } from './response-schemas.js';

/** The JSON Schema dialect of OpenAPI 3.1: plain 2020-12. */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Method = 'get' | 'post' | 'put' | 'delete';

/** One route as the document describes it. */
export type RouteDoc = {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Request body component; absent for routes without a body. */
  body?: RequestBodyName;
  /** Success status and what it carries. */
  success: { status: string; description: string; schema?: string; content?: 'pdf-or-image' | 'pdf-or-facts' | 'html' | 'javascript' | 'script-or-style' | 'json' };
  /** Answers 422 when the document cannot be made to conform to what `pdf` asks (PDF/A). */
  conformance?: true;
  /** False for the routes anyone may read (the document and the docs page). */
  auth?: boolean;
  /** Spends quota (402) and renders (504 on an exceeded time budget). */
  renders?: boolean;
  /** Names a resource by id (404). */
  byId?: boolean;
  /** Answers 404 for other names in its path, for this reason. */
  notFound?: string;
  query?: 'page';
  /** The names its `{file}` takes. */
  files?: readonly string[];
  /**
   * Operations that take the `id` of the success body as their path `id`
   * (OpenAPI links): what a client, or Schemathesis' stateful phase, calls next.
   */
  next?: readonly string[];
  /** An extra note for the reader. */
  description?: string;
};

const RENDER_SOURCES = 'Exactly one of page.url, page.html, page.htmlTemplate (templateData only with htmlTemplate).';
const TEMPLATE_MERGE = 'Every option is optional and deep-merged over the template variables (the request wins, arrays are replaced); the merged page must name exactly one source.';

/** What a saved template leads to: reading, rendering, changing and deleting it. */
const TEMPLATE_NEXT = ['getTemplate', 'renderTemplate', 'renderTemplateSync', 'renderTemplateAsync', 'updateTemplate', 'updateTemplateByPost', 'deleteTemplate'] as const;
/** A queued job is read back by its id. */
const JOB_NEXT = ['getJob'] as const;

/** A batch is read back, and cancelled, by its id. */
const BATCH_NEXT = ['getBatch', 'cancelBatch'] as const;

const BATCH_ITEMS =
  'items: 1 to 10,000 (or itemsUrl: a JSON Lines file of up to 100,000, one item a line), each a render as /v1/pdf ({page, pdf?}), /v1/screenshot ({page, screenshot}) or /v1/template/{id} ({templateId, page?, pdf? | screenshot?}) takes it, with an optional name (unique in the batch; the index when absent) and metadata echoed in the manifest. defaults is deep-merged under every item (the item wins), so an item may be only its page.templateData. Every item is checked before anything is queued: a 400 names items.<index>.<field> (an unknown templateId too). Quota: one unit per item, spent up front (402 when fewer are left: nothing queued), given back for each item that fails other than by its page not loading and for each cancelled one. The webhook, if given, is called once, at the end, signed as every webhook, with {id, type: "batch", status, total, done, failed, manifestUrl, zipUrl?, mergedUrl?, signedUrlStatus?, metadata, createdAt, completedAt}. storage.preSignedUrl: the batch\'s one file (the archive with output.zip, else the merged PDF, else the manifest) is also PUT there once it has ended (signedUrlStatus). output.zip: also one ZIP archive of all the items\' files; output.merge: also one PDF of the PDF items in order with an outline entry per item name; both made when the batch ends, before its webhook.';

const MERGE_PARTS =
  'Up to 20 parts, in order: {page, pdf?} rendered like /v1/pdf, {templateId, page?, pdf?} from a saved PDF template, or {document} an existing PDF (base64, at most 5 MB, not encrypted); each may have a title for its outline entry. The top-level pdf (outline, protection, watermark) applies to the merged file. Quota: one unit per rendered part; an existing PDF costs nothing, a failed merge nothing. A part that fails fails the merge: code merge.part, its fields under parts.<index>.';

const PROCESS =
  'An existing PDF: document (base64) or documentUrl (fetched, at most 50 MB, through the network rules of page.url), password when it is encrypted. ' +
  'pdf takes the finishing options (watermark, metadata, pdfa, attachments, eInvoice with xml, protection, signature); print options and pdfua are a 400 naming them. ' +
  'output JSON answers the facts of the document (PdfFacts) instead of a file. A document that cannot be used is a 400 on document, documentUrl or password (code process.document); ' +
  'a PDF/A it cannot reach is a 422 naming pdf.pdfa with the reasons (code pdf.conformance). Quota: one unit per call; nothing for a 4xx.';

const FONT_UPLOAD =
  'The font file as the body itself (Content-Type font/ttf, font/otf, font/woff or font/woff2; ?family= to name it otherwise), or this JSON: file (base64) or fileUrl (s3://<files bucket>/uploads/<your account id>/<key>, for files past the 6 MB a Lambda request takes). ' +
  `At most ${MAX_FONT_FILE_BYTES / 1024 / 1024} MB, unpacking to at most ${MAX_SFNT_BYTES / 1024 / 1024} MB, ${MAX_FONTS_PER_ACCOUNT} fonts an account. ` +
  'TrueType, OpenType, WOFF and WOFF2; a collection (.ttc) is refused (upload its faces one by one). The family is the font\'s typographic family unless family names another; weight and style come from its OS/2 table. ' +
  'A file that cannot be used is a 400 naming body, file or fileUrl (code font.file). Pages of this account name it in CSS by family (no @font-face); a page whose own Content-Security-Policy restricts font-src cannot load it and falls back to the built-in fonts. Other accounts never see it.';

/** Every route the service serves: serverless.yml's httpApi events, one to one (a test holds them equal). */
export const ROUTES: readonly RouteDoc[] = [
  { method: 'post', path: '/v1/pdf', operationId: 'createPdf', summary: 'Render a PDF, answered with the file', tag: 'PDF', body: 'PdfRequest', renders: true, success: { status: '200', description: 'The PDF. Over 6 MB: 303 to a temporary download URL.', content: 'pdf-or-image' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/pdf/sync', operationId: 'createPdfSync', summary: 'Render a PDF, answered with a download URL', tag: 'PDF', body: 'PdfSyncRequest', renders: true, success: { status: '200', description: 'The stored file.', schema: 'SyncResult' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/pdf/async', operationId: 'createPdfAsync', summary: 'Queue a PDF; the webhook gets the result', tag: 'PDF', body: 'PdfAsyncRequest', renders: true, next: JOB_NEXT, success: { status: '201', description: 'The queued job.', schema: 'AsyncJob' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/screenshot', operationId: 'createScreenshot', summary: 'Render a screenshot, answered with the image', tag: 'Screenshot', body: 'ScreenshotRequest', renders: true, success: { status: '200', description: 'The image (png, jpeg or webp). Over 6 MB: 303 to a temporary download URL.', content: 'pdf-or-image' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/screenshot/sync', operationId: 'createScreenshotSync', summary: 'Render a screenshot, answered with a download URL', tag: 'Screenshot', body: 'ScreenshotSyncRequest', renders: true, success: { status: '200', description: 'The stored file.', schema: 'SyncResult' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/screenshot/async', operationId: 'createScreenshotAsync', summary: 'Queue a screenshot; the webhook gets the result', tag: 'Screenshot', body: 'ScreenshotAsyncRequest', renders: true, next: JOB_NEXT, success: { status: '201', description: 'The queued job.', schema: 'AsyncJob' }, description: RENDER_SOURCES },
  { method: 'post', path: '/v1/template/{id}', operationId: 'renderTemplate', summary: 'Render from a template, answered with the file', tag: 'Template rendering', body: 'TemplateRenderRequest', renders: true, byId: true, success: { status: '200', description: "The file, PDF or image per the template's output.", content: 'pdf-or-image' }, description: TEMPLATE_MERGE },
  { method: 'post', path: '/v1/template/{id}/sync', operationId: 'renderTemplateSync', summary: 'Render from a template, answered with a download URL', tag: 'Template rendering', body: 'TemplateRenderSyncRequest', renders: true, byId: true, success: { status: '200', description: 'The stored file.', schema: 'SyncResult' }, description: TEMPLATE_MERGE },
  { method: 'post', path: '/v1/template/{id}/async', operationId: 'renderTemplateAsync', summary: 'Queue a render from a template', tag: 'Template rendering', body: 'TemplateRenderAsyncRequest', renders: true, byId: true, next: JOB_NEXT, success: { status: '201', description: 'The queued job.', schema: 'AsyncJob' }, description: TEMPLATE_MERGE },
  { method: 'post', path: '/v1/pdf/merge', operationId: 'mergePdf', summary: 'Render and merge parts into one PDF, answered with the file', tag: 'PDF', body: 'MergeRequest', renders: true, success: { status: '200', description: 'The merged PDF. Over 6 MB: 303 to a temporary download URL.', content: 'pdf-or-image' }, notFound: 'A template part names no template of this account.', description: MERGE_PARTS },
  { method: 'post', path: '/v1/pdf/merge/sync', operationId: 'mergePdfSync', summary: 'Render and merge parts into one PDF, answered with a download URL', tag: 'PDF', body: 'MergeSyncRequest', renders: true, success: { status: '200', description: 'The stored file.', schema: 'SyncResult' }, notFound: 'A template part names no template of this account.', description: MERGE_PARTS },
  { method: 'post', path: '/v1/pdf/merge/async', operationId: 'mergePdfAsync', summary: 'Queue a merge; the webhook gets the result', tag: 'PDF', body: 'MergeAsyncRequest', renders: true, next: JOB_NEXT, success: { status: '201', description: 'The queued job.', schema: 'AsyncJob' }, notFound: 'A template part names no template of this account.', description: MERGE_PARTS },
  { method: 'post', path: '/v1/pdf/process', operationId: 'processPdf', summary: 'Finish or describe an existing PDF, answered with the file, its facts or images of its pages', tag: 'PDF', body: 'ProcessRequest', renders: true, conformance: true, success: { status: '200', description: 'The finished PDF (over 6 MB: 303 to a temporary download URL), with output JSON its facts, with output PNG, JPEG or WEBP the image of one page or a ZIP of several.', content: 'pdf-or-facts' }, description: PROCESS },
  { method: 'post', path: '/v1/pdf/process/sync', operationId: 'processPdfSync', summary: 'Finish or describe an existing PDF, answered with a download URL', tag: 'PDF', body: 'ProcessSyncRequest', renders: true, conformance: true, success: { status: '200', description: 'The stored file (the PDF, the facts as a .json file, a page image or a .zip of several).', schema: 'SyncResult' }, description: PROCESS },
  { method: 'post', path: '/v1/pdf/process/async', operationId: 'processPdfAsync', summary: 'Queue the processing of an existing PDF; the webhook gets the result', tag: 'PDF', body: 'ProcessAsyncRequest', renders: true, next: JOB_NEXT, success: { status: '201', description: 'The queued job.', schema: 'AsyncJob' }, description: PROCESS },
  { method: 'get', path: '/v1/jobs/{id}', operationId: 'getJob', summary: 'Status of an async job (addition)', tag: 'Jobs', byId: true, success: { status: '200', description: 'The job.', schema: 'Job' } },
  { method: 'post', path: '/v1/batches', operationId: 'createBatch', summary: 'Queue a batch of renders; one webhook at its end (addition)', tag: 'Batches', body: 'BatchRequest', renders: true, next: BATCH_NEXT, success: { status: '202', description: 'The batch, accepted.', schema: 'AcceptedBatch' }, description: BATCH_ITEMS },
  { method: 'get', path: '/v1/batches/{id}', operationId: 'getBatch', summary: 'Status, counts and results manifest of a batch (addition)', tag: 'Batches', byId: true, success: { status: '200', description: 'The batch.', schema: 'Batch' } },
  { method: 'delete', path: '/v1/batches/{id}', operationId: 'cancelBatch', summary: 'Cancel the items of a batch that have not started (addition)', tag: 'Batches', byId: true, success: { status: '200', description: 'The batch after the cancel (CANCELLED, or as it ended).', schema: 'Batch' } },
  { method: 'post', path: '/v1/templates', operationId: 'createTemplate', summary: 'Create a template', tag: 'Templates', body: 'TemplateCreateRequest', next: TEMPLATE_NEXT, success: { status: '201', description: 'The template with its variables.', schema: 'Template' }, description: 'output, when absent, is IMAGE if the variables hold screenshot and no pdf, else PDF.' },
  { method: 'get', path: '/v1/templates', operationId: 'listTemplates', summary: 'List templates', tag: 'Templates', query: 'page', success: { status: '200', description: 'One page of 20, newest first, without variables.', schema: 'TemplateListPage' } },
  { method: 'get', path: '/v1/templates/{id}', operationId: 'getTemplate', summary: 'Get a template', tag: 'Templates', byId: true, success: { status: '200', description: 'The template with its variables.', schema: 'Template' } },
  { method: 'put', path: '/v1/templates/{id}', operationId: 'updateTemplate', summary: 'Update a template', tag: 'Templates', body: 'TemplateUpdateRequest', byId: true, next: TEMPLATE_NEXT, success: { status: '200', description: 'The whole updated template.', schema: 'Template' }, description: 'At least one of name, variables, output.' },
  { method: 'post', path: '/v1/templates/{id}', operationId: 'updateTemplateByPost', summary: 'Update a template (POST, as the vendor SDK sends it)', tag: 'Templates', body: 'TemplateUpdateRequest', byId: true, next: TEMPLATE_NEXT, success: { status: '200', description: 'The whole updated template.', schema: 'Template' }, description: 'The same as PUT /v1/templates/{id}: same body, same answer.' },
  { method: 'delete', path: '/v1/templates/{id}', operationId: 'deleteTemplate', summary: 'Delete a template', tag: 'Templates', byId: true, success: { status: '204', description: 'Deleted; no body.' } },
  { method: 'get', path: '/v1/devices', operationId: 'listDevices', summary: 'Screenshot device presets (addition)', tag: 'Account', success: { status: '200', description: 'Every preset.', schema: 'Devices' } },
  { method: 'post', path: '/v1/fonts', operationId: 'createFont', summary: 'Keep a font of your own for your renders (addition)', tag: 'Fonts', body: 'FontUploadRequest', success: { status: '201', description: 'The font, checked and kept.', schema: 'Font' }, description: FONT_UPLOAD },
  { method: 'get', path: '/v1/fonts', operationId: 'listFonts', summary: "The account's fonts (addition)", tag: 'Fonts', success: { status: '200', description: 'Every font of the account, oldest first.', schema: 'FontList' } },
  { method: 'get', path: '/v1/fonts/{id}', operationId: 'getFont', summary: 'Get a font (addition)', tag: 'Fonts', byId: true, success: { status: '200', description: 'The font.', schema: 'Font' } },
  { method: 'delete', path: '/v1/fonts/{id}', operationId: 'deleteFont', summary: 'Delete a font (addition)', tag: 'Fonts', byId: true, success: { status: '204', description: `Deleted; renders stop using it within ${FONT_LIST_TTL_MS / 1000} s.` } },
  { method: 'get', path: '/v1/usage', operationId: 'getUsage', summary: "The token's plan, quota and rate (addition)", tag: 'Account', success: { status: '200', description: 'Usage this month.', schema: 'Usage' } },
  { method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApiDocument', summary: 'This document', tag: 'Documentation', auth: false, success: { status: '200', description: 'OpenAPI 3.1.', content: 'json' } },
  { method: 'get', path: '/docs', operationId: 'getDocs', summary: 'The API reference, rendered from this document', tag: 'Documentation', auth: false, success: { status: '200', description: 'An HTML page.', content: 'html' } },
  { method: 'get', path: '/docs/api-reference.js', operationId: 'getDocsScript', summary: 'The script the reference page runs', tag: 'Documentation', auth: false, success: { status: '200', description: 'JavaScript (Scalar API Reference, standalone).', content: 'javascript' } },
  { method: 'get', path: '/', operationId: 'getStudio', summary: 'The template studio: manage, edit and preview templates (addition)', tag: 'Documentation', auth: false, success: { status: '200', description: 'An HTML page; it asks for a token and calls this API with it.', content: 'html' } },
  { method: 'get', path: '/studio/{file}', operationId: 'getStudioFile', summary: "The template studio's script, styles and pdf.js worker", tag: 'Documentation', auth: false, notFound: 'No such file.', files: ['studio.js', 'studio.css', 'pdf.worker.mjs'], success: { status: '200', description: 'studio.js, studio.css or pdf.worker.mjs.', content: 'script-or-style' } },
];

const errorResponse = (description: string, schema = 'Error') => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

const RATE_HEADERS = {
  'x-ratelimit-limit': { description: 'Requests allowed in the current window (one second for whole rates).', schema: { type: 'integer' } },
  'x-ratelimit-remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'x-ratelimit-reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

function successContent(success: RouteDoc['success']) {
  if (success.schema) return { 'application/json': { schema: { $ref: `#/components/schemas/${success.schema}` } } };
  switch (success.content) {
    case 'pdf-or-image':
      return Object.fromEntries(
        ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'].map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]),
      );
    case 'pdf-or-facts':
      return {
        'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
        'application/json': { schema: { $ref: '#/components/schemas/PdfFacts' } },
        // Page images (output PNG, JPEG, WEBP): one page as the image, several as a ZIP of page-001.png… in page order.
        ...Object.fromEntries(['image/png', 'image/jpeg', 'image/webp', 'application/zip'].map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
      };
    case 'html':
      return { 'text/html': { schema: { type: 'string' } } };
    case 'javascript':
      return { 'text/javascript': { schema: { type: 'string' } } };
    case 'script-or-style':
      return { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } };
    case 'json':
      return { 'application/json': { schema: { type: 'object' } } };
    default:
      return undefined;
  }
}

const MISSING_GLYPHS_HEADER = {
  'x-missing-glyphs': {
    description:
      'Only when the file draws characters no font has (issue 46): count=N; first-page=P (PDFs); partial (the check stopped early); code-points=U+XXXX,… (cut with ",..." to keep the value within 512 characters). The sync and async answers carry the same as missingGlyphs.',
    schema: { type: 'string', maxLength: 512 },
  },
};

const RETRY_AFTER = { 'retry-after': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } } };
const WWW_AUTHENTICATE = {
  'www-authenticate': {
    description: 'Bearer realm="DocRender", with error="invalid_request" (malformed header) or error="invalid_token" (unknown token).',
    schema: { type: 'string' },
  },
};

function operation(route: RouteDoc) {
  const auth = route.auth !== false;
  const responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown; links?: Record<string, unknown> }> = {
    [route.success.status]: {
      description: route.success.description,
      ...(successContent(route.success) ? { content: successContent(route.success) } : {}),
    },
  };
  if (route.next) {
    responses[route.success.status]!.links = Object.fromEntries(
      route.next.map((operationId) => [operationId, { operationId, parameters: { id: '$response.body#/id' } }]),
    );
  }
  if (route.success.status === '201' || route.success.status === '202') {
    responses[route.success.status]!.headers = { location: { description: 'Path of what was created: /v1/jobs/{id}, /v1/templates/{id} or /v1/batches/{id}.', schema: { type: 'string' } } };
  }
  if (route.success.content === 'pdf-or-image' || route.success.content === 'pdf-or-facts') {
    responses['303'] = { description: 'The file is larger than a Lambda answer: Location is a temporary download URL (1 hour).', headers: { location: { schema: { type: 'string', format: 'uri' } } } };
  }
  // A rendered file answered as it is names the characters it draws with no glyph in a header (issue 46), either way it travels.
  if (route.success.content === 'pdf-or-image') {
    for (const status of [route.success.status, '303']) responses[status]!.headers = { ...responses[status]!.headers, ...MISSING_GLYPHS_HEADER };
  }
  if (route.body || route.query) responses['400'] = errorResponse('Validation failed (code api.validation), or the page could not be loaded (code render.navigation).', 'ValidationError');
  if (auth && route.renders) responses['402'] = errorResponse('The monthly quota is spent.');
  if (route.conformance) responses['422'] = errorResponse('The document cannot be made PDF/A: fields["pdf.pdfa"] names the reasons (code pdf.conformance).', 'ValidationError');
  // pdf.missingGlyphs or screenshot.missingGlyphs "fail": answered at once by the renders that answer at once (an async job ends FAILED with it).
  else if (route.renders && route.success.status === '200') {
    responses['422'] = errorResponse(
      'With pdf.missingGlyphs or screenshot.missingGlyphs "fail", the render drew characters no font has: fields names the option and the characters (code render.missing_glyphs). Not charged.',
      'ValidationError',
    );
  }
  if (route.byId) responses['404'] = errorResponse('No such id for this account.');
  else if (route.notFound) responses['404'] = errorResponse(route.notFound);
  if (route.body) responses['413'] = errorResponse('The request body is over the limit (5 MiB by default).');
  if (auth) responses['429'] = { ...errorResponse('Past the token rate.'), headers: RETRY_AFTER };
  // pdf.signature: PDF and template renders sign (a screenshot never does); an async render signs in its job.
  const signs = route.renders === true && route.tag !== 'Screenshot';
  const signsNow = signs && route.success.status !== '201';
  responses['500'] = errorResponse('Internal error.');
  const unavailable = 'AWS (DynamoDB, S3 or SQS) kept failing through retries; nothing was left half-done.';
  if (auth) {
    responses['503'] = {
      ...errorResponse(
        route.renders
          ? `${unavailable}${signsNow ? ' Or the timestamp authority of pdf.signature did not answer (code render.timestamp_unavailable).' : ''} Or the renderer of a process taking renders concurrently has as many running and waiting as it takes (not on Lambda, where an instance serves one at a time).`
          : unavailable,
      ),
      headers: RETRY_AFTER,
    };
  }
  if (signsNow) responses['502'] = errorResponse('The signer of pdf.signature failed (AWS KMS, SSM, S3 or Secrets Manager; code render.signer_unavailable): nothing was stored or charged.');
  // A queued render (async, batches) ends FAILED with render.timeout in its job instead.
  if (route.renders && !route.next) {
    responses['504'] = errorResponse(
      'The render exceeded its time budget (RENDER_TIMEOUT_MS, 25 s, inside API Gateway\'s 30 s): the message names the step under way and the same request\'s async endpoint, whose budget is its queue consumer\'s (about 14.5 minutes).',
    );
  }
  // Every answer given after the token was checked carries where the caller stands against its rate, errors included.
  if (auth) for (const response of Object.values(responses)) response.headers = { ...response.headers, ...RATE_HEADERS };
  if (auth) {
    responses['401'] = { ...errorResponse('Missing, malformed or unknown token.'), headers: WWW_AUTHENTICATE };
    responses['403'] = errorResponse(
      signs
        ? 'The subscription is inactive, or the token was not granted the signer that pdf.signature.signer names (code render.signer_not_granted).'
        : 'The subscription is inactive.',
    );
  }

  const parameters = [
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: name === 'file' && route.files ? { type: 'string', enum: route.files } : { type: 'string' },
    })),
    ...(route.query === 'page'
      ? [{ name: 'page', in: 'query', required: false, description: 'Page number.', schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_PAGE, default: 1 } }]
      : []),
  ];
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(auth ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}` } } } } }
      : {}),
    responses,
  };
}

/** Builds the whole OpenAPI 3.1 document. */
export function buildOpenApiDocument(version = '1.0.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'DocRender API',
      version,
      description:
        'Render a URL, HTML or a Handlebars template to PDF or a screenshot with headless Chromium: raw, sync or async ' +
        '(webhook), directly or from saved templates. Drop-in for the Doczilla API and its Node SDK.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ bearer: [] }],
    tags: ['PDF', 'Screenshot', 'Template rendering', 'Templates', 'Jobs', 'Batches', 'Account', 'Documentation'].map((name) => ({ name })),
    paths,
    webhooks: {
      jobFinished: {
        post: {
          operationId: 'jobFinished',
          summary: 'An async job ended (COMPLETED or FAILED)',
          description:
            'Sent once per job to webhook.url with webhook.method (POST or PUT) and webhook.headers. A non-2xx answer or ' +
            'none within 10 s is retried with growing delays (at least 5 attempts over at least 15 minutes).',
          parameters: [
            { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'webhook-signature', in: 'header', required: true, description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed by the decoded whsec_ key (Standard Webhooks).', schema: { type: 'string' } },
            { name: 'x-doczilla-signature', in: 'header', required: true, description: 'Lowercase hex HMAC-SHA256 of the raw body, keyed by the secret string as printed (whsec_…, UTF-8).', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
          responses: { '200': { description: 'Any 2xx acknowledges the call.' } },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' } },
      schemas: { ...requestComponentSchemas(), ...RESPONSE_SCHEMAS },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

let cached: { document: OpenApiDocument; json: string } | undefined;

/** The document and its JSON text, built on first use and kept for the life of the process. */
export function openApiDocument(): { document: OpenApiDocument; json: string } {
  if (!cached) {
    const document = buildOpenApiDocument();
    cached = { document, json: JSON.stringify(document) };
  }
  return cached;
}
