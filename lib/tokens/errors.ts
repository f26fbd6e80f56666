import { ServiceError } from '../errors.js';

/** A token with the same hash is already stored (the value was registered twice). */
export class TokenExistsError extends ServiceError {
  constructor(options: { cause?: unknown } = {}) {
    super('A token with this value already exists', 409, { cause: options.cause });
  }
}
