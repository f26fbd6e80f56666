import { ServiceError } from '../errors.js';

/**
 * The signer's key service (AWS KMS, Secrets Manager, the chain's parameter
 * or object) failed or refused: a 502 with a code. The message names the
 * signer and the service's error name (AccessDeniedException,
 * DisabledException…), never its key id, chain or password; no cause is kept,
 * as the SDK's messages name the key's ARN and the logger prints causes.
 */
export class SignerUnavailableError extends ServiceError {
  readonly code = 'render.signer_unavailable';
  constructor(signer: string, reason: string) {
    super(`The signer "${signer}" could not sign the document (${reason})`, 502, { expose: true });
  }
}

/** The timestamp authority could not be reached or answered no valid token: a 503 with a code. */
export class TimestampAuthorityError extends ServiceError {
  readonly code = 'render.timestamp_unavailable';
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(`The timestamp authority ${reason}`, 503, { expose: true, cause: options.cause });
  }
}

/**
 * The token was not granted the signer its render names (the deployer grants
 * signers with `tokens create --signers`): a 403 with a code, raised before
 * anything renders, and the unit the request spent is given back.
 */
export class SignerNotGrantedError extends ServiceError {
  readonly code = 'render.signer_not_granted';
  constructor(signer: string) {
    super(`This token may not sign with the signer "${signer}": ask the deployer to grant it (tokens create --signers ${signer})`, 403);
  }
}
