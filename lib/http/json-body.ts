import { ValidationError } from '../errors.js';
import type { HttpEvent } from './types.js';

/**
 * Parses the request body as JSON. An absent body counts as `{}` so that the
 * schema names the missing fields; malformed JSON is the contract's 400.
 */
export function parseJsonBody(event: HttpEvent): unknown {
  if (!event.body) return {};
  const decoded = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  // RFC 8259 §8.1: a parser may ignore a byte order mark, and some clients (PowerShell) send one.
  const text = decoded.startsWith('\uFEFF') ? decoded.slice(1) : decoded;
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ValidationError({ body: `Malformed JSON: ${(cause as Error).message}` }, { message: 'Malformed JSON body', cause });
  }
}
