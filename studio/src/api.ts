/**
 * The studio's calls to the DocRender API: relative URLs (this origin only,
 * whatever the stage prefix), the token from sessionStorage and nowhere else.
 */

const TOKEN_KEY = 'docrender.token';

/** The token for this tab (sessionStorage: gone when the tab closes). */
export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Keeps the token for this tab only. */
export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** Drops the token. */
export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** An answer other than 2xx, with what the service said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly fields: Record<string, string> = {},
    readonly retryAfter?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Calls `path` (relative, e.g. `v1/usage`) with the stored token; throws ApiError on a non-2xx. */
export async function api(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}): Promise<Response> {
  const token = storedToken();
  const headers = new Headers();
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(path, {
    method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : null,
    signal: init.signal ?? null,
    credentials: 'omit',
    cache: 'no-store',
  });
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as { message?: string; code?: string; fields?: Record<string, string> };
  throw new ApiError(
    response.status,
    body.message ?? response.statusText,
    body.code,
    body.fields ?? {},
    response.headers.get('retry-after') ?? undefined,
  );
}

/** Calls `path` and parses the JSON answer. */
export async function apiJson<T>(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  return (await (await api(path, init)).json()) as T;
}

/** What a refusal means to the person at the keyboard (401, 402, 403, 429 are about the token, not the template). */
export function describeApiError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  switch (error.status) {
    case 401:
      return 'This token is not valid (401): check it, or ask for a new one.';
    case 402:
      return `The monthly render quota is spent (402): ${error.message}`;
    case 403:
      return `This token's subscription is inactive (403): ${error.message}`;
    case 429:
      return `Too many requests (429): this token's rate limit was reached${error.retryAfter ? `; try again in ${error.retryAfter} s` : ''}.`;
    default:
      return `${error.message} (${error.status}${error.code ? ` ${error.code}` : ''})`;
  }
}

export type Usage = {
  plan: string;
  quota: { limit: number | null; used: number; remaining: number | null };
  rate: { perSecond: number };
};

export type TemplateSummary = { id: string; name: string; output: 'PDF' | 'IMAGE'; createdAt: string; updatedAt: string };
export type Template = TemplateSummary & { variables: Variables };
export type TemplatePage = { hasNextPage: boolean; hasPreviousPage: boolean; data: TemplateSummary[] };
export type Variables = { page?: Record<string, unknown>; pdf?: Record<string, unknown>; screenshot?: Record<string, unknown> };
/** An account font as POST/GET /v1/fonts answer it (`format` is what is kept: a WOFF or WOFF2 is unpacked). */
export type Font = {
  id: string;
  family: string;
  weight: number;
  style: 'normal' | 'italic';
  format: 'ttf' | 'otf';
  uploadedAs: 'ttf' | 'otf' | 'woff' | 'woff2';
  bytes: number;
  glyphs: number;
  createdAt: string;
};
export type FontList = { data: Font[] };
