import type { HttpResult } from './types.js';

/** A JSON response with the given status. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** A binary response (a rendered file); API Gateway decodes the base64 body. */
export function file(body: Buffer, contentType: string, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode: 200,
    headers: { 'content-type': contentType, 'content-length': String(body.length), ...headers },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

/** 204 without a body. */
export function noContent(headers: Record<string, string> = {}): HttpResult {
  return { statusCode: 204, headers, body: '' };
}
