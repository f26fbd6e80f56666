/**
 * The signing library's errors, in its own terms: which signer, what failed.
 * What each means for a caller (its HTTP status, its code, whether its
 * message is shown) is decided once at the edge (`httpError` in lib/errors.ts).
 */

/**
 * The signer's key service (AWS KMS, Secrets Manager, the chain's parameter
 * or object) failed or refused. The message names the signer and the
 * service's error name (AccessDeniedException, DisabledException…), never its
 * key id, chain or password; no cause is kept, as the SDK's messages name the
 * key's ARN and the logger prints causes.
 */
export class SignerUnavailableError extends Error {
  readonly signer: string;
  readonly reason: string;
  constructor(signer: string, reason: string) {
    super(`The signer "${signer}" could not sign the document (${reason})`);
    this.name = 'SignerUnavailableError';
    this.signer = signer;
    this.reason = reason;
  }
}

/** The timestamp authority could not be reached or answered no valid token: `reason` says which ("unreachable", "answered HTTP 500"…). */
export class TimestampAuthorityError extends Error {
  readonly reason: string;
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(`The timestamp authority ${reason}`, { cause: options.cause });
    this.name = 'TimestampAuthorityError';
    this.reason = reason;
  }
}

/**
 * The token was not granted the signer its render names (the deployer grants
 * signers with `tokens create --signers`), raised before anything renders;
 * the unit the request spent is given back (lib/http/quota-spend.ts).
 */
export class SignerNotGrantedError extends Error {
  readonly signer: string;
  constructor(signer: string) {
    super(`This token may not sign with the signer "${signer}": ask the deployer to grant it (tokens create --signers ${signer})`);
    this.name = 'SignerNotGrantedError';
    this.signer = signer;
  }
}
