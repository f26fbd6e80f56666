/**
 * The vendor's Node SDK (`@doczilla/node`, docs.doczilla.app/libraries/nodejs)
 * is not on the npm registry this project can reach, so this file makes the
 * calls exactly as its documentation and published source describe them,
 * without looking at our README:
 *
 * - `new Doczilla(token, { baseURL })`: every call carries `Authorization: Bearer <token>`.
 * - `pdf|screenshot.direct/sync/async` POST `/v1/pdf`, `/v1/pdf/sync`, `/v1/pdf/async`
 *   (and `/v1/screenshot…`); `direct` reads the body as bytes.
 * - `template.direct/sync/async(id, body)` POST `/v1/template/{id}[/sync|/async]`;
 *   `template.list({ page })` GET `/v1/templates?page=N`; `create` POST `/v1/templates`;
 *   `get` GET `/v1/templates/{id}`; `update` **POST** `/v1/templates/{id}`; `delete` DELETE.
 * - The SDK base64-encodes `page.html`, `page.htmlTemplate`, `pdf.headerHtml` and
 *   `pdf.footerHtml` itself (also inside a template's `variables`): callers pass plain HTML.
 * - It reads `x-ratelimit-limit/-remaining/-reset` (seconds) and retries a 429 once.
 * - Non-2xx answers throw (axios' default), with the status and the parsed body.
 * - `webhook.verifyPayload(rawBody, signatureHeader, secret)`: HMAC-SHA256 of the
 *   raw body keyed by the secret string, hex, compared with `x-doczilla-signature`;
 *   returns the parsed event or throws "Signature does not match!".
 */
import { createHmac } from 'node:crypto';

export type SyncJob = { id: string; status: 'PENDING' | 'RUNNING' | 'FAILED' | 'COMPLETED'; fileUrl?: string | null; signedUrlStatus?: string | null };
export type AsyncJob = { id: string; status: 'PENDING' | 'RUNNING' | 'FAILED' | 'COMPLETED' };
export type Template = { id: string; name: string; output: 'PDF' | 'IMAGE'; createdAt: string; updatedAt: string; variables: Record<string, any> };
export type ListTemplate = { id: string; name: string; output: 'PDF' | 'IMAGE'; createdAt: string };
export type ListTemplateResponse = { hasNextPage: boolean; hasPreviousPage: boolean; data: ListTemplate[] };
export type WebhookEvent = {
  id: string;
  status: 'PENDING' | 'RUNNING' | 'FAILED' | 'COMPLETED';
  fileUrl?: string | null;
  signedUrlStatus?: string | null;
  fileBase64?: string | null;
  metadata?: Record<string, any> | null;
};

/** What the SDK throws for a non-2xx answer (the fields of an AxiosError the docs use). */
export class VendorApiError extends Error {
  constructor(
    readonly status: number,
    readonly data: any,
  ) {
    super(`Request failed with status code ${status}`);
  }
}

type Body = Record<string, any>;

const encode = (text: string) => Buffer.from(text).toString('base64');

/** The SDK's request body encoding: plain HTML in, base64 out, on a copy. */
function encodeRequestBody(body: Body): Body {
  const copy = structuredClone(body);
  for (const holder of [copy, copy.variables].filter(Boolean)) {
    if (holder.page?.html) holder.page.html = encode(holder.page.html);
    if (holder.page?.htmlTemplate) holder.page.htmlTemplate = encode(holder.page.htmlTemplate);
    if (holder.pdf?.headerHtml) holder.pdf.headerHtml = encode(holder.pdf.headerHtml);
    if (holder.pdf?.footerHtml) holder.pdf.footerHtml = encode(holder.pdf.footerHtml);
  }
  return copy;
}

/** A client that calls a base URL the way `new Doczilla(token, { baseURL })` does. */
export function createVendorClient(token: string, options: { baseURL: string }) {
  const rateLimit = { limit: 60, remaining: 30, resetIn: 0 };
  /** The last answer's headers, for tests that look at what the SDK reads. */
  const last: { headers?: Headers } = {};

  async function request(method: string, path: string, body?: Body, config: { binary?: boolean; params?: Record<string, number> } = {}, retries = 1): Promise<any> {
    if (rateLimit.remaining - 1 <= 0) await new Promise((resolve) => setTimeout(resolve, rateLimit.resetIn + 100));
    const query = config.params && Object.keys(config.params).length ? `?${new URLSearchParams(Object.entries(config.params).map(([k, v]) => [k, String(v)]))}` : '';
    const response = await fetch(`${options.baseURL}${path}${query}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/plain, */*',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(encodeRequestBody(body)) : undefined,
    });
    last.headers = response.headers;
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok) {
      if (response.status === 429 && retries > 0) return request(method, path, body, config, retries - 1);
      let data: unknown = bytes.toString('utf8');
      try {
        data = JSON.parse(String(data));
      } catch {
        // axios keeps a body that is not JSON as text
      }
      throw new VendorApiError(response.status, data);
    }
    rateLimit.limit = Number.parseInt(response.headers.get('x-ratelimit-limit') ?? '', 10) || rateLimit.limit;
    rateLimit.remaining = Number.parseInt(response.headers.get('x-ratelimit-remaining') ?? '', 10) || rateLimit.remaining;
    rateLimit.resetIn = Number.parseInt(response.headers.get('x-ratelimit-reset') ?? '', 10) * 1000;
    if (config.binary) return bytes;
    const text = bytes.toString('utf8');
    return text === '' ? '' : JSON.parse(text);
  }

  const renderService = (kind: 'pdf' | 'screenshot') => ({
    direct: (body: Body): Promise<Buffer> => request('POST', `/v1/${kind}`, body, { binary: true }),
    sync: (body: Body): Promise<SyncJob> => request('POST', `/v1/${kind}/sync`, body),
    async: (body: Body): Promise<AsyncJob> => request('POST', `/v1/${kind}/async`, body),
  });

  return {
    pdf: renderService('pdf'),
    screenshot: renderService('screenshot'),
    template: {
      direct: (id: string, body: Body): Promise<Buffer> => request('POST', `/v1/template/${id}`, body, { binary: true }),
      sync: (id: string, body: Body): Promise<SyncJob> => request('POST', `/v1/template/${id}/sync`, body),
      async: (id: string, body: Body): Promise<AsyncJob> => request('POST', `/v1/template/${id}/async`, body),
      list: (params: { page?: number } = {}): Promise<ListTemplateResponse> => request('GET', '/v1/templates', undefined, { params: params as Record<string, number> }),
      create: (body: Body): Promise<Template> => request('POST', '/v1/templates', body),
      get: (id: string): Promise<Template> => request('GET', `/v1/templates/${id}`),
      update: (id: string, body: Body): Promise<void> => request('POST', `/v1/templates/${id}`, body),
      delete: (id: string): Promise<void> => request('DELETE', `/v1/templates/${id}`),
    },
    webhook: {
      verifyPayload(payload: string, signature: string, webhookSecret: string): WebhookEvent {
        const payloadSignature = createHmac('sha256', webhookSecret).update(payload, 'utf8').digest('hex');
        if (payloadSignature === signature) return JSON.parse(payload) as WebhookEvent;
        throw new Error('Signature does not match!');
      },
    },
    lastHeaders: () => last.headers,
  };
}
