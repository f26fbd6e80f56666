import type { HttpEvent, HttpResult } from '../lib/http/types.js';
import { openApiDocument } from '../lib/openapi/document.js';
import { docsPage, docsScript } from '../lib/openapi/docs-page.js';
import { openApiResponse } from '../lib/openapi/openapi-endpoint.js';

// Built at cold start: the document depends on the code alone.
openApiDocument();

/**
 * The API describing itself, no token: `GET /v1/openapi.json`, the reference
 * page `GET /docs` and its script `GET /docs/api-reference.js`. One function,
 * as none of them touches AWS and they are read together.
 */
export const handler = async (event: HttpEvent): Promise<HttpResult> => {
  if (event.rawPath.endsWith('/openapi.json')) return openApiResponse();
  if (event.rawPath.endsWith('/api-reference.js')) return docsScript(event);
  return docsPage();
};
