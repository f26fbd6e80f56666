import type { SubscriptionTerms } from './plans.js';

/** A subscription token as stored: only its SHA-256 hash, never the token itself. */
export type TokenRecord = {
  /** Hex SHA-256 of the bearer token; the table's key. */
  tokenHash: string;
  /** Owner of everything made with this token (templates, jobs, files). */
  accountId: string;
  /** False once deactivated: requests answer 403. */
  active: boolean;
  /** Monthly render quota; null means unlimited. */
  monthlyLimit: number | null;
  /** Requests per second allowed. */
  ratePerSecond: number;
  /** Standard Webhooks signing secret, `whsec_<base64 key>`. */
  webhookSecret: string;
  createdAt: string;
  /** The signers (lib/signing) this token may name in `pdf.signature`; absent or empty: none. */
  signers?: string[];
};

/** Port: where token records live (DynamoDB in every deployment). */
export interface TokenStore {
  /** The record for this hash, or undefined when no such token exists. */
  findByHash(tokenHash: string): Promise<TokenRecord | undefined>;
  /** Inserts a new record; fails if the hash already exists. */
  create(record: TokenRecord): Promise<void>;
  /** Sets `active`; resolves false when the token does not exist. */
  setActive(tokenHash: string, active: boolean): Promise<boolean>;
}

/**
 * Port: changing a subscription's terms. Kept apart from `TokenStore` because
 * only the admin CLI writes terms; request handling only reads them.
 */
export interface TokenTermsStore {
  /**
   * Sets the given terms, and the signers granted when given (replacing the
   * list); resolves to the updated record, or undefined when the token does not exist.
   */
  updateTerms(tokenHash: string, terms: Partial<SubscriptionTerms> & { signers?: string[] }): Promise<TokenRecord | undefined>;
}
