import { UnauthorizedError } from '../errors.js';
import { hashToken } from '../tokens/tokens.js';
import type { HttpEvent } from './types.js';

// The scheme name is case-insensitive (RFC 9110 §11.1): `bearer` is as good as `Bearer`.
const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]{16,512})[ \t]*$/i;

/**
 * The SHA-256 hash of the bearer token in `Authorization: Bearer <token>`,
 * by which its record is found; 401 when the header is missing or malformed.
 * Whether the token exists and is active is the admission's to say
 * (`admitRequest`). The clear value is never stored or logged.
 */
export function bearerTokenHash(event: HttpEvent): string {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  if (!header) throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <token>"');
  const match = BEARER.exec(header);
  if (!match?.[1]) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <token>"', 'invalid_request');
  return hashToken(match[1]);
}
