import { ValidationError } from '../errors.js';
import type { HttpEvent } from './types.js';

/**
 * Parses the request body as JSON. An absent body counts as `{}` so that the
 * schema names the missing fields; malformed JSON is the contract's 400.
 */
export function parseJsonBody(event: HttpEvent): unknown {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ValidationError({ body: `Malformed JSON: ${(cause as Error).message}` }, { message: 'Malformed JSON body', cause });
  }
}
