import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../errors.js';
import { DEFAULT_PLAN, PLANS, type PlanName, type SubscriptionTerms } from './plans.js';
import { SIGNER_NAME } from '../signing/signing-config.js';
import type { TokenRecord, TokenStore, TokenTermsStore } from './token-store.js';

/** Requests per second of a token issued without a plan or rate: the default plan's. */
export const DEFAULT_RATE_PER_SECOND: number = PLANS[DEFAULT_PLAN].ratePerSecond;

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
  /** Preset the terms start from; default DEFAULT_PLAN (unlimited). */
  plan?: PlanName;
  /** Monthly render quota, overriding the plan's; null means unlimited. */
  limit?: number | null;
  /** Requests per second, overriding the plan's. */
  rate?: number;
  /** False creates the token with its subscription inactive (403). Default true. */
  active?: boolean;
  /** Register this exact value instead of generating one (e.g. `DEV_TOKEN`). */
  token?: string;
  /** Signers the token may sign with (`pdf.signature.signer`); default none. */
  signers?: string[];
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
  const terms: SubscriptionTerms = { ...PLANS[opts.plan ?? DEFAULT_PLAN], ...explicitTerms(opts) };
  const problems = { ...termProblems(terms), ...signerProblems(opts.signers) };
  if (opts.token !== undefined && !TOKEN_SHAPE.test(opts.token)) {
    problems.token = 'must be 16 to 512 characters among A-Z a-z 0-9 . _ ~ + / = -';
  }
  throwIfAny(problems, 'Invalid token options');

  const token = opts.token ?? generateToken();
  const created: NewToken = { token, accountId: randomUUID(), webhookSecret: generateWebhookSecret() };
  await store.create({
    tokenHash: hashToken(token),
    accountId: created.accountId,
    active: opts.active ?? true,
    monthlyLimit: terms.monthlyLimit,
    ratePerSecond: terms.ratePerSecond,
    webhookSecret: created.webhookSecret,
    createdAt: new Date().toISOString(),
    ...(opts.signers && opts.signers.length > 0 ? { signers: [...new Set(opts.signers)] } : {}),
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

export type TermsChange = {
  /** Start from this preset's terms instead of the token's current ones. */
  plan?: PlanName;
  /** New monthly render quota; null means unlimited. */
  limit?: number | null;
  /** New requests per second. */
  rate?: number;
  /** The signers the token may name from now on, replacing those granted (empty: none). */
  signers?: string[];
};

/**
 * Changes a token's subscription terms: a plan's preset and/or an explicit
 * limit and rate. Takes effect on the next request; units already spent this
 * month stay spent. Throws NotFoundError for a token never issued.
 */
export async function setTokenTerms(store: TokenTermsStore, token: string, change: TermsChange): Promise<TokenRecord> {
  const terms: Partial<SubscriptionTerms> = { ...(change.plan ? PLANS[change.plan] : {}), ...explicitTerms(change) };
  const signers = change.signers && [...new Set(change.signers)];
  if (Object.keys(terms).length === 0 && !signers) {
    throw new ValidationError({ terms: 'nothing to change' }, { message: 'Give a plan, a limit, a rate or signers' });
  }
  throwIfAny({ ...termProblems(terms), ...signerProblems(signers) }, 'Invalid terms');
  const updated = await store.updateTerms(hashToken(token), { ...terms, ...(signers ? { signers } : {}) });
  if (!updated) throw new NotFoundError('Unknown token');
  return updated;
}

/** The terms given explicitly (a null limit included), to lay over a plan's. */
function explicitTerms(change: { limit?: number | null; rate?: number }): Partial<SubscriptionTerms> {
  return {
    ...(change.limit !== undefined ? { monthlyLimit: change.limit } : {}),
    ...(change.rate !== undefined ? { ratePerSecond: change.rate } : {}),
  };
}

/** A grant names signers as the deployment's SIGNERS does. */
function signerProblems(signers: string[] | undefined): Record<string, string> {
  const bad = (signers ?? []).find((name) => !SIGNER_NAME.test(name));
  return bad === undefined ? {} : { signers: 'must be signer names (letters, digits, - and _), comma-separated' };
}

function termProblems(terms: Partial<SubscriptionTerms>): Record<string, string> {
  const problems: Record<string, string> = {};
  const { monthlyLimit: limit, ratePerSecond: rate } = terms;
  if (limit !== undefined && limit !== null && !(Number.isSafeInteger(limit) && limit >= 0)) {
    problems.limit = 'must be a whole number of renders, 0 or more';
  }
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) problems.rate = 'must be a number of requests per second above 0';
  return problems;
}

function throwIfAny(problems: Record<string, string>, summary: string): void {
  if (Object.keys(problems).length === 0) return;
  const detail = Object.entries(problems).map(([field, problem]) => `${field} ${problem}`);
  throw new ValidationError(problems, { message: `${summary}: ${detail.join('; ')}` });
}
