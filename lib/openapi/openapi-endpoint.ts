import type { HttpResult } from '../http/types.js';
import { openApiDocument } from './document.js';

/** `GET /v1/openapi.json`: the cached document, readable by anyone (browsers on other origins too). */
export function openApiResponse(): HttpResult {
  return {
    statusCode: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    },
    body: openApiDocument().json,
  };
}
