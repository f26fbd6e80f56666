import { SubscriptionInactiveError, UnauthorizedError } from '../errors.js';
import { hashToken } from '../tokens/tokens.js';
import type { TokenStore } from '../tokens/token-store.js';
import type { Caller, HttpEvent } from './types.js';

// The scheme name is case-insensitive (RFC 9110 §11.1): `bearer` is as good as `Bearer`.
const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]{16,512})[ \t]*$/i;

/**
 * Resolves the caller from `Authorization: Bearer <token>`: 401 when missing,
 * malformed or unknown, 403 when the subscription is inactive. The token is
 * looked up by its SHA-256 hash; the clear value is never stored or logged.
 */
export async function authenticate(event: HttpEvent, tokens: TokenStore): Promise<Caller> {
  const header = event.headers?.authorization ?? event.headers?.Authorization;
  if (!header) throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <token>"');
  const match = BEARER.exec(header);
  if (!match?.[1]) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <token>"', 'invalid_request');
  const record = await tokens.findByHash(hashToken(match[1]));
  if (!record) throw new UnauthorizedError('Invalid token', 'invalid_token');
  if (!record.active) throw new SubscriptionInactiveError();
  return { accountId: record.accountId, token: record };
}
