import type { MiddlewareObj } from '@middy/core';
import { PayloadTooLargeError } from '../errors.js';
import type { HttpEvent, HttpResult } from './types.js';

/** Byte length of the request body as the client sent it. */
export function bodyBytes(event: HttpEvent): number {
  if (!event.body) return 0;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').length : Buffer.byteLength(event.body, 'utf8');
}

/** Refuses bodies over `maxBytes` with 413 before anything parses them. */
export function bodyLimit(opts: { maxBytes: number }): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    before: async (request) => {
      if (bodyBytes(request.event) > opts.maxBytes) throw new PayloadTooLargeError(opts.maxBytes);
    },
  };
}
