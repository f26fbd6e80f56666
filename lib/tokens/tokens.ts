import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../errors.js';
import type { TokenStore } from './token-store.js';

/** Requests per second a new token may make unless told otherwise. */
export const DEFAULT_RATE_PER_SECOND = 10;

/**
 * What a bearer token may look like: RFC 6750's token68 characters, 16 to 512
 * of them, the same rule the auth middleware applies to the header.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{16,512}$/;

export type NewToken = {
  /** The bearer token in clear: shown once, never stored. */
  token: string;
  accountId: string;
  /** Standard Webhooks signing secret, `whsec_<base64 key>`. */
  webhookSecret: string;
};

export type CreateTokenOptions = {
  /** Monthly render quota; null or absent means unlimited. */
  limit?: number | null;
  /** Requests per second; defaults to DEFAULT_RATE_PER_SECOND. */
  rate?: number;
  /** False creates the token with its subscription inactive (403). Default true. */
  active?: boolean;
  /** Register this exact value instead of generating one (e.g. `DEV_TOKEN`). */
  token?: string;
};

/** A fresh bearer token: `dr_` and 256 random bits in base64url. */
export function generateToken(): string {
  return `dr_${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256 of a token: the only form in which tokens are stored or looked up. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A Standard Webhooks signing secret: `whsec_` and a 32-byte key in base64. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Issues a token with its own account and webhook secret and stores its hash.
 * The clear token is returned once and kept nowhere.
 */
export async function createToken(store: TokenStore, opts: CreateTokenOptions = {}): Promise<NewToken> {
  const limit = opts.limit ?? null;
  const rate = opts.rate ?? DEFAULT_RATE_PER_SECOND;
  const problems: Record<string, string> = {};
  if (limit !== null && !(Number.isSafeInteger(limit) && limit >= 0)) problems.limit = 'must be a whole number of renders, 0 or more';
  if (!(Number.isFinite(rate) && rate > 0)) problems.rate = 'must be a number of requests per second above 0';
  if (opts.token !== undefined && !TOKEN_SHAPE.test(opts.token)) {
    problems.token = 'must be 16 to 512 characters among A-Z a-z 0-9 . _ ~ + / = -';
  }
  if (Object.keys(problems).length > 0) {
    const detail = Object.entries(problems).map(([field, problem]) => `${field} ${problem}`);
    throw new ValidationError(problems, { message: `Invalid token options: ${detail.join('; ')}` });
  }

  const token = opts.token ?? generateToken();
  const created: NewToken = { token, accountId: randomUUID(), webhookSecret: generateWebhookSecret() };
  await store.create({
    tokenHash: hashToken(token),
    accountId: created.accountId,
    active: opts.active ?? true,
    monthlyLimit: limit,
    ratePerSecond: rate,
    webhookSecret: created.webhookSecret,
    createdAt: new Date().toISOString(),
  });
  return created;
}

/**
 * Activates or deactivates the subscription of a token.
 * Throws NotFoundError when no such token was ever issued.
 */
export async function setTokenActive(store: TokenStore, token: string, active: boolean): Promise<void> {
  const found = await store.setActive(hashToken(token), active);
  if (!found) throw new NotFoundError('Unknown token');
}
