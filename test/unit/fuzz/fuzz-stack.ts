/**
 * The real HTTP stack of the render and template endpoints (middy, auth,
 * rate limit, body limit, JSON parse, the real valibot schemas, error mapper),
 * built from lib/api with in-memory stores, so thousands of fuzzed requests
 * run in seconds. The renderer is a stand-in that still runs every step of a
 * render that does not need Chromium (see chromiumless-renderer.ts).
 */
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { getJobEndpoint } from '../../../lib/api/jobs.js';
import { renderEndpoint } from '../../../lib/api/render-endpoints.js';
import { createTemplateEndpoint, deleteTemplateEndpoint, getTemplateEndpoint, listTemplatesEndpoint, updateTemplateEndpoint } from '../../../lib/api/templates.js';
import type { Config } from '../../../lib/config.js';
import type { HttpEvent, HttpResult } from '../../../lib/http/types.js';
import type { RenderDeps } from '../../../lib/bootstrap/rendering-handler.js';
import { newTemplateId } from '../../../lib/templates/template-ids.js';
import type { Template, TemplateStore } from '../../../lib/templates/template-store.js';
import { billingPeriod } from '../../../lib/quota/quota.js';
import { hashToken } from '../../../lib/tokens/tokens.js';
import type { TokenRecord } from '../../../lib/tokens/token-store.js';
import { chromiumlessRenderer } from '../../helpers/chromiumless-renderer.js';
import { memoryFileStore, memoryJobStore, recordingQueue } from '../jobs/fakes.js';
import { memoryUsageStore } from '../quota/memory-usage-store.js';
import { memoryFontStore } from '../../helpers/memory-font-store.js';

export const TOKEN = 'dr_fuzz_token_0123456789abcdef0123';
export const TEMPLATE_ID = newTemplateId();
export const MAX_BODY_BYTES = 256 * 1024;

function memoryTemplates(): TemplateStore {
  const now = new Date().toISOString();
  const stored = new Map<string, Template>([
    [TEMPLATE_ID, { id: TEMPLATE_ID, accountId: 'acc-fuzz', name: 'fuzz', output: 'PDF', variables: { page: { htmlTemplate: Buffer.from('<p>{{name}}</p>').toString('base64') }, pdf: { format: 'a4' } }, createdAt: now, updatedAt: now }],
  ]);
  return {
    create: async (template) => void stored.set(template.id, template),
    get: async (accountId, id) => (stored.get(id)?.accountId === accountId ? stored.get(id) : undefined),
    list: async () => ({ items: [], hasNextPage: false, hasPreviousPage: false }),
    replace: async (template) => stored.has(template.id) && Boolean(stored.set(template.id, template)),
    remove: async (_accountId, id) => stored.delete(id),
  };
}

export type EndpointName =
  | 'pdf' | 'screenshot' | 'template' | 'pdf/async' | 'screenshot/async' | 'template/async' | 'templates' | 'templates/update'
  | 'templates/get' | 'templates/list' | 'templates/delete' | 'jobs/get' | 'pdf/sync';

/** Every fuzzed endpoint, built once over shared in-memory stores (and the stand-in renderer unless given one). */
export function buildFuzzStack(options: { renderer?: RenderDeps['renderer'] } = {}) {
  const token: TokenRecord = {
    tokenHash: hashToken(TOKEN), accountId: 'acc-fuzz', active: true, monthlyLimit: null,
    // Far above any burst a fuzz run makes: the rate limit is not what is being fuzzed.
    ratePerSecond: 1_000_000, webhookSecret: 'whsec_x', createdAt: new Date().toISOString(),
  };
  const usage = memoryUsageStore((hash) => (hash === token.tokenHash ? token : undefined));
  const deps = {
    config: { maxBodyBytes: MAX_BODY_BYTES, fileLifetimeSeconds: 3600, webhookRetryDelaysSeconds: [1, 2, 3, 4] } as Config,
    logger: new Logger({ serviceName: 'fuzz', logLevel: 'SILENT' }),
    tokens: { findByHash: async (hash: string) => (hash === token.tokenHash ? token : undefined), create: async () => undefined, setActive: async () => true },
    templates: memoryTemplates(),
    fonts: memoryFontStore().store,
    usage: usage.store,
    files: memoryFileStore(),
    jobs: memoryJobStore(),
    queue: recordingQueue(),
    renderer: options.renderer ?? chromiumlessRenderer(),
  } as unknown as RenderDeps;

  const handlers: Record<EndpointName, (event: HttpEvent, context: Context) => Promise<HttpResult>> = {
    pdf: renderEndpoint('pdf', 'raw', deps),
    screenshot: renderEndpoint('screenshot', 'raw', deps),
    template: renderEndpoint('template', 'raw', deps),
    'pdf/async': renderEndpoint('pdf', 'async', deps),
    'screenshot/async': renderEndpoint('screenshot', 'async', deps),
    'template/async': renderEndpoint('template', 'async', deps),
    templates: createTemplateEndpoint(deps),
    'templates/update': updateTemplateEndpoint(deps),
    'templates/get': getTemplateEndpoint(deps),
    'templates/list': listTemplatesEndpoint(deps),
    'templates/delete': deleteTemplateEndpoint(deps),
    'jobs/get': getJobEndpoint(deps),
    'pdf/sync': renderEndpoint('pdf', 'sync', deps),
  };

  let counter = 0;
  /**
   * Sends a raw body (any text, not necessarily JSON) to an endpoint; path
   * parameters (the template id by default) and query parameters may be given.
   */
  const call = async (
    endpoint: EndpointName,
    body: string | undefined,
    params: { pathParameters?: Record<string, string>; queryStringParameters?: Record<string, string> } = {},
  ): Promise<HttpResult> => {
    const requestId = `fuzz-${++counter}`;
    const pathParameters = params.pathParameters ?? (endpoint.startsWith('template') ? { id: TEMPLATE_ID } : undefined);
    const event = {
      version: '2.0',
      routeKey: `POST /v1/${endpoint}`,
      rawPath: `/v1/${endpoint}`,
      rawQueryString: '',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body,
      isBase64Encoded: false,
      ...(pathParameters ? { pathParameters } : {}),
      ...(params.queryStringParameters ? { queryStringParameters: params.queryStringParameters } : {}),
      requestContext: {
        accountId: '1', apiId: 'a', domainName: 'd', domainPrefix: 'd', requestId, routeKey: `POST /v1/${endpoint}`,
        stage: '$default', time: '', timeEpoch: 0,
        http: { method: 'POST', path: `/v1/${endpoint}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'fuzz' },
      },
    } as unknown as HttpEvent;
    const context = { awsRequestId: requestId, getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
    return handlers[endpoint](event, context);
  };
  /** Quota units the fuzz token spent this month (and did not get back). */
  const quotaUsed = () => usage.usedBy(token.tokenHash, billingPeriod(new Date()).key);
  return { call, deps, quotaUsed };
}

/** Success statuses an endpoint may answer (raw renders 200, async 201, template create 201, update 200, delete 204). */
const SUCCESS = new Set([200, 201, 204]);

/**
 * Asserts an answer keeps the contract: a success, or an error with the
 * contract's body (400: exactly message, code, fields of strings; any other
 * error: exactly message), and never a 5xx.
 */
export function assertContractAnswer(result: HttpResult, label: string): void {
  const status = result.statusCode;
  assert.ok(status < 500, `${label}: answered ${status} ${String(result.body)}`);
  if (SUCCESS.has(status)) return;
  assert.ok([400, 402, 404, 413, 429].includes(status), `${label}: unexpected status ${status}`);
  const body = JSON.parse(String(result.body)) as Record<string, unknown>;
  if (status === 400) {
    assert.deepEqual(Object.keys(body).sort(), ['code', 'fields', 'message'], label);
    assert.equal(typeof body.message, 'string', label);
    assert.equal(typeof body.code, 'string', label);
    const fields = body.fields as Record<string, unknown>;
    assert.ok(fields && typeof fields === 'object' && !Array.isArray(fields), label);
    assert.ok(Object.keys(fields).length > 0, `${label}: a 400 names at least one field`);
    for (const [path, problem] of Object.entries(fields)) assert.equal(typeof problem, 'string', `${label}: fields.${path}`);
  } else {
    assert.deepEqual(Object.keys(body), ['message'], label);
    assert.equal(typeof body.message, 'string', label);
  }
}
